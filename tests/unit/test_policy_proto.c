// SPDX-License-Identifier: GPL-2.0
/* L0: the arbiter's socket verbs (arb_proto.h): parse, format, kv lines. */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "arb_proto.h"

static struct arb_req q;
static struct gp_err e;

static int parse(const char *s)
{
	memset(&e, 0, sizeof(e));
	return arb_parse_request(s, strlen(s), &q, &e);
}

TEST(verbs)
{
	CHECK(parse("busy\n") == 1 && q.verb == ARB_BUSY && !q.pid &&
	      !q.pid_scope);
	CHECK(parse("idle pid=42 scope=pid\n") == 1 && q.verb == ARB_IDLE &&
	      q.pid == 42 && q.pid_scope);
	CHECK(parse("busy scope=conn") == 1 && !q.pid_scope);
	CHECK(parse("classify pid=7 class=offline\n") == 1 &&
	      q.verb == ARB_CLASSIFY && q.pid == 7 &&
	      q.cls == GP_CLASS_OFFLINE);
	CHECK(parse("policy\n") == 1 && q.verb == ARB_POLICY);
}

TEST(not_ours)
{
	CHECK(parse("suspend pid=1\n") == 0);
	CHECK(parse("status\n") == 0);
	CHECK(parse("busyx\n") == 0);
	CHECK(parse("\n") == 0);
}

TEST(malformed_refused_with_reason)
{
	CHECK(parse("busy pid=0\n") == -1);
	CHECK_STR(e.msg, "not a pid: 'pid=0'");
	CHECK(e.exit == 2 && e.err == EINVAL);
	CHECK(parse("busy pid=012\n") == -1);	/* decimal only */
	CHECK(parse("busy pid=1 pid=2\n") == -1);
	CHECK_STR(e.msg, "unknown or repeated key for this verb: 'pid=2'");
	CHECK(parse("busy  pid=1\n") == -1);
	CHECK(parse("busy pid=1 \n") == -1);
	CHECK(parse("busy scope=thread\n") == -1);
	CHECK_STR(e.msg, "scope is conn or pid: 'scope=thread'");
	CHECK(parse("policy pid=3\n") == -1);
	CHECK(parse("classify pid=3\n") == -1);
	CHECK_STR(e.msg, "classify needs pid=N and class=online|offline|none");
	CHECK(parse("classify pid=3 class=fast\n") == -1);
	CHECK(parse("classify pid=3 scope=pid class=none\n") == -1);
	CHECK(parse("idle pid\n") == -1);
	CHECK_STR(e.msg, "expected KEY=VALUE: 'pid'");
}

TEST(format_round_trip)
{
	struct arb_req r = { .verb = ARB_BUSY, .pid = 4242, .pid_scope = true };
	char buf[64];

	CHECK(arb_format_request(buf, sizeof(buf), &r) ==
	      (int)strlen("busy pid=4242 scope=pid\n"));
	CHECK_STR(buf, "busy pid=4242 scope=pid\n");
	CHECK(parse(buf) == 1 && q.pid == 4242 && q.pid_scope);
	r = (struct arb_req){ .verb = ARB_CLASSIFY, .pid = 9,
			      .cls = GP_CLASS_NONE };
	arb_format_request(buf, sizeof(buf), &r);
	CHECK_STR(buf, "classify pid=9 class=none\n");
	CHECK(arb_format_request(buf, 8, &r) == -ENOSPC);
}

TEST(kv_lines)
{
	struct arb_kv kv;
	const char *l = "proc pid=12 class=offline suspended=1\n";

	CHECK(arb_kv_parse(l, strlen(l), &kv) == 0);
	CHECK_STR(kv.kind, "proc");
	CHECK(kv.n == 3);
	CHECK_STR(arb_kv_get(&kv, "class"), "offline");
	CHECK(arb_kv_get(&kv, "nope") == NULL);
	CHECK(arb_kv_parse("proc =3", 7, &kv) == -1);
	CHECK(arb_kv_parse("proc x", 6, &kv) == -1);
}

int main(void)
{
	RUN(verbs);
	RUN(not_ours);
	RUN(malformed_refused_with_reason);
	RUN(format_round_trip);
	RUN(kv_lines);
	return tap_done();
}
