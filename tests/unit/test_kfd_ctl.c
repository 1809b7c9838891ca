// SPDX-License-Identifier: GPL-2.0
/* L0: gpreempt-ctl's argument parsing and its pure helpers (ctl_*.c). */
#include <stdio.h>
#include <string.h>

#include "ctl_args.h"
#include "ctl_cmd.h"
#include "exitcodes.h"
#include "queues.h"
#include "tap.h"
#include "util.h"

static FILE *sink;

/* Parse a NULL-terminated list of words, argv[0] = "gpreempt-ctl". */
#define PARSE(a, ...)							\
	({								\
		char *_v[] = { "gpreempt-ctl", __VA_ARGS__, NULL };	\
		ctl_parse(sizeof(_v) / sizeof(_v[0]) - 1, _v, (a),	\
			  sink, sink);					\
	})

TEST(suspend_full)
{
	struct ctl_args a;

	CHECK(PARSE(&a, "suspend", "--pid", "42", "-q", "1", "--queue",
		    "16", "--grace-period", "100", "--for", "250ms",
		    "-j") == 0);
	CHECK(a.cmd == CTL_SUSPEND);
	CHECK(a.pid == 42);
	CHECK(a.n_queues == 2 && a.queues[0] == 1 && a.queues[1] == 16);
	CHECK(a.grace_set && a.grace_period == 100);
	CHECK(a.for_ns == 250 * NSEC_PER_MSEC);
	CHECK(a.json && !a.help && !a.no_daemon && !a.socket);
}

TEST(suspend_short_and_global)
{
	struct ctl_args a;

	CHECK(PARSE(&a, "-j", "-v", "suspend", "-p", "7", "-f", "2s",
		    "--wait-runtime", "5s", "--no-daemon") == 0);
	CHECK(a.json && a.verbose && a.no_daemon);
	CHECK(a.pid == 7 && a.for_ns == 2 * NSEC_PER_SEC);
	CHECK(a.wait_runtime_ns == 5 * NSEC_PER_SEC);
	CHECK(a.n_queues == 0 && !a.grace_set);
}

TEST(suspend_rejects)
{
	struct ctl_args a;

	CHECK(PARSE(&a, "suspend") == GP_EXIT_USAGE); /* no pid */
	CHECK(PARSE(&a, "suspend", "--pid", "0") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "--pid", "-3") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "--pid", "abc") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-q", "x") == GP_EXIT_USAGE);
	/* bits 30/31 are KFD's status bits, not part of an id */
	CHECK(PARSE(&a, "suspend", "-p", "1", "-q", "1073741824") ==
	      GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-q", "1073741823") == 0);
	/* decimal only, as on the daemon's socket: 010 is not 8 */
	CHECK(PARSE(&a, "suspend", "--pid", "010") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "--pid", "0x10") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-q", "0x10") ==
	      GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-g", "010") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-f", "0") == GP_EXIT_USAGE);
	/* would overflow the hold's deadline: refused, not a 0 s hold */
	CHECK(PARSE(&a, "suspend", "-p", "1", "-f", "5000000h") ==
	      GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "--wait-runtime",
		    "5000000h") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-f", "soon") ==
	      GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "-g", "-1") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "extra") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "--bogus") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "--socket", "/x",
		    "--no-daemon") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "suspend", "-p", "1", "--socket", "") ==
	      GP_EXIT_USAGE);
}

TEST(too_many_queues)
{
	char *v[3 + 2 * (CTL_MAX_QUEUES + 1) + 1];
	char ids[CTL_MAX_QUEUES + 1][12];
	struct ctl_args a;
	int n = 0, i;

	v[n++] = "gpreempt-ctl";
	v[n++] = "suspend";
	v[n++] = "-p1";
	for (i = 0; i < CTL_MAX_QUEUES; i++) {
		snprintf(ids[i], sizeof(ids[i]), "%d", i);
		v[n++] = "-q";
		v[n++] = ids[i];
	}
	v[n] = NULL;
	CHECK(ctl_parse(n, v, &a, sink, sink) == 0);
	CHECK(a.n_queues == CTL_MAX_QUEUES);
	v[n++] = "-q";
	v[n++] = "9";
	v[n] = NULL;
	CHECK(ctl_parse(n, v, &a, sink, sink) == GP_EXIT_USAGE);
}

