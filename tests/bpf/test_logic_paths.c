// SPDX-License-Identifier: GPL-2.0
/*
 * L1, the paths added for the arbiter and summary mode (bpf/logic.bpf.h
 * under BPF_PROG_TEST_RUN): queue pointer addresses, the (pid, queue id)
 * index, every queue id of a suspend, wakeups of the immediate path, the
 * emit mask (summary mode), per-op counts, the phases of a suspend, and
 * bounded histogram keys. Needs root; prints TAP.
 */
#include "logic_harness.h"

TEST(create_captures_the_queue_pointer_addresses)
{
	struct gp_qidx_key ik = { .pid = 42, .queue_id = 3 };
	struct gp_queue_val v;
	__u32 gpu = 0;

	fresh();
	skel->bss->test_addrs[0] = 0x7f0000100000ULL;	/* ring */
	skel->bss->test_addrs[1] = 0x7f0000200038ULL;	/* write_dispatch_id */
	skel->bss->test_addrs[2] = 0x7f0000200080ULL;	/* read_dispatch_id */
	/* KFD order: the ioctl starts, kfd_procfs_add_queue, it returns */
	begin(GP_OP_CREATE, 100, 42, 0x1234, 0, 2, 7, 100, 4096, 0, 1000);
	begin(GP_OP_QUEUE_ADD, 100, 42, 0x1234, 3, 0, 7, 100, 4096, 0,
	      1500);
	CHECK(row(42, 0x1234, 3, &v) && v.ioc_type == GP_IOC_QT_UNKNOWN);
	finish(GP_OP_CREATE, 100, 0, 2000, 3, 0, 0, 0);
	CHECK(row(42, 0x1234, 3, &v));
	CHECK(v.ring_base == 0x7f0000100000ULL);
	CHECK(v.wptr_addr == 0x7f0000200038ULL);
	CHECK(v.rptr_addr == 0x7f0000200080ULL);
	CHECK(v.ioc_type == 2 && v.type == 0 && v.ring_size == 4096);
	CHECK(!bpf_map_lookup_elem(bpf_map__fd(skel->maps.gp_qidx), &ik,
				   &gpu) && gpu == 0x1234);
	CHECK(drain(skel) == 2);
	CHECK(evs[1].op == GP_OP_CREATE);
	CHECK(evs[1].queue.wptr_addr == 0x7f0000200038ULL);
	CHECK(evs[1].queue.rptr_addr == 0x7f0000200080ULL);
	CHECK(evs[1].queue.ring_base == 0x7f0000100000ULL);
	/* destroy: row and index entry go */
	begin(GP_OP_DESTROY, 100, 42, 0, 3, 0, 0, 0, 0, 0, 3000);
	finish(GP_OP_DESTROY, 100, 0, 3100, 0, 0, 0, 0);
	CHECK(!row(42, 0x1234, 3, &v));
	CHECK(count_keys(skel->maps.gp_qidx, sizeof(ik)) == 0);
}

TEST(suspend_applies_every_queue_id_up_to_kfd_limit)
{
	enum { N = 100 };
	__u32 ids[N];
	struct gp_queue_val v;
	int suspended = 0, resumed = 0;

	fresh();
	for (int i = 0; i < N; i++) {
		seed(50, i % 2 ? 8 : 7, i);
		ids[i] = i;
	}
	seed(51, 7, 5);	/* another process, same id: untouched */
	begin(GP_OP_SUSPEND, 60, 50, 0, 0, N, 0, 0, 0, 50, 0);
	finish(GP_OP_SUSPEND, 60, N, 10, (uintptr_t)ids, 0, 0, 0);
	for (int i = 0; i < N; i++)
		suspended += row(50, i % 2 ? 8 : 7, i, &v) &&
			     v.state == GP_QS_SUSPENDED && v.suspends == 1;
	printf("# %d of %d rows suspended\n", suspended, N);
	CHECK(suspended == N);
	CHECK(row(51, 7, 5, &v) && v.state == GP_QS_ACTIVE);
	begin(GP_OP_RESUME, 60, 50, 0, 0, N, 0, 0, 0, 50, 20);
	finish(GP_OP_RESUME, 60, N, 30, (uintptr_t)ids, 0, 0, 0);
	for (int i = 0; i < N; i++)
		resumed += row(50, i % 2 ? 8 : 7, i, &v) &&
			   v.state == GP_QS_ACTIVE && v.resumes == 1;
	CHECK(resumed == N);
}

