// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the daemon's socket protocol. Requests and replies round-trip
 * through their formatter and parser; every malformed request is refused
 * with exit 2 and the right errno, and the limits hold at their edges.
 */
#include <errno.h>
#include <stdlib.h>

#include "exitcodes.h"
#include "proto.h"
#include "tap.h"

static struct proto_req q;
static struct proto_reply r;
static struct gp_err e;

static int req(const char *s)
{
	memset(&e, 0, sizeof(e));
	return proto_parse_request(s, strlen(s), &q, &e);
}

/* Refused with exit 2, errno err, and a message containing word. */
static int refused(const char *s, int err, const char *word)
{
	if (req(s) != -1) {
		printf("# accepted: \"%s\"\n", s);
		return 0;
	}
	if (e.exit != GP_EXIT_USAGE || e.err != err || !strstr(e.msg, word)) {
		printf("# \"%.60s\": exit %d errno %d msg \"%s\" (want "
		       "errno %d, \"%s\")\n", s, e.exit, e.err, e.msg, err,
		       word);
		return 0;
	}
	return 1;
}

TEST(request_verbs)
{
	CHECK(req("suspend pid=42\n") == 0 && q.verb == PROTO_SUSPEND &&
	      q.pid == 42 && q.n_queues == 0 && q.grace == 0 &&
	      q.for_ns == 0);
	CHECK(req("resume pid=7") == 0 && q.verb == PROTO_RESUME &&
	      q.pid == 7);
	CHECK(req("attach pid=1") == 0 && q.verb == PROTO_ATTACH);
	CHECK(req("detach pid=2147483647") == 0 && q.verb == PROTO_DETACH &&
	      q.pid == 2147483647);
	CHECK(req("status") == 0 && q.verb == PROTO_STATUS && q.pid == 0);
	CHECK(req("status pid=9\n") == 0 && q.pid == 9);
}

TEST(request_keys)
{
	CHECK(req("suspend pid=42 queues=1,2,1073741823 grace=100 "
		  "for_ns=2000000000") == 0);
	CHECK(q.n_queues == 3 && q.queues[0] == 1 && q.queues[1] == 2 &&
	      q.queues[2] == 0x3fffffff);
	CHECK(q.grace == 100 && q.for_ns == 2000000000ULL);
	/* order of keys is free */
	CHECK(req("suspend grace=0 queues=0 pid=3") == 0 && q.pid == 3 &&
	      q.n_queues == 1 && q.queues[0] == 0);
	CHECK(req("resume pid=5 queues=4") == 0 && q.n_queues == 1);
	CHECK(req("suspend pid=1 grace=4294967295 "
		  "for_ns=9223372036854775807") == 0 &&
	      q.grace == UINT32_MAX && q.for_ns == INT64_MAX);
}

