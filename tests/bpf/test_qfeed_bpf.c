// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the BPF capture the daemon's --detect queues rests on, end to end
 * on the host: bpf/logic.bpf.h under BPF_PROG_TEST_RUN with the emit mask
 * the daemon's embedded tracer uses (GP_EMIT_IMMEDIATE), the ring's
 * records handed to the arbiter's feeding function (gp_qfeed_event, as
 * arbq_event does). A successful create of an online process's AQL queue
 * is watched with the CREATE_QUEUE arguments' pointer addresses; a failed
 * one, or one of a process that is not online, is not; destroy removes.
 * Needs root; prints TAP.
 */
#include "logic_harness.h"
#include "qfeed.h"

static bool online_42(void *ctx, int pid)
{
	return pid == 42;
}

/* CREATE_QUEUE entry + return as the kprobe/fexit pair records it. */
static void create(__u32 tid, __u32 pid, __u32 qid, int ret, __u64 ts)
{
	skel->bss->test_addrs[0] = 0x7f0000100000ULL;	/* ring */
	skel->bss->test_addrs[1] = 0x7f0000200038ULL + qid * 0x1000;
	skel->bss->test_addrs[2] = 0x7f0000200080ULL + qid * 0x1000;
	begin(GP_OP_CREATE, tid, pid, 0x1234, 0, GP_QF_IOC_AQL, 7, 100, 4096,
	      0, ts);
	finish(GP_OP_CREATE, tid, ret, ts + 100, ret ? 0 : qid, 0, 0, 0);
}

TEST(bpf_events_feed_the_watcher)
{
	struct gp_qwatch w;
	struct gp_qfeed f;
	const struct gp_qw_proc *p;
	enum gp_qf_result r[8];
	bool ended;
	int i, n;

	skel = open_cfg(false, 1, GP_IMMEDIATE_OPS);
	if (!skel) {
		printf("Bail out! cannot load logic_test.bpf.o (root? BPF?)\n");
		exit(1);
	}
	gp_qwatch_init(&w);
	gp_qfeed_init(&f, &w, online_42, NULL);
	create(100, 42, 3, 0, 1000);		/* online, succeeds */
	create(100, 42, 4, -EINVAL, 2000);	/* online, fails */
	create(200, 43, 5, 0, 3000);		/* not online */
	begin(GP_OP_DESTROY, 100, 42, 0, 3, 0, 0, 0, 0, 0, 4000);
	finish(GP_OP_DESTROY, 100, 0, 4100, 0, 0, 0, 0);
	n = drain(skel);
	CHECK(n == 4);
	for (i = 0; i < n && i < 8; i++) {
		r[i] = gp_qfeed_event(&f, &evs[i], &ended);
		if (i == 0) {
			/* after the create, before the destroy */
			p = gp_qwatch_find(&w, 42);
			CHECK(p && p->nq == 1 && p->q[0].queue_id == 3 &&
			      p->q[0].wptr_addr == 0x7f0000203038ULL &&
			      p->q[0].rptr_addr == 0x7f0000203080ULL);
		}
	}
	if (n == 4) {
		CHECK(evs[0].op == GP_OP_CREATE && r[0] == GP_QF_ADDED);
		CHECK(evs[1].ret == -EINVAL && r[1] == GP_QF_CREATE_FAILED);
		CHECK(evs[2].pid == 43 && r[2] == GP_QF_OFFLINE);
		CHECK(evs[3].op == GP_OP_DESTROY && r[3] == GP_QF_REMOVED);
	}
	CHECK(!gp_qwatch_find(&w, 42) && !gp_qwatch_find(&w, 43));
	CHECK(f.st.added == 1 && f.st.create_failed == 1);
	logic_test_bpf__destroy(skel);
	skel = NULL;
}

int main(void)
{
	RUN(bpf_events_feed_the_watcher);
	return tap_done();
}