TEST(exit_drops_the_index_with_the_rows)
{
	__u64 leader[] = { 70, 70, 500 };

	fresh();
	seed(70, 7, 1);
	seed(70, 8, 2);
	seed(71, 7, 1);
	CHECK(count_keys(skel->maps.gp_qidx, 8) == 3);
	CHECK(run(skel->progs.test_logic_exit, leader, 3) == 0);
	CHECK(count_keys(skel->maps.gp_qidx, 8) == 1);
	CHECK(count_keys(skel->maps.gp_queues, 16) == 1);
}


TEST(immediate_ops_wake_the_reader_bulk_ops_wait)
{
	struct ring_buffer *rb;

	fresh();
	rb = ring_buffer__new(bpf_map__fd(skel->maps.gp_events), on_event,
			      NULL, NULL);
	CHECK(rb);
	if (!rb)
		return;
	/* bulk: submitted without a wakeup, epoll sees nothing yet */
	one_event(GP_OP_HW_FENCE, 5);
	one_event(GP_OP_EVICT, 5);
	CHECK(ring_buffer__poll(rb, 0) == 0);
	CHECK(nseen == 0);
	/* a failed create stays batched */
	begin(GP_OP_CREATE, 5, 42, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 5, -EINVAL, 10, 0, 0, 0, 0);
	CHECK(ring_buffer__poll(rb, 0) == 0);
	CHECK(ring_buffer__consume(rb) == 3);
	nev = nseen = 0;
	/* a bulk event, then a create: it wakes, the reader gets both */
	one_event(GP_OP_HW_FENCE, 5);
	one_event(GP_OP_CREATE, 5);
	CHECK(ring_buffer__poll(rb, 0) == 2);
	CHECK(nseen == 2 && evs[1].op == GP_OP_CREATE);
	CHECK(ring_buffer__poll(rb, 0) == 0);
	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		int before = nseen, woke;

		if (op == GP_OP_EXIT || op == GP_OP_QUEUE_DEL)
			continue;	/* exit: test_logic_exit; del: below */
		one_event(op, 6);
		woke = ring_buffer__poll(rb, 0) > 0;
		if (woke != !!(GP_IMMEDIATE_OPS & GP_OPMASK(op)))
			printf("# op %u: woke %d\n", op, woke);
		CHECK(woke == !!(GP_IMMEDIATE_OPS & GP_OPMASK(op)));
		if (!woke)
			ring_buffer__consume(rb);
		CHECK(nseen == before + 1);
		/*
		 * libbpf's epoll is level-triggered: after a wakeup the ring
		 * stays on the ready list until one poll finds it empty.
		 */
		CHECK(ring_buffer__poll(rb, 0) == 0);
	}
	ring_buffer__free(rb);
}

TEST(emit_mask_keeps_maps_and_histograms_sends_only_chosen_ops)
{
	struct logic_test_bpf *save = skel;
	struct gp_queue_val v;
	struct gp_hist h;

	for (int mode = 0; mode < 2; mode++) {
		__u32 mask = mode ? 0 : GP_IMMEDIATE_OPS;

		skel = open_cfg(false, 1, mask);
		CHECK(skel);
		if (!skel)
			break;
		nev = nseen = 0;
		one_event(GP_OP_HW_FENCE, 5);
		one_event(GP_OP_CREATE, 5);
		one_event(GP_OP_DBG_TRAP, 5);
		CHECK(drain(skel) == (mode ? 0 : 1));
		if (!mode)
			CHECK(evs[0].op == GP_OP_CREATE);
		/* summary mode (0): the kernel side still does everything */
		CHECK(row(42, 7, 9, &v));
		CHECK(hist(skel, GP_OP_HW_FENCE, 0, &h) && h.count == 1);
		CHECK(hist(skel, GP_OP_CREATE, 0, &h) && h.count == 1);
		logic_test_bpf__destroy(skel);
	}
	skel = save;
}