TEST(request_malformed)
{
	CHECK(refused("", EINVAL, "empty request"));
	CHECK(refused("\n", EINVAL, "empty request"));
	CHECK(refused("hello pid=1", EINVAL, "unknown request 'hello'"));
	CHECK(refused("SUSPEND pid=1", EINVAL, "unknown request"));
	CHECK(refused("suspendx pid=1", EINVAL, "unknown request"));
	CHECK(refused("suspend", EINVAL, "needs pid=N"));
	CHECK(refused("resume queues=1", EINVAL, "needs pid=N"));
	CHECK(refused("detach", EINVAL, "needs pid=N"));
	CHECK(refused(" suspend pid=1", EINVAL, "unknown request ''"));
	CHECK(refused("suspend  pid=1", EINVAL, "empty field"));
	CHECK(refused("suspend pid=1 ", EINVAL, "empty field"));
	CHECK(refused("suspend pid=1\r\n", EINVAL, "byte 0x0d"));
	CHECK(refused("suspend\tpid=1", EINVAL, "byte 0x09"));
	CHECK(refused("suspend pid=1\n\n", EINVAL, "byte 0x0a"));
	CHECK(refused("suspend pid=\xc3\xa9", EINVAL, "byte 0xc3"));
	CHECK(refused("suspend pid", EINVAL, "not KEY=VALUE"));
	CHECK(refused("suspend pid=", EINVAL, "not KEY=VALUE"));
	CHECK(refused("suspend =1", EINVAL, "not KEY=VALUE"));
	CHECK(refused("suspend pid=1 pid=1", EINVAL, "given twice"));
	CHECK(refused("suspend pid=1 colour=red", EINVAL, "no key 'colour'"));
	CHECK(refused("resume pid=1 grace=1", EINVAL, "no key 'grace'"));
	CHECK(refused("resume pid=1 for_ns=1", EINVAL, "no key 'for_ns'"));
	CHECK(refused("status queues=1", EINVAL, "no key 'queues'"));
	CHECK(refused("attach pid=1 queues=1", EINVAL, "no key"));
	CHECK(refused("suspend pid=0", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=-1", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=+1", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=01", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=0x10", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=2147483648", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=99999999999999999999999", EINVAL,
		      "bad pid"));
	CHECK(refused("suspend pid=1=2", EINVAL, "bad pid"));
	CHECK(refused("suspend pid=1 grace=4294967296", EINVAL, "bad grace"));
	CHECK(refused("suspend pid=1 for_ns=0", EINVAL, "bad for_ns"));
	CHECK(refused("suspend pid=1 wait_ns=0", EINVAL, "bad wait_ns"));
	CHECK(refused("resume pid=1 wait_ns=5", EINVAL, "no key 'wait_ns'"));
	CHECK(req("suspend pid=1 wait_ns=5000000000") == 0 &&
	      q.wait_ns == 5000000000ULL);
	CHECK(refused("suspend pid=1 for_ns=18446744073709551616", EINVAL,
		      "bad for_ns"));
	/* a hold that would overflow a monotonic deadline is refused */
	CHECK(refused("suspend pid=1 for_ns=9223372036854775808", EINVAL,
		      "bad for_ns"));
	CHECK(refused("suspend pid=1 for_ns=18446744073709551615", EINVAL,
		      "bad for_ns"));
	CHECK(refused("suspend pid=1 queues=1,", EINVAL, "bad queue id ''"));
	CHECK(refused("suspend pid=1 queues=,1", EINVAL, "bad queue id"));
	CHECK(refused("suspend pid=1 queues=1,,2", EINVAL, "bad queue id"));
	CHECK(refused("suspend pid=1 queues=a", EINVAL, "bad queue id 'a'"));
	CHECK(refused("suspend pid=1 queues=1073741824", EINVAL,
		      "bad queue id"));
	CHECK(refused("suspend pid=1 queues=3,4,3", EINVAL,
		      "queue id 3 given twice"));
}

TEST(request_nul_inside)
{
	static const char s[] = "suspend pid=1\0 queues=2";

	memset(&e, 0, sizeof(e));
	CHECK(proto_parse_request(s, sizeof(s) - 1, &q, &e) == -1);
	CHECK(e.err == EINVAL && strstr(e.msg, "byte 0x00"));
}

TEST(request_limits)
{
	char buf[PROTO_MAX_REQ + 64];
	size_t n;
	int i;

	/* PROTO_MAX_QUEUES ids fit in one request line; one more does not */
	n = snprintf(buf, sizeof(buf), "suspend pid=1 queues=");
	for (i = 0; i < PROTO_MAX_QUEUES; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%d", i ? "," : "",
			      i + 100000);
	CHECK(n < PROTO_MAX_REQ);
	CHECK(req(buf) == 0 && q.n_queues == PROTO_MAX_QUEUES &&
	      q.queues[PROTO_MAX_QUEUES - 1] == 100000 + PROTO_MAX_QUEUES - 1);
	snprintf(buf + n, sizeof(buf) - n, ",7");
	CHECK(refused(buf, E2BIG, "more than 256 queue ids"));

	/* exactly PROTO_MAX_REQ - 1 bytes (+ "\n") is the longest line */
	memset(buf, 0, sizeof(buf));
	n = snprintf(buf, sizeof(buf), "status pid=1 queues=");
	memset(buf + n, '1', PROTO_MAX_REQ - 1 - n);
	buf[PROTO_MAX_REQ - 1] = '\n';
	/* long but well-formed length: refused for the key, not the size */
	CHECK(refused(buf, EINVAL, "no key 'queues'"));
	buf[PROTO_MAX_REQ - 1] = '1';
	buf[PROTO_MAX_REQ] = '\n';
	CHECK(refused(buf, E2BIG, "longer than 4095"));
}