TEST(options_per_command)
{
	struct ctl_args a;

	/* --for and --queue make no sense for these */
	CHECK(PARSE(&a, "resume", "-p", "5", "--for", "1s") ==
	      GP_EXIT_USAGE);
	CHECK(PARSE(&a, "check", "--pid", "5") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "list", "-q", "1") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "status", "-g", "1") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "resume") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "resume", "-p", "5", "-q", "3") == 0);
	CHECK(a.cmd == CTL_RESUME && a.n_queues == 1 && a.queues[0] == 3);
	CHECK(PARSE(&a, "list") == 0 && a.cmd == CTL_LIST && !a.pid);
	CHECK(PARSE(&a, "list", "--pid", "9", "-j") == 0 && a.pid == 9);
	CHECK(PARSE(&a, "status", "--socket", "/tmp/s") == 0);
	CHECK(a.cmd == CTL_STATUS && !strcmp(a.socket, "/tmp/s"));
	CHECK(PARSE(&a, "check", "-j") == 0 && a.cmd == CTL_CHECK && a.json);
}

TEST(top_level)
{
	struct ctl_args a;
	char *none[] = { "gpreempt-ctl", NULL };

	CHECK(ctl_parse(1, none, &a, sink, sink) == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "frobnicate") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "--bogus", "list") == GP_EXIT_USAGE);
	CHECK(PARSE(&a, "--help") == 0 && a.help);
	CHECK(PARSE(&a, "-h") == 0 && a.help);
	CHECK(PARSE(&a, "suspend", "--help") == 0 && a.help);
	CHECK(PARSE(&a, "check", "--usage") == 0 && a.help);
}

TEST(daemon_passthrough)
{
	struct ctl_args a;

	/* the daemon parses its own options */
	CHECK(PARSE(&a, "-j", "daemon", "--socket", "/tmp/x",
		    "--max-hold", "5s") == 0);
	CHECK(a.cmd == CTL_DAEMON && a.json);
	CHECK(a.sub_argc == 5);
	CHECK_STR(a.sub_argv[0], "daemon");
	CHECK_STR(a.sub_argv[4], "5s");
}

TEST(cmd_names)
{
	CHECK_STR(ctl_cmd_name(CTL_SUSPEND), "suspend");
	CHECK_STR(ctl_cmd_name(CTL_CHECK), "check");
	CHECK_STR(ctl_cmd_name(CTL_DAEMON), "daemon");
}

TEST(fmt_ns)
{
	char b[32];

	fmt_ns(b, sizeof(b), 0);
	CHECK_STR(b, "0.000 ms");
	fmt_ns(b, sizeof(b), 71234);
	CHECK_STR(b, "0.071 ms");
	fmt_ns(b, sizeof(b), 999999999);
	CHECK_STR(b, "999.999 ms");
	fmt_ns(b, sizeof(b), 10 * NSEC_PER_SEC);
	CHECK_STR(b, "10.000 s");
	fmt_ns(b, sizeof(b), 1500 * NSEC_PER_MSEC);
	CHECK_STR(b, "1.500 s");
}

static struct gp_queue_row row(__u32 pid, __u32 gpu, __u32 qid,
			       __u32 state, __u32 origin)
{
	struct gp_queue_row r = {};

	r.k.pid = pid;
	r.k.gpu_id = gpu;
	r.k.queue_id = qid;
	r.v.state = state;
	r.v.origin = origin;
	r.v.ring_size = 4096;
	return r;
}

TEST(list_overlay)
{
	struct gp_queue_row sys[3] = {
		row(10, 0x1002, 1, GP_QS_ACTIVE, GP_ORIGIN_SYSFS),
		row(10, 0x1002, 2, GP_QS_ACTIVE, GP_ORIGIN_SYSFS),
		row(11, 0x1002, 1, GP_QS_ACTIVE, GP_ORIGIN_SYSFS),
	};
	struct gp_queue_row live[3] = {
		row(10, 0x1002, 2, GP_QS_SUSPENDED, GP_ORIGIN_BPF),
		/* same queue id on another GPU or pid: not a match */
		row(10, 0x2002, 1, GP_QS_EVICTED, GP_ORIGIN_BPF),
		/* gone from sysfs (destroyed): sysfs decides, not shown */
		row(12, 0x1002, 9, GP_QS_EVICTED, GP_ORIGIN_BPF),
	};

	live[0].v.suspends = 3;
	CHECK(ctl_queues_overlay(sys, 3, live, 3) == 1);
	CHECK(sys[1].v.state == GP_QS_SUSPENDED && sys[1].v.suspends == 3);
	CHECK(sys[1].v.origin == GP_ORIGIN_BPF);
	CHECK(sys[0].v.state == GP_QS_ACTIVE);
	CHECK(sys[2].v.state == GP_QS_ACTIVE);
	CHECK(ctl_queues_overlay(sys, 3, NULL, 0) == 0);
}

int main(void)
{
	sink = fopen("/dev/null", "w");
	/* getopt reports unknown options on stderr itself */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	RUN(suspend_full);
	RUN(suspend_short_and_global);
	RUN(suspend_rejects);
	RUN(too_many_queues);
	RUN(options_per_command);
	RUN(top_level);
	RUN(daemon_passthrough);
	RUN(cmd_names);
	RUN(fmt_ns);
	RUN(list_overlay);
	return tap_done();
}