TEST(phases_of_a_suspend_are_attributed_by_thread)
{
	__u32 ids[] = { 1 };
	struct gp_hist h;
	int s = -1;

	fresh();
	seed(50, 7, 1);
	begin(GP_OP_SUSPEND, 60, 50, 0, 0, 1, 0, 0, 0, 50, 0);
	/* what suspend_queues does in the same thread: unmap, fence, ... */
	begin(GP_OP_HW_UNMAP, 60, 60, 0, 0, 0, 0, 0, 0, 0, 100);
	finish(GP_OP_HW_UNMAP, 60, 0, 400, 0, 0, 0, 0);
	begin(GP_OP_HW_FENCE, 60, 60, 0, 0, 0, 0, 0, 0, 0, 400);
	finish(GP_OP_HW_FENCE, 60, 0, 1400, 0, 0, 0, 0);
	begin(GP_OP_HW_UNMAP, 60, 60, 0, 0, 0, 0, 0, 0, 0, 1500);
	finish(GP_OP_HW_UNMAP, 60, 0, 1600, 0, 0, 0, 0);
	begin(GP_OP_MES_REMOVE, 60, 60, 0, 0, 0, 0, 0, 0, 0, 1700);
	finish(GP_OP_MES_REMOVE, 60, 0, 1750, 0, 0, 0, 0);
	/* another thread's unmap (an eviction) is not this suspend's */
	begin(GP_OP_HW_UNMAP, 61, 61, 0, 0, 0, 0, 0, 0, 0, 100);
	finish(GP_OP_HW_UNMAP, 61, 0, 5000, 0, 0, 0, 0);
	finish(GP_OP_SUSPEND, 60, 1, 2000, (uintptr_t)ids, 0, 0, 0);
	drain(skel);
	for (int i = 0; i < nev; i++)
		if (evs[i].op == GP_OP_SUSPEND)
			s = i;
	CHECK(s >= 0);
	if (s < 0)
		return;
	CHECK(evs[s].susp.phase_ns[GP_PHASE_UNMAP] == 400);
	CHECK(evs[s].susp.phase_ns[GP_PHASE_FENCE] == 1000);
	CHECK(evs[s].susp.phase_ns[GP_PHASE_MES_RM] == 50);
	CHECK(evs[s].susp.phase_ns[GP_PHASE_MES_ADD] == 0);
	CHECK(hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_UNMAP), &h) &&
	      h.count == 1 && h.sum_ns == 400);
	CHECK(hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_FENCE), &h) &&
	      h.count == 1 && h.sum_ns == 1000);
	CHECK(!hist(skel, GP_OP_SUSPEND, GP_PHASE_SUB(GP_PHASE_MES_ADD), &h));
	CHECK(hist(skel, GP_OP_SUSPEND, 0, &h) && h.count == 1 &&
	      h.sum_ns == 2000);
	/* the unmaps keep their own histogram, all three of them */
	CHECK(hist(skel, GP_OP_HW_UNMAP, 0, &h) && h.count == 3);
	/* a resume starts from zero */
	begin(GP_OP_RESUME, 60, 50, 0, 0, 1, 0, 0, 0, 50, 3000);
	begin(GP_OP_HW_FENCE, 60, 60, 0, 0, 0, 0, 0, 0, 0, 3100);
	finish(GP_OP_HW_FENCE, 60, 0, 3300, 0, 0, 0, 0);
	finish(GP_OP_RESUME, 60, 1, 3500, (uintptr_t)ids, 0, 0, 0);
	nev = 0;
	drain(skel);
	CHECK(nev >= 1 && evs[nev - 1].op == GP_OP_RESUME);
	CHECK(evs[nev - 1].susp.phase_ns[GP_PHASE_FENCE] == 200);
	CHECK(evs[nev - 1].susp.phase_ns[GP_PHASE_UNMAP] == 0);
}