TEST(request_round_trip)
{
	static const char *const lines[] = {
		"suspend pid=42\n",
		"suspend pid=42 queues=1,2,3 grace=100 for_ns=1500000000\n",
		"resume pid=1 queues=0\n",
		"attach pid=99\n",
		"detach pid=99\n",
		"status\n",
		"status pid=12\n",
	};
	char buf[PROTO_MAX_REQ];
	struct proto_req q2;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		CHECK(req(lines[i]) == 0);
		CHECK(proto_format_request(buf, sizeof(buf), &q) ==
		      (int)strlen(lines[i]));
		CHECK_STR(buf, lines[i]);
		CHECK(proto_parse_request(buf, strlen(buf), &q2, &e) == 0);
		CHECK(!memcmp(&q, &q2, sizeof(q)));
	}
	q.verb = PROTO_NONE;
	CHECK(proto_format_request(buf, sizeof(buf), &q) == -EINVAL);
	CHECK(req("suspend pid=42 queues=1") == 0);
	CHECK(proto_format_request(buf, 10, &q) == -ENOSPC);
	CHECK(proto_format_request(buf, 0, &q) == -ENOSPC);
}

static int reply(const char *s)
{
	memset(&e, 0, sizeof(e));
	return proto_parse_reply(s, strlen(s), &r, &e);
}

TEST(reply_ok_err)
{
	CHECK(reply("ok\n") == 0 && r.exit == 0 && r.err == 0 && !r.has_op);
	CHECK(reply("err 8 3 pid 42 is gone: nothing to suspend\n") == 0);
	CHECK(r.exit == 8 && r.err == 3);
	CHECK_STR(r.msg, "pid 42 is gone: nothing to suspend");
	CHECK(reply("err 0 0 zero exit\n") == -1);
	CHECK(e.exit == GP_EXIT_DAEMON && e.err == EPROTO);
	CHECK(reply("err 256 0 big\n") == -1);
	CHECK(reply("err 2 22\n") == -1);
	CHECK(reply("err 2 22 \n") == -1);
	CHECK(reply("err 2 4096 x\n") == -1);
	CHECK(reply("ok") == -1);		/* unterminated */
	CHECK(reply("") == -1);			/* no final line */
	CHECK(reply("ok\nok\n") == -1);		/* trailing bytes */
	CHECK(reply("OK\n") == -1);
	CHECK(reply("hello world\n") == -1);
}

TEST(reply_err_format)
{
	char buf[512];
	struct gp_err x = {};

	gp_err_set(&x, GP_EXIT_TARGET, ESRCH, "pid 5:\tgone\n");
	CHECK(proto_format_err(buf, sizeof(buf), &x) > 0);
	CHECK_STR(buf, "err 8 3 pid 5:?gone?\n");
	CHECK(reply(buf) == 0 && r.exit == 8 && r.err == ESRCH);
	memset(&x, 0, sizeof(x));
	CHECK(proto_format_err(buf, sizeof(buf), &x) > 0);
	CHECK_STR(buf, "err 1 0 error\n");	/* never "err 0" */
	memset(x.msg, 'm', sizeof(x.msg) - 1);	/* longest message */
	x.exit = 11;
	CHECK(proto_format_err(buf, sizeof(buf), &x) > 0);
	CHECK(reply(buf) == 0 && strlen(r.msg) == sizeof(x.msg) - 1);
	CHECK(proto_format_ok(buf, 3) == -ENOSPC);
	CHECK(proto_format_ok(buf, 4) == 3);
}

