// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the daemon's socket protocol: any bytes given to
 * the request parser and the reply parser must be refused or accepted
 * cleanly, never read out of bounds; what is accepted must format back
 * to a line that parses to the same request (one spelling per value).
 *
 *   tests/fuzz/run.sh [SECONDS]     build, run, print TAP
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "proto.h"

static void check_request(const uint8_t *data, size_t size)
{
	static struct proto_req q, q2;
	static char line[PROTO_MAX_REQ + 1];
	struct gp_err e = {};
	int n;

	if (proto_parse_request((const char *)data, size, &q, &e)) {
		assert(e.exit == GP_EXIT_USAGE);
		assert(e.msg[0]);
		return;
	}
	n = proto_format_request(line, sizeof(line), &q);
	assert(n > 0);
	/* the canonical form is never longer than the input + "\n" */
	assert((size_t)n <= size + 1);
	assert(proto_parse_request(line, n, &q2, &e) == 0);
	assert(!memcmp(&q, &q2, sizeof(q)));
}

static void check_reply(const uint8_t *data, size_t size)
{
	static struct proto_reply r;
	static char buf[PROTO_MAX_LINE];
	struct gp_err e = {};
	uint32_t i;

	if (proto_parse_reply((const char *)data, size, &r, &e)) {
		assert(e.exit == GP_EXIT_DAEMON);
		return;
	}
	/* whatever parsed formats again (the formatters never fail on it) */
	if (r.has_daemon)
		assert(proto_format_daemon(buf, sizeof(buf), &r.daemon) > 0);
	if (r.has_op)
		assert(proto_format_op(buf, sizeof(buf), &r.op) > 0);
	for (i = 0; i < r.n_sessions; i++)
		assert(proto_format_session(buf, sizeof(buf),
					    &r.sessions[i]) > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private copy so reading past size is caught by ASan */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	check_request(copy, size);
	check_reply(copy, size);
	free(copy);
	return 0;
}