/*
 * Pending pairs sit in a row held by their thread (rows.bpf.h); a thread
 * whose row another thread holds uses the hash, and nothing is lost or
 * charged to the wrong call. Exit gives a held row back.
 */
TEST(pending_row_taken_falls_back_to_the_hash)
{
	__u32 rows, t2;
	__u64 bye[3];
	int s = -1;

	fresh();
	rows = bpf_map__max_entries(skel->maps.gp_pend_rows);
	t2 = 60 + rows;		/* wants tid 60's row */
	begin(GP_OP_DBG_TRAP, 60, 60, 0, 0, 6, 0, 0, 0, 50, 0);
	begin(GP_OP_SUSPEND, t2, 50, 0, 0, 1, 0, 0, 0, 50, 10);
	CHECK(count_keys(skel->maps.gp_pending, 8) == 1);
	CHECK(pending_n(skel) == 2);
	CHECK(finish(GP_OP_DBG_TRAP, 60, 0, 20, 0, 0, 0, 0) == 0);
	CHECK(pending_n(skel) == 1);
	/* the row is free, but t2's suspend is in the hash: so is its fence */
	begin(GP_OP_HW_FENCE, t2, t2, 0, 0, 0, 0, 0, 0, 0, 100);
	CHECK(count_keys(skel->maps.gp_pending, 8) == 2);
	CHECK(finish(GP_OP_HW_FENCE, t2, 0, 400, 0, 0, 0, 0) == 0);
	CHECK(finish(GP_OP_SUSPEND, t2, 0, 500, 0, 0, 0, 0) == 0);
	CHECK(pending_n(skel) == 0);
	drain(skel);
	for (int i = 0; i < nev; i++)
		if (evs[i].op == GP_OP_SUSPEND)
			s = i;
	CHECK(s >= 0 && evs[s].tid == t2 && evs[s].duration_ns == 490 &&
	      evs[s].susp.phase_ns[GP_PHASE_FENCE] == 300);
	/* now t2 gets the row, and its exit gives it back */
	begin(GP_OP_CREATE, t2, 70, 7, 0, 0, 0, 0, 0, 0, 600);
	CHECK(count_keys(skel->maps.gp_pending, 8) == 0);
	CHECK(pending_n(skel) == 1);
	bye[0] = 70;
	bye[1] = t2;
	bye[2] = 700;
	CHECK(run(skel->progs.test_logic_exit, bye, 3) == 0);
	CHECK(pending_n(skel) == 0);
	CHECK(finish(GP_OP_CREATE, t2, 0, 800, 1, 0, 0, 0) == 1);
	begin(GP_OP_CREATE, 60, 60, 7, 0, 0, 0, 0, 0, 0, 900);
	CHECK(count_keys(skel->maps.gp_pending, 8) == 0);
	CHECK(pending_n(skel) == 1);
}

TEST(summary_mode_counts_every_op_and_sends_nothing)
{
	struct logic_test_bpf *save = skel;
	__u64 exitargs[] = { 42, 42, 100 };
	struct gp_count c;

	skel = open_cfg(false, 1, 0);
	CHECK(skel);
	if (!skel) {
		skel = save;
		return;
	}
	nev = nseen = 0;
	one_event(GP_OP_CREATE, 5);		/* ok: adds row 42/7/9 */
	begin(GP_OP_CREATE, 5, 42, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 5, -EINVAL, 10, 0, 0, 0, 0);
	one_event(GP_OP_QUEUE_ADD, 5);
	one_event(GP_OP_HW_FENCE, 5);
	run(skel->progs.test_logic_exit, exitargs, 3);
	CHECK(drain(skel) == 0);
	c = count_of(skel, GP_OP_CREATE);
	CHECK(c.count == 2 && c.failed == 1);
	c = count_of(skel, GP_OP_QUEUE_ADD);
	CHECK(c.count == 1 && c.failed == 0);
	c = count_of(skel, GP_OP_HW_FENCE);
	CHECK(c.count == 1);
	c = count_of(skel, GP_OP_EXIT);
	CHECK(c.count == 1);
	c = count_of(skel, GP_OP_DESTROY);
	CHECK(c.count == 0);
	logic_test_bpf__destroy(skel);
	skel = save;
}