TEST(reply_status_round_trip)
{
	struct proto_daemon d = { 77, 2, 0, 10000000000ULL, true, 1, 17 };
	/* static: zeroed padding, for the memcmp below */
	static struct proto_session s1 = {
		42, DEBUG_RUNTIME_STATE_ENABLED, 3, 2, 1500, 8500, 3, "", "",
		"" };
	static struct proto_session s2 = {
		43, DEBUG_RUNTIME_STATE_DISABLED, 0, 0, 0, 0, 0, "", "", "" };
	char buf[4096];
	int n = 0;

	n += proto_format_daemon(buf + n, sizeof(buf) - n, &d);
	n += proto_format_session(buf + n, sizeof(buf) - n, &s1);
	n += proto_format_session(buf + n, sizeof(buf) - n, &s2);
	n += proto_format_ok(buf + n, sizeof(buf) - n);
	CHECK_STR(buf, "daemon pid=77 sessions=2 detaching=0 "
		  "max_hold_ns=10000000000 kfd=1.17\n"
		  "session pid=42 runtime=ENABLED queues=3 held=2 "
		  "held_ns=1500 left_ns=8500 resume_failures=3\n"
		  "session pid=43 runtime=DISABLED queues=0 held=0 "
		  "held_ns=0 left_ns=0 resume_failures=0\n"
		  "ok\n");
	CHECK(reply(buf) == 0 && r.exit == 0 && r.has_daemon);
	CHECK(r.daemon.pid == 77 && r.daemon.sessions == 2 &&
	      r.daemon.max_hold_ns == d.max_hold_ns && r.daemon.kfd &&
	      r.daemon.kfd_major == 1 && r.daemon.kfd_minor == 17);
	CHECK(r.n_sessions == 2);
	CHECK(!memcmp(&r.sessions[0], &s1, sizeof(s1)));
	CHECK(!memcmp(&r.sessions[1], &s2, sizeof(s2)));
	d.kfd = false;
	d.kfd_major = d.kfd_minor = 0;
	CHECK(proto_format_daemon(buf, sizeof(buf), &d) > 0);
	CHECK_STR(buf, "daemon pid=77 sessions=2 detaching=0 max_hold_ns=10000000000 "
		  "kfd=none\n");
	strcat(buf, "ok\n");
	CHECK(reply(buf) == 0 && !r.daemon.kfd);
}

TEST(reply_op_round_trip)
{
	struct session_qres qr[3] = {
		{ 1, KFD_Q_OK }, { 2, KFD_Q_INVALID }, { 3, KFD_Q_ERROR },
	};
	struct session_op op = {
		.call = KFD_CALL_SUSPEND, .pid = 42, .ret = 1, .ns = 12345,
		.snapshot_ns = 678, .n = 3, .n_ok = 1, .n_invalid = 1,
		.n_error = 1, .nq = 3, .q = qr,
	};
	struct gp_err x = {};
	char buf[4096];
	int n;

	n = proto_format_op(buf, sizeof(buf), &op);
	CHECK_STR(buf, "op call=suspend pid=42 ret=1 ns=12345 "
		  "snapshot_ns=678 requested=3 ok=1 invalid=1 error=1 "
		  "queues=1:ok,2:invalid,3:error\n");
	gp_err_set(&x, GP_EXIT_PARTIAL, 0, "2 of 3 queues not suspended");
	n += proto_format_err(buf + n, sizeof(buf) - n, &x);
	CHECK(reply(buf) == 0 && r.has_op && r.exit == GP_EXIT_PARTIAL);
	/* the same type comes back, q pointing into the reply */
	CHECK(r.op.call == KFD_CALL_SUSPEND && r.op.pid == 42 &&
	      r.op.ret == 1 && r.op.ns == 12345 && r.op.snapshot_ns == 678 &&
	      r.op.n == 3 && r.op.nq == 3 && r.op.n_ok == 1 &&
	      r.op.n_invalid == 1 && r.op.n_error == 1 && r.op.q == r.q &&
	      !memcmp(r.op.q, qr, sizeof(qr)));

	/* a failed ioctl: negative ret, no queues */
	op.call = KFD_CALL_RESUME;
	op.ret = -ESRCH;
	op.n = op.nq = op.n_ok = op.n_invalid = op.n_error = 0;
	n = proto_format_op(buf, sizeof(buf), &op);
	CHECK_STR(buf, "op call=resume pid=42 ret=-3 ns=12345 "
		  "snapshot_ns=678 requested=0 ok=0 invalid=0 error=0\n");
	strcat(buf, "ok\n");
	CHECK(reply(buf) == 0 && r.op.ret == -ESRCH && r.op.nq == 0);
}

