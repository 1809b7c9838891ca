// SPDX-License-Identifier: GPL-2.0
/*
 * L1, summary mode's lean pairs (bpf/lean.bpf.h): the same calls fed to
 * the full path (gp_begin/gp_finish, what event mode and -s -p run) and
 * to the lean one must leave the same histograms, phases, per-op counts
 * and queue rows; only the way there is cheaper.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "logic_harness.h"

static __u32 ids[] = { 9 };

/*
 * Simulated threads: 0 and 1 are tids 60 and 61; 2 is tid 60 plus the
 * number of rows, so it wants thread 0's row (lean.bpf.h).
 */
static __u32 tid_of(__u32 thread)
{
	__u32 rows = bpf_map__max_entries(skel->maps.gp_lean_rows);

	return 60 + (thread & 1) + (thread >= 2 ? rows : 0);
}

/* Both return where the slot was: ROW, STANDIN (for task storage). */
enum { ROW = 0, STANDIN = 3 };

static int lbegin(__u32 op, __u32 thread, __u64 ptr, __u32 arg, __u64 now)
{
	__u64 args[] = { op, tid_of(thread), thread, ptr, arg, now };

	return run(skel->progs.test_lean_begin, args, 6);
}

static int lfinish(__u32 op, __u32 thread, int ret, __u64 now, __u32 pid,
		   __u32 gpu, __u32 qid)
{
	__u64 args[] = { op, tid_of(thread), thread, (__u64)(__s64)ret, now,
			 pid, gpu, qid };

	return run(skel->progs.test_lean_finish, args, 8);
}

/* Who holds the row of a simulated thread (0: nobody). */
static __u64 row_owner(__u32 thread)
{
	__u32 k = tid_of(thread) %
		  bpf_map__max_entries(skel->maps.gp_lean_rows);
	__u64 v[256] = {};	/* struct gp_lean starts with its owner */
	size_t sz = bpf_map__value_size(skel->maps.gp_lean_rows);

	if (sz > sizeof(v) ||
	    bpf_map__lookup_elem(skel->maps.gp_lean_rows, &k, sizeof(k), v,
				 sz, 0))
		return ~0ull;
	return v[0];
}

/*
 * One workload, either way. Thread 0 (tid 60) is the debugger of pid 42,
 * thread 1 (tid 61) another task doing a hardware step meanwhile.
 */
static void workload(bool lean)
{
	__u64 a = (uintptr_t)ids;
	struct { __u32 op, thread; int ret; __u64 t0, t1; __u32 arg; } c[] = {
		{ GP_OP_CREATE, 0, -EINVAL, 0, 10, 0 },
		{ GP_OP_CREATE, 0, 0, 20, 50, 0 },
		{ GP_OP_DBG_TRAP, 0, 0, 100, 520, 6 },
		{ GP_OP_DBG_TRAP, 0, -EINVAL, 600, 603, 300 },
		{ GP_OP_DBG_TRAP, 0, 0, 700, 910, 7 },
		{ GP_OP_SUSPEND, 0, 0, 1000, 1050, 1 },	/* none done */
		{ GP_OP_DESTROY, 0, 0, 2000, 2100, 0 },
	};

	for (unsigned int i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		__u32 tid = 60 + c[i].thread;

		if (lean)
			lbegin(c[i].op, c[i].thread, c[i].op == GP_OP_SUSPEND ?
			       a : 0, c[i].arg, c[i].t0);
		else
			begin(c[i].op, tid, 42, 7, 9, c[i].arg, 0, 0, 4096,
			      42, c[i].t0);
		if (c[i].op == GP_OP_DBG_TRAP && c[i].arg != 300) {
			/* suspend (6) or resume (7) inside, with its steps */
			__u32 op = c[i].arg == 6 ? GP_OP_SUSPEND :
						   GP_OP_RESUME;
			__u32 st[][3] = {
				{ GP_OP_HW_UNMAP, 20, 60 },
				{ GP_OP_HW_FENCE, 70, 300 },
				{ GP_OP_MES_REMOVE, 310, 320 },
			};
			__u64 t = c[i].t0 + 10;

			if (lean) {
				lbegin(op, 0, a, 1, t);
				/* thread 1's unmap spans all of it */
				lbegin(GP_OP_HW_UNMAP, 1, 0, 0, t);
			} else {
				begin(op, 60, 42, 0, 0, 1, 0, 0, 0, 42, t);
				begin(GP_OP_HW_UNMAP, 61, 61, 0, 0, 0, 0, 0,
				      0, 0, t);
			}
			for (int s = 0; s < 3; s++) {
				if (op == GP_OP_RESUME && s != 1)
					continue;
				if (lean) {
					lbegin(st[s][0], 0, 0, 0, t + st[s][1]);
					lfinish(st[s][0], 0, 0, t + st[s][2],
						0, 0, 0);
				} else {
					begin(st[s][0], 60, 60, 0, 0, 0, 0, 0,
					      0, 0, t + st[s][1]);
					finish(st[s][0], 60, 0, t + st[s][2],
					       0, 0, 0, 0);
				}
			}
			if (lean) {
				lfinish(op, 0, 1, t + 400, 42, 0, 0);
				lfinish(GP_OP_HW_UNMAP, 1, 0, t + 450, 0, 0,
					0);
			} else {
				finish(op, 60, 1, t + 400, a, 0, 0, 0);
				finish(GP_OP_HW_UNMAP, 61, 0, t + 450, 0, 0,
				       0, 0);
			}
		}
		if (lean)
			lfinish(c[i].op, c[i].thread, c[i].ret, c[i].t1, 42, 7,
				9);
		else
			finish(c[i].op, tid, c[i].ret, c[i].t1,
			       c[i].op == GP_OP_SUSPEND ? a : 9, 0, 0, 0);
		if (c[i].op == GP_OP_DBG_TRAP && c[i].arg == 7) {
			struct gp_queue_val v;

			/* before the destroy: suspended once, resumed once */
			CHECK(row(42, 7, 9, &v) && v.suspends == 1 &&
			      v.resumes == 1 && v.state == GP_QS_ACTIVE);
		}
	}
}

