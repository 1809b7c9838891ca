// SPDX-License-Identifier: GPL-2.0
/*
 * The queue feed (user/detect/qfeed.c): what --detect queues puts into the
 * watcher without `watch` requests.
 *  - L1 (host-only behaviour, stand-in): the arbiter's feeding function
 *    gp_qfeed_event (the daemon's arbq_event calls it for every tracer
 *    event) gets synthetic gp_event records, built as bpf/gpreempt.bpf.c
 *    fills them for CREATE_QUEUE / DESTROY_QUEUE / exit, for the queues of
 *    "aql-standin" (standin.h, a real child process with amd_queue_t
 *    counters at ROCr's offsets); then the watcher follows that child's
 *    counters with real process_vm_readv. Only successful creates of an
 *    online process's AQL queue are watched.
 *  - L0: seeding of queues created before the daemon on the debugfs MQD
 *    fixtures (tests/unit/fixtures/snapshot_root): the unambiguous queue
 *    gets the dump's wptr poll / rptr report addresses, the others a
 *    reason; a tracer's capture wins over the dump.
 * The daemon's side of the feed is in test_policy_qdaemon.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "arbiter.h"
#include "mqd.h"
#include "qfeed.h"
#include "queues.h"
#include "standin.h"
#include "util.h"

static struct gp_qwatch w;
static struct gp_qfeed f;
static int busy_edges[2];	/* idle, busy edges seen */

static bool is_online(void *ctx, int pid)
{
	return pid == child;
}

static void on_busy(void *ctx, int pid, bool busy)
{
	busy_edges[busy]++;
}

static const struct gp_qw_cb cb = { on_busy, NULL, NULL, NULL };

/* A CREATE_QUEUE event as the BPF return hook completes it. */
static struct gp_event create_ev(int pid, uint32_t qid, int ret, uint32_t type,
				 int q)
{
	struct gp_event e = { .op = GP_OP_CREATE, .pid = pid, .tid = pid,
			      .ret = ret, .gpu_id = 0x4a3c };

	/* A failed create never had its queue_id written (BPF reads it only
	 * on ret == 0). */
	e.queue_id = ret ? 0 : qid;
	e.queue.type = type;
	e.queue.wptr_addr = qaddr[q] + GP_AMDQ_WRITE_DISPATCH_ID;
	e.queue.rptr_addr = qaddr[q] + GP_AMDQ_READ_DISPATCH_ID;
	return e;
}

static struct gp_event other_ev(uint32_t op, int pid, uint32_t qid, int ret)
{
	return (struct gp_event){ .op = op, .pid = pid, .tid = pid,
				  .queue_id = qid, .ret = ret };
}

static bool watched(int pid, uint32_t qid)
{
	return gp_qfeed_watched(&f, pid, qid);
}

TEST(only_successful_online_aql_creates_are_watched)
{
	struct gp_event e;
	bool ended;

	e = create_ev(child, 0, -EINVAL, GP_QF_IOC_AQL, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_CREATE_FAILED);
	CHECK(!gp_qwatch_find(&w, child));
	e = create_ev(getpid(), 5, 0, GP_QF_IOC_AQL, 0);	/* not online */
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_OFFLINE);
	CHECK(!gp_qwatch_find(&w, getpid()));
	e = create_ev(child, 7, 0, 1 /* SDMA */, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_SKIPPED);
	CHECK(!watched(child, 7));
	CHECK(gp_qfeed_why(&f, child, 7) == GP_QF_NOT_AQL);
	e = create_ev(child, 1, 0, GP_QF_IOC_AQL, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_ADDED && !ended);
	CHECK(watched(child, 1));
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_EXISTS);
	e = create_ev(child, 2, 0, GP_QF_IOC_AQL, 1);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_ADDED);
	CHECK(gp_qwatch_find(&w, child) && gp_qwatch_find(&w, child)->nq == 2);
	CHECK(f.st.creates == 6 && f.st.added == 2 &&
	      f.st.create_failed == 1 && f.st.offline == 1 &&
	      f.st.skipped == 1);
}