TEST(reply_malformed)
{
	/* missing key, unknown key, repeated key, bad values */
	CHECK(reply("daemon pid=1 sessions=0 detaching=0 kfd=none\nok\n") ==
	      -1);
	CHECK(strstr(e.msg, "missing key 'max_hold_ns'"));
	CHECK(reply("daemon pid=1 sessions=0 detaching=0 max_hold_ns=1 "
		    "kfd=none x=1\nok\n") == -1);
	CHECK(reply("daemon pid=1 pid=1 sessions=0 detaching=0 max_hold_ns=1 "
		    "kfd=none\nok\n") == -1);
	CHECK(reply("daemon pid=1 sessions=0 detaching=0 max_hold_ns=1 "
		    "kfd=1\nok\n") == -1);
	CHECK(reply("session pid=1 runtime=WEIRD queues=0 held=0 held_ns=0 "
		    "left_ns=0 resume_failures=0\nok\n") == -1);
	CHECK(reply("session pid=0 runtime=ENABLED queues=0 held=0 "
		    "held_ns=0 left_ns=0 resume_failures=0\nok\n") == -1);
	/* queue list must match requested= */
	CHECK(reply("op call=suspend pid=1 ret=0 ns=1 snapshot_ns=1 "
		    "requested=2 ok=2 invalid=0 error=0 queues=1:ok\nok\n")
	      == -1);
	CHECK(reply("op call=suspend pid=1 ret=0 ns=1 snapshot_ns=1 "
		    "requested=1 ok=1 invalid=0 error=0 queues=1:fine\nok\n")
	      == -1);
	CHECK(reply("op call=pause pid=1 ret=0 ns=1 snapshot_ns=1 "
		    "requested=0 ok=0 invalid=0 error=0\nok\n") == -1);
	CHECK(reply("op call=resume pid=1 ret=-0 ns=1 snapshot_ns=1 "
		    "requested=0 ok=0 invalid=0 error=0\nok\n") == -1);
	/* two op lines, or a daemon line twice */
	CHECK(reply("op call=resume pid=1 ret=0 ns=1 snapshot_ns=1 "
		    "requested=0 ok=0 invalid=0 error=0\n"
		    "op call=resume pid=1 ret=0 ns=1 snapshot_ns=1 "
		    "requested=0 ok=0 invalid=0 error=0\nok\n") == -1);
	CHECK(reply("daemon pid=1 sessions=0 detaching=0 max_hold_ns=1 kfd=none\n"
		    "daemon pid=1 sessions=0 detaching=0 max_hold_ns=1 kfd=none\nok\n")
	      == -1);
	CHECK(reply("session  pid=1\nok\n") == -1);
	CHECK(reply("ok\r\n") == -1);
}

/* Another backend's session names it, its state and GPUs; KFD's line
 * stays as it was (above), and a kfd backend is not written out. */