struct result {
	int n;
	struct gp_hist_key *keys;
	struct gp_hist *vals;
	struct gp_count counts[GP_OP_MAX];
	int rows;
};

static void collect(struct result *r)
{
	r->n = gp_hists_read(bpf_map__fd(skel->maps.gp_hists), &r->keys,
			     &r->vals);
	for (__u32 op = 0; op < GP_OP_MAX; op++)
		r->counts[op] = count_of(skel, op);
	r->rows = count_keys(skel->maps.gp_queues, 16);
}

TEST(lean_pairs_leave_what_the_full_path_leaves)
{
	struct logic_test_bpf *save = skel;
	struct result r[2] = {};

	for (int lean = 0; lean < 2; lean++) {
		skel = open_cfg(false, 1, 0);
		CHECK(skel);
		if (!skel)
			break;
		workload(lean);
		collect(&r[lean]);
		CHECK(drain(skel) == 0);
		logic_test_bpf__destroy(skel);
	}
	skel = save;
	printf("# full: %d histograms, lean: %d\n", r[0].n, r[1].n);
	/* create, 3 dbg (6, 7, other), suspend + 3 phases, resume + fence,
	 * unmap, fence, mes_rm, destroy */
	CHECK(r[0].n == 14);
	CHECK(r[0].n == r[1].n);
	for (int i = 0; i < r[0].n && i < r[1].n; i++) {
		CHECK(!memcmp(&r[0].keys[i], &r[1].keys[i],
			      sizeof(r[0].keys[i])));
		if (memcmp(&r[0].vals[i], &r[1].vals[i], sizeof(r[0].vals[i])))
			printf("# op %u sub %u: full %llu/%llu ns, lean %llu/%llu\n",
			       r[0].keys[i].op, r[0].keys[i].sub,
			       (unsigned long long)r[0].vals[i].count,
			       (unsigned long long)r[0].vals[i].sum_ns,
			       (unsigned long long)r[1].vals[i].count,
			       (unsigned long long)r[1].vals[i].sum_ns);
		CHECK(!memcmp(&r[0].vals[i], &r[1].vals[i],
			      sizeof(r[0].vals[i])));
	}
	CHECK(!memcmp(r[0].counts, r[1].counts, sizeof(r[0].counts)));
	CHECK(r[1].counts[GP_OP_CREATE].count == 2 &&
	      r[1].counts[GP_OP_CREATE].failed == 1);
	CHECK(r[1].counts[GP_OP_HW_UNMAP].count == 3);
	/* the destroy took the row away, both ways */
	CHECK(r[0].rows == 0 && r[1].rows == 0);
	for (int i = 0; i < 2; i++) {
		free(r[i].keys);
		free(r[i].vals);
	}
}

TEST(lean_phases_go_to_the_enclosing_suspend_only)
{
	struct gp_hist h;

	fresh_cfg(0);
	lbegin(GP_OP_SUSPEND, 0, 0, 0, 100);
	lbegin(GP_OP_HW_FENCE, 0, 0, 0, 200);
	CHECK(lfinish(GP_OP_HW_FENCE, 0, 0, 1200, 0, 0, 0) == 0);
	/* another thread's fence is not this suspend's */
	lbegin(GP_OP_HW_FENCE, 1, 0, 0, 200);
	lfinish(GP_OP_HW_FENCE, 1, 0, 9200, 0, 0, 0);
	CHECK(lfinish(GP_OP_SUSPEND, 0, 0, 2100, 0, 0, 0) == 0);
	CHECK(hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_FENCE), &h) &&
	      h.count == 1 && h.sum_ns == 1000);
	CHECK(hist(skel, GP_OP_SUSPEND, 0, &h) && h.sum_ns == 2000);
	CHECK(hist(skel, GP_OP_HW_FENCE, 0, &h) && h.count == 2);
	/* a fence after the suspend ended is charged to nothing */
	lbegin(GP_OP_HW_FENCE, 0, 0, 0, 3000);
	lfinish(GP_OP_HW_FENCE, 0, 0, 3500, 0, 0, 0);
	CHECK(hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_FENCE), &h) &&
	      h.count == 1);
	/* a return without its entry (tracing began mid-call) is skipped */
	CHECK(lfinish(GP_OP_CREATE, 0, 0, 4000, 0, 0, 0) == 2);
	CHECK(count_of(skel, GP_OP_CREATE).count == 0);
}