TEST(watcher_follows_the_standin_counters)
{
	busy_edges[0] = busy_edges[1] = 0;
	CHECK(gp_qwatch_poll(&w, &cb) == 0);
	tell('W', 1, 3);			/* queue 2: 3 packets */
	CHECK(gp_qwatch_poll(&w, &cb) == 1 && busy_edges[1] == 1);
	tell('R', 1, 3);			/* the CP caught up */
	CHECK(gp_qwatch_poll(&w, &cb) == 0 && busy_edges[0] == 1);
	tell('W', 0, 2);			/* queue 1 */
	CHECK(gp_qwatch_poll(&w, &cb) == 1 && busy_edges[1] == 2);
}

TEST(destroy_and_exit_remove)
{
	struct gp_event e;
	bool ended;

	/* A failed destroy leaves the queue. */
	e = other_ev(GP_OP_DESTROY, child, 2, -EINVAL);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_IGNORED);
	CHECK(watched(child, 2));
	e = other_ev(GP_OP_DESTROY, child, 2, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_REMOVED && !ended);
	CHECK(!watched(child, 2) && watched(child, 1));
	e = other_ev(GP_OP_DESTROY, child, 9, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_UNKNOWN);
	/* queue 1 is busy (write 2 > read 0): its destroy leaves the
	 * process with nothing watched, so its busy must end. */
	e = other_ev(GP_OP_DESTROY, child, 1, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_REMOVED && ended);
	CHECK(!gp_qwatch_find(&w, child));
	/* exit: every queue of the process at once */
	e = create_ev(child, 3, 0, GP_QF_IOC_AQL, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_ADDED);
	e = create_ev(child, 4, 0, GP_QF_IOC_AQL, 1);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_ADDED);
	CHECK(gp_qwatch_poll(&w, &cb) == 1);	/* queue 3: 2 > 0 */
	e = other_ev(GP_OP_EXIT, child, 0, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_REMOVED && ended);
	CHECK(!gp_qwatch_find(&w, child));
	CHECK(gp_qfeed_why(&f, child, 7) == GP_QF_WHY_MAX); /* forgotten */
	e = other_ev(GP_OP_SUSPEND, child, 0, 0);
	CHECK(gp_qfeed_event(&f, &e, &ended) == GP_QF_IGNORED);
}

/* ---- seeding on the MQD fixtures ---- */

static char fx[PATH_MAX];