/* Sum of one per-CPU counter of gp_lost (GP_STAT_*). */

TEST(bogus_debug_ops_cannot_fill_the_histogram_map)
{
	struct gp_hist_key *keys;
	struct gp_hist *vals;
	__u64 total = 0;
	int n;

	fresh();
	/* any KFD user can send 300 different unknown debug-trap ops */
	for (int op = 100; op < 400; op++) {
		begin(GP_OP_DBG_TRAP, 60, 60, 0, 0, op, 0, 0, 0, 50, 0);
		finish(GP_OP_DBG_TRAP, 60, -EINVAL, 10, 0, 0, 0, 0);
	}
	/* and the real ops still get their own histograms afterwards */
	begin(GP_OP_DBG_TRAP, 60, 60, 0, 0, 6, 0, 0, 0, 50, 0);
	finish(GP_OP_DBG_TRAP, 60, 0, 10, 0, 0, 0, 0);
	begin(GP_OP_CREATE, 61, 60, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 61, -EINVAL, 10, 0, 0, 0, 0);
	n = gp_hists_read(bpf_map__fd(skel->maps.gp_hists), &keys, &vals);
	CHECK(n == 3);
	for (int i = 0; i < n; i++)
		total += vals[i].count;
	printf("# %d histograms, %llu samples\n", n,
	       (unsigned long long)total);
	CHECK(total == 302);
	CHECK(n == 3 && keys[1].op == GP_OP_DBG_TRAP && keys[1].sub == 6 &&
	      keys[2].sub == GP_DBG_OP_OTHER && vals[2].count == 300);
	CHECK(stat_sum(GP_STAT_HIST_FULL) == 0);
	if (n >= 0) {
		free(keys);
		free(vals);
	}
}

TEST(a_full_histogram_map_is_counted)
{
	struct logic_test_bpf *s = logic_test_bpf__open();

	CHECK(s);
	if (!s)
		return;
	bpf_map__set_max_entries(s->maps.gp_hists, 1);
	bpf_map__set_max_entries(s->maps.gp_events, RB_SIZE);
	CHECK(logic_test_bpf__load(s) == 0);
	logic_test_bpf__destroy(skel);
	skel = s;
	begin(GP_OP_CREATE, 61, 60, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 61, -EINVAL, 10, 0, 0, 0, 0);
	begin(GP_OP_DESTROY, 61, 60, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_DESTROY, 61, -EINVAL, 10, 0, 0, 0, 0);
	CHECK(stat_sum(GP_STAT_HIST_FULL) == 1);
	CHECK(stat_sum(GP_STAT_LOST) == 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP L1 BPF tests need root\n");
		return 0;
	}
	RUN(create_captures_the_queue_pointer_addresses);
	RUN(suspend_applies_every_queue_id_up_to_kfd_limit);
	RUN(exit_drops_the_index_with_the_rows);
	RUN(immediate_ops_wake_the_reader_bulk_ops_wait);
	RUN(emit_mask_keeps_maps_and_histograms_sends_only_chosen_ops);
	RUN(phases_of_a_suspend_are_attributed_by_thread);
	RUN(pending_row_taken_falls_back_to_the_hash);
	RUN(summary_mode_counts_every_op_and_sends_nothing);
	RUN(bogus_debug_ops_cannot_fill_the_histogram_map);
	RUN(a_full_histogram_map_is_counted);
	if (skel)
		logic_test_bpf__destroy(skel);
	return tap_done();
}