/*
 * A row belongs to one thread while any call of it is pending there.
 * Another thread that wants it meanwhile goes to task storage (here its
 * stand-in), and nothing is lost or charged to the wrong call.
 */
TEST(lean_row_taken_falls_back_and_loses_nothing)
{
	struct gp_hist h;

	fresh_cfg(0);
	CHECK(row_owner(0) == 0);
	CHECK(lbegin(GP_OP_DBG_TRAP, 0, 0, 6, 100) == ROW);
	CHECK(row_owner(0) == tid_of(0) && row_owner(2) == tid_of(0));
	/* thread 2 wants the same row: task storage */
	CHECK(lbegin(GP_OP_SUSPEND, 2, 0, 0, 110) == STANDIN);
	/* thread 0's own nested suspend stays in its row */
	CHECK(lbegin(GP_OP_SUSPEND, 0, 0, 0, 120) == ROW);
	CHECK(lfinish(GP_OP_SUSPEND, 0, 0, 170, 0, 0, 0) == ROW);
	CHECK(row_owner(0) == tid_of(0));	/* the dbg call is pending */
	CHECK(lfinish(GP_OP_DBG_TRAP, 0, 0, 200, 0, 0, 0) == ROW);
	CHECK(row_owner(0) == 0);		/* nothing pending: free */
	/*
	 * The row is free, but thread 2's suspend is in task storage: its
	 * fence must go there too, or the phase is lost.
	 */
	CHECK(lbegin(GP_OP_HW_FENCE, 2, 0, 0, 300) == STANDIN);
	CHECK(lfinish(GP_OP_HW_FENCE, 2, 0, 700, 0, 0, 0) == STANDIN);
	CHECK(row_owner(2) == 0);
	CHECK(lfinish(GP_OP_SUSPEND, 2, 0, 1110, 0, 0, 0) == STANDIN);
	CHECK(hist(skel, GP_OP_SUSPEND, 0, &h) && h.count == 2 &&
	      h.sum_ns == 50 + 1000);
	CHECK(hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_FENCE), &h) &&
	      h.count == 1 && h.sum_ns == 400);
	CHECK(count_of(skel, GP_OP_DBG_TRAP).count == 1);
	/* now thread 2 gets the row */
	CHECK(lbegin(GP_OP_CREATE, 2, 0, 0, 2000) == ROW);
	CHECK(row_owner(0) == tid_of(2));
	CHECK(lfinish(GP_OP_CREATE, 2, -EINVAL, 2010, 0, 0, 0) == ROW);
	CHECK(count_of(skel, GP_OP_CREATE).failed == 1);
	CHECK(row_owner(0) == 0);
}

/* A return that never came (a missed kretprobe) frees the row at exit. */
TEST(lean_row_freed_at_thread_exit)
{
	__u64 args[] = { tid_of(0), tid_of(0), 5000 };

	fresh_cfg(0);
	CHECK(lbegin(GP_OP_CREATE, 0, 0, 0, 100) == ROW);
	/* the same thread again: its stale slot is reused, the row kept */
	CHECK(lbegin(GP_OP_CREATE, 0, 0, 0, 200) == ROW);
	CHECK(lfinish(GP_OP_CREATE, 0, -EINVAL, 250, 0, 0, 0) == ROW);
	CHECK(row_owner(0) == 0);
	CHECK(lbegin(GP_OP_DESTROY, 0, 0, 0, 300) == ROW);
	CHECK(lbegin(GP_OP_CREATE, 2, 0, 0, 310) == STANDIN);
	/* another thread's exit leaves the row alone */
	args[0] = args[1] = tid_of(1);
	CHECK(run(skel->progs.test_logic_exit, args, 3) == 0);
	CHECK(row_owner(0) == tid_of(0));
	args[0] = args[1] = tid_of(0);
	CHECK(run(skel->progs.test_logic_exit, args, 3) == 0);
	CHECK(row_owner(0) == 0);
	CHECK(lbegin(GP_OP_DESTROY, 2, 0, 0, 400) == ROW);
	/* the exited thread's destroy is not counted by a late return */
	CHECK(lfinish(GP_OP_DESTROY, 0, 0, 450, 0, 0, 0) == 2);
	CHECK(count_of(skel, GP_OP_DESTROY).count == 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP L1 BPF tests need root\n");
		return 0;
	}
	RUN(lean_pairs_leave_what_the_full_path_leaves);
	RUN(lean_phases_go_to_the_enclosing_suspend_only);
	RUN(lean_row_taken_falls_back_and_loses_nothing);
	RUN(lean_row_freed_at_thread_exit);
	if (skel)
		logic_test_bpf__destroy(skel);
	return tap_done();
}