static int find_fixtures(void)
{
	const char *rel = "tests/unit/fixtures/snapshot_root";
	char exe[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;

	if (!stat(rel, &st)) {
		snprintf(fx, sizeof(fx), "%s", rel);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = 0;
	while ((slash = strrchr(exe, '/'))) {
		*slash = 0;
		if (snprintf(fx, sizeof(fx), "%s/%s", exe, rel) <
		    (int)sizeof(fx) && !stat(fx, &st))
			return 0;
	}
	return -1;
}

struct sysqs {
	struct gp_qf_sysq q[8];
	size_t n;
};

static int sysq_cb(const struct gp_queue_row *r, void *ctx)
{
	struct sysqs *s = ctx;

	if (s->n < 8)
		s->q[s->n++] = (struct gp_qf_sysq){ r->k.queue_id, r->k.gpu_id,
						    r->v.type };
	return 0;
}

static struct sysqs sysqs_of(int pid)
{
	char root[PATH_MAX + 32];
	struct sysqs s = {};
	struct gp_scan_opts so = { .root = root, .pids = &pid, .npids = 1 };

	snprintf(root, sizeof(root), "%s/sys/class/kfd/kfd/proc", fx);
	gp_queues_scan(&so, sysq_cb, &s);
	return s;
}

/* A tracer's capture that knows only pid 4300's queue 1. */
static bool cap_4300_q1(void *ctx, int pid, uint32_t gpu, uint32_t qid,
			uint64_t *wp, uint64_t *rp)
{
	if (pid != 4300 || qid != 1)
		return false;
	*wp = 0x7000000038ull;
	*rp = 0x7000000080ull;
	return true;
}

static bool cap_none(void *ctx, int pid, uint32_t gpu, uint32_t qid,
		     uint64_t *wp, uint64_t *rp)
{
	return false;
}

TEST(seed_from_mqd_fixtures)
{
	char m[PATH_MAX + 64], h[PATH_MAX + 64], topo[PATH_MAX + 64];
	char proc[PATH_MAX + 64];
	struct gp_mqd_paths p = { m, h, topo, proc };
	struct gp_mqd_addr *a = NULL;
	struct gp_qf_mqd mq = {};
	gp_qf_capture_fn none[1] = { cap_none }, one[1] = { cap_4300_q1 };
	void *ctx[1] = { NULL };
	struct sysqs s;
	const struct gp_qw_proc *wp;
	int n, und = 0;

	snprintf(m, sizeof(m), "%s/sys/kernel/debug/kfd/mqds", fx);
	snprintf(h, sizeof(h), "%s/sys/kernel/debug/kfd/hqds", fx);
	snprintf(topo, sizeof(topo), "%s/sys/class/kfd/kfd/topology", fx);
	snprintf(proc, sizeof(proc), "%s/sys/class/kfd/kfd/proc", fx);
	n = gp_mqd_read_addrs(&p, &a, &und);
	CHECK(n == 3);
	if (n < 0)
		return;
	mq.a = a;
	mq.n = n;
	mq.undecoded = und;
	gp_qwatch_init(&w);
	gp_qfeed_init(&f, &w, is_online, NULL);

	/* 4242: queue 0 compute (unambiguous in the dump), 1 SDMA */
	s = sysqs_of(4242);
	CHECK(s.n == 2);
	CHECK(gp_qfeed_seed(&f, 4242, s.q, s.n, none, ctx, 1, &mq) == 1);
	wp = gp_qwatch_find(&w, 4242);
	CHECK(wp && wp->nq == 1 && wp->q[0].queue_id == 0 &&
	      wp->q[0].wptr_addr == 0x7f1234560038ull &&
	      wp->q[0].rptr_addr == 0x7f1234560080ull);
	CHECK(gp_qfeed_why(&f, 4242, 0) == GP_QF_WHY_MAX);
	CHECK(gp_qfeed_why(&f, 4242, 1) == GP_QF_NOT_AQL);
	CHECK(f.st.seeded_mqd == 1);

	/* 4300: two compute queues, the dump cannot say which is which */
	s = sysqs_of(4300);
	CHECK(s.n == 2);
	CHECK(gp_qfeed_seed(&f, 4300, s.q, s.n, none, ctx, 1, &mq) == 0);
	CHECK(!gp_qwatch_find(&w, 4300));
	CHECK(gp_qfeed_why(&f, 4300, 0) == GP_QF_AMBIGUOUS);
	CHECK(gp_qfeed_why(&f, 4300, 1) == GP_QF_AMBIGUOUS);
	CHECK_STR(gp_qf_why_name(GP_QF_AMBIGUOUS), "before-daemon-ambiguous");

	/* ... a tracer that saw queue 1 created has its addresses */
	CHECK(gp_qfeed_seed(&f, 4300, s.q, s.n, one, ctx, 1, &mq) == 1);
	CHECK(watched(4300, 1) && !watched(4300, 0));
	CHECK(gp_qfeed_why(&f, 4300, 1) == GP_QF_WHY_MAX);
	CHECK(gp_qfeed_why(&f, 4300, 0) == GP_QF_AMBIGUOUS);

	/* no debugfs / not readable */
	gp_qwatch_init(&w);
	gp_qfeed_init(&f, &w, is_online, NULL);
	s = sysqs_of(4242);
	mq = (struct gp_qf_mqd){ .err = -ENOENT };
	CHECK(gp_qfeed_seed(&f, 4242, s.q, s.n, none, ctx, 1, &mq) == 0);
	CHECK(gp_qfeed_why(&f, 4242, 0) == GP_QF_NO_DEBUGFS);
	CHECK(strstr(gp_qf_why_text(GP_QF_NO_DEBUGFS),
		     "created before the daemon and no debugfs") != NULL);
	mq.err = -EACCES;
	CHECK(gp_qfeed_seed(&f, 4242, s.q, s.n, none, ctx, 1, &mq) == 0);
	CHECK(gp_qfeed_why(&f, 4242, 0) == GP_QF_DEBUGFS_DENIED);
	free(a);
}

int main(void)
{
	if (standin_start() || find_fixtures()) {
		printf("not ok 1 - set-up (aql-standin, fixtures)\n");
		return 1;
	}
	gp_qwatch_init(&w);
	gp_qfeed_init(&f, &w, is_online, NULL);
	RUN(only_successful_online_aql_creates_are_watched);
	RUN(watcher_follows_the_standin_counters);
	RUN(destroy_and_exit_remove);
	RUN(seed_from_mqd_fixtures);
	tell('X', 0, 0);
	waitpid(child, NULL, 0);
	return tap_done();
}
