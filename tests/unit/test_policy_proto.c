// SPDX-License-Identifier: GPL-2.0
/* L0: the arbiter's socket verbs (arb_proto.h): parse, format, kv lines. */
#include <errno.h>
#include <stdio.h>
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

/* busy/idle gpu=: KFD gpu_ids, the GPUs the online work is on. */
TEST(gpu_field)
{
	struct arb_req r = { .verb = ARB_IDLE, .pid = 7, .ngpus = 2,
			     .gpus = { 10001, 4294967295u } };
	char buf[96];

	CHECK(parse("busy pid=42 gpu=10001\n") == 1 && q.ngpus == 1 &&
	      q.gpus[0] == 10001 && q.pid == 42);
	CHECK(parse("busy gpu=10001,10002,3 scope=pid\n") == 1 &&
	      q.ngpus == 3 && q.gpus[1] == 10002 && q.gpus[2] == 3 &&
	      q.pid_scope);
	CHECK(parse("idle gpu=4294967295") == 1 && q.gpus[0] == 4294967295u);
	CHECK(parse("busy\n") == 1 && q.ngpus == 0);
	CHECK(parse("busy gpu=0\n") == -1);	/* 0 is a CPU node */
	CHECK_STR(e.msg, "gpu is one or more distinct non-zero KFD gpu_ids, "
		  "comma-separated (at most 64): 'gpu=0'");
	CHECK(parse("busy gpu=4294967296\n") == -1);
	CHECK(parse("busy gpu=1,1\n") == -1);
	CHECK(parse("busy gpu=1,\n") == -1);
	CHECK(parse("busy gpu=,1\n") == -1);
	CHECK(parse("busy gpu=\n") == -1);
	CHECK(parse("busy gpu=0x10\n") == -1);
	CHECK(parse("busy gpu=1 gpu=2\n") == -1);
	CHECK(parse("classify pid=3 class=none gpu=1\n") == -1);
	CHECK(parse("watch pid=1 queue=0 wptr=0x8 rptr=0x8 gpu=1\n") == -1);
	/* 64 ids fit, 65 do not */
	{
		char l[1024] = "busy gpu=1";
		int i;

		for (i = 2; i <= 64; i++)
			snprintf(l + strlen(l), sizeof(l) - strlen(l), ",%d", i);
		CHECK(parse(l) == 1 && q.ngpus == 64 && q.gpus[63] == 64);
		strcat(l, ",65");
		CHECK(parse(l) == -1);
	}
	CHECK(arb_format_request(buf, sizeof(buf), &r) > 0);
	CHECK_STR(buf, "idle pid=7 gpu=10001,4294967295\n");
	CHECK(parse(buf) == 1 && q.ngpus == 2 && q.gpus[1] == 4294967295u);
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

/* A handler the daemon picked by its verb parses only the words after it
 * (arbiter_req.c's serve): the same rules, the verb given. */
TEST(args_of_a_known_verb)
{
	const char *a = " pid=42 scope=pid\n";

	CHECK(arb_parse_args(ARB_IDLE, a, strlen(a), &q, &e) == 1 &&
	      q.verb == ARB_IDLE && q.pid == 42 && q.pid_scope);
	CHECK(arb_parse_args(ARB_POLICY, "\n", 1, &q, &e) == 1 &&
	      q.verb == ARB_POLICY);
	CHECK(arb_parse_args(ARB_BUSY, "", 0, &q, &e) == 1 && !q.pid);
	/* a key another verb takes, a missing one, a double space */
	CHECK(arb_parse_args(ARB_POLICY, " pid=1", 6, &q, &e) == -1);
	CHECK(arb_parse_args(ARB_CLASSIFY, " pid=7", 6, &q, &e) == -1 &&
	      strstr(e.msg, "classify needs"));
	CHECK(arb_parse_args(ARB_BUSY, "  pid=1", 7, &q, &e) == -1);
}

int main(void)
{
	RUN(verbs);
	RUN(not_ours);
	RUN(malformed_refused_with_reason);
	RUN(format_round_trip);
	RUN(gpu_field);
	RUN(kv_lines);
	RUN(args_of_a_known_verb);
	return tap_done();
}