TEST(reply_session_backend_round_trip)
{
	static struct proto_session s = {
		44, DEBUG_RUNTIME_STATE_ENABLED, 0, 1, 5, 6, 0, "cuda",
		"locking", "GPU-1a2b,GPU-3c4d" };
	static struct proto_session k = {
		45, DEBUG_RUNTIME_STATE_ENABLED, 0, 0, 0, 0, 0, "kfd", "running",
		"0x1" };
	char buf[1024];
	int n = 0;

	n += proto_format_session(buf + n, sizeof(buf) - n, &s);
	n += proto_format_session(buf + n, sizeof(buf) - n, &k);
	n += proto_format_ok(buf + n, sizeof(buf) - n);
	CHECK_STR(buf, "session pid=44 runtime=ENABLED queues=0 held=1 "
		  "held_ns=5 left_ns=6 resume_failures=0 backend=cuda "
		  "state=locking gpu=GPU-1a2b,GPU-3c4d\n"
		  "session pid=45 runtime=ENABLED queues=0 held=0 "
		  "held_ns=0 left_ns=0 resume_failures=0\n"
		  "ok\n");
	CHECK(reply(buf) == 0 && r.n_sessions == 2);
	CHECK(!memcmp(&r.sessions[0], &s, sizeof(s)));
	CHECK(r.sessions[1].backend[0] == 0);
	/* spaces or '=' in a name never split the line */
	strcpy(s.gpu, "GPU 1=2");
	CHECK(proto_format_session(buf, sizeof(buf), &s) > 0);
	CHECK(strstr(buf, " gpu=GPU_1_2\n") != NULL);
}

TEST(reply_many_sessions)
{
	static char buf[PROTO_MAX_SESSIONS * 128 + 256];
	struct proto_session s = { 1, 1, 0, 0, 0, 0, 0, "", "", "" };
	int n = 0, i;

	for (i = 0; i < PROTO_MAX_SESSIONS; i++) {
		s.pid = i + 1;
		n += proto_format_session(buf + n, sizeof(buf) - n, &s);
	}
	proto_format_ok(buf + n, sizeof(buf) - n);
	CHECK(reply(buf) == 0 && r.n_sessions == PROTO_MAX_SESSIONS &&
	      r.sessions[PROTO_MAX_SESSIONS - 1].pid == PROTO_MAX_SESSIONS);
	s.pid = 999;
	n += proto_format_session(buf + n, sizeof(buf) - n, &s);
	proto_format_ok(buf + n, sizeof(buf) - n);
	CHECK(reply(buf) == -1);	/* one session line too many */
}

TEST(reply_op_many_queues)
{
	static struct session_qres qr[PROTO_MAX_QUEUES + 10];
	static char buf[PROTO_MAX_LINE];
	struct session_op op = { .call = KFD_CALL_SUSPEND, .pid = 1,
				 .n = PROTO_MAX_QUEUES + 10,
				 .nq = PROTO_MAX_QUEUES + 10, .q = qr };
	int i, n;

	for (i = 0; i < PROTO_MAX_QUEUES + 10; i++) {
		qr[i].id = PROTO_QUEUE_ID_LIMIT - 1 - i;
		qr[i].status = KFD_Q_INVALID;
	}
	op.n_invalid = op.n;
	n = proto_format_op(buf, sizeof(buf), &op);
	CHECK(n > 0 && n < PROTO_MAX_LINE);	/* the worst case fits */
	proto_format_ok(buf + n, sizeof(buf) - n);
	CHECK(reply(buf) == 0 && r.op.nq == PROTO_MAX_QUEUES &&
	      r.op.n == PROTO_MAX_QUEUES + 10);
}

TEST(verb_names)
{
	CHECK_STR(proto_verb_name(PROTO_SUSPEND), "suspend");
	CHECK_STR(proto_verb_name(PROTO_STATUS), "status");
	CHECK(proto_verb_name(PROTO_NONE) == NULL);
	CHECK(proto_verb_name(99) == NULL);
}

int main(void)
{
	RUN(request_verbs);
	RUN(request_keys);
	RUN(request_malformed);
	RUN(request_nul_inside);
	RUN(request_limits);
	RUN(request_round_trip);
	RUN(reply_ok_err);
	RUN(reply_err_format);
	RUN(reply_status_round_trip);
	RUN(reply_op_round_trip);
	RUN(reply_malformed);
	RUN(reply_session_backend_round_trip);
	RUN(reply_many_sessions);
	RUN(reply_op_many_queues);
	RUN(verb_names);
	return tap_done();
}
