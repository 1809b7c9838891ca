// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the BPF logic of gpreempt-trace (bpf/logic.bpf.h) under
 * BPF_PROG_TEST_RUN in the host kernel. The stand-in programs of
 * tests/bpf/logic_test.bpf.c feed raw values as the probes would; this
 * checks the queue map, its state machine, the histograms, the events and
 * the lost-event counter. Also: gpreempt.bpf.o opens, every fentry/fexit
 * program has a kprobe/kretprobe twin, and the reduced set verifies.
 * Needs root (BPF); prints TAP.
 */
#include <linux/kfd_ioctl.h>
#include "logic_harness.h"
#include "kfd_uapi.h"
#include "attach.h"
#include "gpreempt.skel.h"

TEST(create_ok_fills_event_map_and_histogram)
{
	struct gp_queue_val v;
	struct gp_hist h;

	fresh();
	CHECK(begin(GP_OP_CREATE, 100, 42, 0xdeadbeef, 0, 2, 7, 100, 4096,
		    0, 1000) == 0);
	CHECK(pending_n(skel) == 1);
	CHECK(finish(GP_OP_CREATE, 100, 0, 6000, 3, 0, 0, 0) == 0);
	CHECK(drain(skel) == 1);
	CHECK(evs[0].op == GP_OP_CREATE);
	CHECK(evs[0].pid == 42 && evs[0].tid == 100);
	CHECK(evs[0].gpu_id == 0xdeadbeef && evs[0].queue_id == 3);
	CHECK(evs[0].queue.type == 2 && evs[0].queue.priority == 7);
	CHECK(evs[0].queue.percentage == 100);
	CHECK(evs[0].queue.ring_size == 4096);
	CHECK(evs[0].ret == 0);
	CHECK(evs[0].ts_ns == 6000 && evs[0].duration_ns == 5000);
	CHECK(row(42, 0xdeadbeef, 3, &v));
	CHECK(v.type == 0);	/* COMPUTE_AQL is a compute queue */
	CHECK(v.priority == 7 && v.ring_size == 4096);
	CHECK(v.state == GP_QS_ACTIVE && v.origin == GP_ORIGIN_BPF);
	CHECK(v.created_ns == 6000);
	CHECK(hist(skel, GP_OP_CREATE, 0, &h));
	CHECK(h.count == 1 && h.sum_ns == 5000);
	CHECK(h.slots[12] == 1);	/* 4096 <= 5000 < 8192 */
	CHECK(pending_n(skel) == 0);
}

TEST(create_failure_reports_errno_and_adds_no_row)
{
	struct gp_hist h;

	fresh();
	begin(GP_OP_CREATE, 100, 42, 0xdeadbeef, 0, 1, 0, 100, 4096, 0, 0);
	finish(GP_OP_CREATE, 100, -EINVAL, 10, 0, 0, 0, 0);
	CHECK(drain(skel) == 1);
	CHECK(evs[0].ret == -EINVAL);
	CHECK(evs[0].queue.type == 1);
	CHECK(count_keys(skel->maps.gp_queues, 16) == 0);
	CHECK(hist(skel, GP_OP_CREATE, 0, &h) && h.count == 1);
}

TEST(return_without_entry_is_ignored)
{
	fresh();
	CHECK(finish(GP_OP_DESTROY, 7, 0, 10, 0, 0, 0, 0) == 1);
	CHECK(drain(skel) == 0);
}

TEST(destroy_deletes_the_row_on_any_gpu)
{
	struct gp_queue_val v;

	fresh();
	seed(42, 0x1234, 3);
	seed(42, 0x1234, 4);
	begin(GP_OP_DESTROY, 100, 42, 0, 4, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_DESTROY, 100, -EINVAL, 10, 0, 0, 0, 0);
	CHECK(row(42, 0x1234, 4, &v));	/* failed: row stays */
	begin(GP_OP_DESTROY, 100, 42, 0, 3, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_DESTROY, 100, 0, 20, 0, 0, 0, 0);
	CHECK(!row(42, 0x1234, 3, &v));
	CHECK(row(42, 0x1234, 4, &v));
	CHECK(drain(skel) == 2);
	CHECK(evs[1].op == GP_OP_DESTROY && evs[1].queue_id == 3);
	CHECK(evs[1].gpu_id == 0x1234);	/* learnt from the map */
}

TEST(procfs_add_and_del_are_instant_and_keep_the_map)
{
	struct gp_queue_val v;
	struct gp_hist h;

	fresh();
	begin(GP_OP_QUEUE_ADD, 9, 42, 7, 5, 1, 3, 50, 8192, 0, 100);
	CHECK(row(42, 7, 5, &v));
	CHECK(v.type == 1 && v.priority == 3 && v.ring_size == 8192);
	begin(GP_OP_QUEUE_DEL, 9, 42, 7, 5, 1, 3, 50, 8192, 0, 200);
	CHECK(!row(42, 7, 5, &v));
	CHECK(drain(skel) == 2);
	CHECK(evs[0].op == GP_OP_QUEUE_ADD && evs[0].duration_ns == 0);
	CHECK(evs[1].op == GP_OP_QUEUE_DEL && evs[1].ts_ns == 200);
	CHECK(!hist(skel, GP_OP_QUEUE_ADD, 0, &h));
	CHECK(pending_n(skel) == 0);
}

TEST(eviction_is_refcounted_per_process_and_gpu)
{
	struct gp_queue_val v;
	struct gp_hist h;

	fresh();
	seed(42, 7, 1);
	seed(42, 7, 2);
	seed(42, 8, 3);
	seed(43, 7, 1);
	begin(GP_OP_EVICT, 9, 42, 7, 0, 0, 2, 0, 0, 0, 0);
	finish(GP_OP_EVICT, 9, 0, 10, 1, 0, 0, 0);
	CHECK(row(42, 7, 1, &v) && v.state == GP_QS_EVICTED);
	CHECK(v.evictions == 1 && v.changed_ns == 10);
	CHECK(row(42, 7, 2, &v) && v.state == GP_QS_EVICTED);
	CHECK(row(42, 8, 3, &v) && v.state == GP_QS_ACTIVE);
	CHECK(row(43, 7, 1, &v) && v.state == GP_QS_ACTIVE);
	/* nested evict 1->2: still evicted, not a new eviction */
	begin(GP_OP_EVICT, 9, 42, 7, 0, 1, 2, 0, 0, 0, 20);
	finish(GP_OP_EVICT, 9, 0, 30, 2, 0, 0, 0);
	CHECK(row(42, 7, 1, &v) && v.evictions == 1);
	begin(GP_OP_RESTORE, 9, 42, 7, 0, 2, 2, 0, 0, 0, 40);
	finish(GP_OP_RESTORE, 9, 0, 50, 1, 0, 0, 0);
	CHECK(row(42, 7, 1, &v) && v.state == GP_QS_EVICTED);
	CHECK(v.restores == 0);
	begin(GP_OP_RESTORE, 9, 42, 7, 0, 1, 2, 0, 0, 0, 60);
	finish(GP_OP_RESTORE, 9, 0, 70, 0, 0, 0, 0);
	CHECK(row(42, 7, 1, &v) && v.state == GP_QS_ACTIVE);
	CHECK(v.restores == 1 && v.evictions == 1);
	CHECK(drain(skel) == 4);
	CHECK(evs[0].evict.evicted_before == 0);
	CHECK(evs[0].evict.evicted_after == 1);
	CHECK(evs[0].evict.n_queues == 2);
	CHECK(hist(skel, GP_OP_EVICT, 0, &h) && h.count == 2);
	CHECK(hist(skel, GP_OP_RESTORE, 0, &h) && h.count == 2);
}

TEST(suspend_marks_only_queues_kfd_did_not_flag)
{
	/* the caller's array as KFD left it: queue 2 failed */
	__u32 ids[] = { 1, 2 | 0x80000000u, 3 };
	struct gp_queue_val v;

	fresh();
	seed(50, 7, 1);
	seed(50, 7, 2);
	seed(50, 7, 3);
	/* target 50 (the owner), debugger thread 60 */
	begin(GP_OP_SUSPEND, 60, 50, 0, 0, 3, 10, 0, 0, 50, 0);
	finish(GP_OP_SUSPEND, 60, 2, 1000, (uintptr_t)ids, 0, 0, 0);
	CHECK(row(50, 7, 1, &v) && v.state == GP_QS_SUSPENDED);
	CHECK(v.suspends == 1);
	CHECK(row(50, 7, 2, &v) && v.state == GP_QS_ACTIVE);
	CHECK(row(50, 7, 3, &v) && v.state == GP_QS_SUSPENDED);
	/* evicted while suspended: both bits */
	begin(GP_OP_EVICT, 61, 50, 7, 0, 0, 3, 0, 0, 0, 2000);
	finish(GP_OP_EVICT, 61, 0, 2100, 1, 0, 0, 0);
	CHECK(row(50, 7, 1, &v) && v.state == GP_QS_EVICTED_SUSPENDED);
	/* resume_queues(p, 0, NULL): all */
	begin(GP_OP_RESUME, 60, 50, 0, 0, 0, 0, 0, 0, 50, 3000);
	finish(GP_OP_RESUME, 60, 2, 3500, 0, 0, 0, 0);
	CHECK(row(50, 7, 1, &v) && v.state == GP_QS_EVICTED);
	CHECK(v.resumes == 1);
	CHECK(row(50, 7, 2, &v) && v.resumes == 0);
	CHECK(drain(skel) == 3);
	CHECK(evs[0].op == GP_OP_SUSPEND && evs[0].target_pid == 50);
	CHECK(evs[0].susp.num_queues == 3 && evs[0].susp.grace_period == 10);
	CHECK(evs[0].susp.done == 2 && evs[0].ret == 2);
	CHECK(evs[0].duration_ns == 1000);
	CHECK(evs[2].op == GP_OP_RESUME && evs[2].duration_ns == 500);
}

TEST(suspend_returning_zero_changes_nothing)
{
	__u32 ids[] = { 7 | 0x80000000u, 1234 | 0x80000000u };
	struct gp_queue_val v;

	fresh();
	seed(50, 7, 7);
	begin(GP_OP_SUSPEND, 60, 50, 0, 0, 2, 0, 0, 0, 50, 0);
	finish(GP_OP_SUSPEND, 60, 0, 10, (uintptr_t)ids, 0, 0, 0);
	CHECK(row(50, 7, 7, &v) && v.state == GP_QS_ACTIVE);
	CHECK(drain(skel) == 1 && evs[0].susp.done == 0);
}

TEST(debug_trap_histogram_is_per_trap_op)
{
	struct gp_hist h;

	fresh();
	begin(GP_OP_DBG_TRAP, 60, 60, 0, 0, 6, 0, 0, 0, 50, 0);
	finish(GP_OP_DBG_TRAP, 60, 0, 3000, 0, 0, 0, 0);
	begin(GP_OP_DBG_TRAP, 60, 60, 0, 0, 7, 0, 0, 0, 50, 0);
	finish(GP_OP_DBG_TRAP, 60, -EPERM, 1, 0, 0, 0, 0);
	CHECK(hist(skel, GP_OP_DBG_TRAP, 6, &h) && h.count == 1);
	CHECK(h.slots[11] == 1);
	CHECK(hist(skel, GP_OP_DBG_TRAP, 7, &h) && h.count == 1);
	CHECK(h.slots[0] == 1);
	CHECK(drain(skel) == 2);
	CHECK(evs[0].dbg.dbg_op == 6 && evs[0].target_pid == 50);
	CHECK(evs[0].dbg.debugger_pid == 60);
	CHECK(evs[1].ret == -EPERM);
}

TEST(process_exit_drops_rows_and_pending_pairs)
{
	struct gp_queue_val v;
	__u64 leader[] = { 70, 70, 500 }, thread[] = { 71, 72, 600 };

	fresh();
	seed(70, 7, 1);
	seed(70, 8, 2);
	seed(71, 7, 1);
	begin(GP_OP_CREATE, 70, 70, 7, 0, 0, 0, 0, 0, 0, 0);
	begin(GP_OP_CREATE, 72, 71, 7, 0, 0, 0, 0, 0, 0, 0);
	CHECK(run(skel->progs.test_logic_exit, thread, 3) == 0);
	CHECK(row(71, 7, 1, &v));	/* not the leader: rows stay */
	CHECK(pending_n(skel) == 1);
	CHECK(run(skel->progs.test_logic_exit, leader, 3) == 0);
	CHECK(!row(70, 7, 1, &v) && !row(70, 8, 2, &v));
	CHECK(row(71, 7, 1, &v));
	CHECK(pending_n(skel) == 0);
	CHECK(drain(skel) == 1);
	CHECK(evs[0].op == GP_OP_EXIT && evs[0].pid == 70);
	CHECK(evs[0].evict.n_queues == 2 && evs[0].ts_ns == 500);
}

TEST(full_ring_buffer_counts_lost_events_per_cpu)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 n[] = { 1000 }, *lost, sum = 0;
	__u32 zero = 0;

	fresh();
	lost = calloc(ncpu, sizeof(*lost));
	CHECK(run(skel->progs.test_logic_flood, n, 1) == 0);
	CHECK(!bpf_map_lookup_elem(bpf_map__fd(skel->maps.gp_lost), &zero,
				   lost));
	for (int i = 0; i < ncpu; i++)
		sum += lost[i];
	free(lost);
	drain(skel);
	printf("# received %d, lost %llu\n", nseen, (unsigned long long)sum);
	CHECK(nseen > 0 && sum > 0);
	CHECK((__u64)nseen + sum == 1000);
}

TEST(pid_filter_keeps_owner_or_target)
{
	struct logic_test_bpf *save = skel;
	__u32 pid = 42;
	__u8 one = 1;
	struct gp_hist h;

	skel = open_skel(true);
	CHECK(skel);
	if (!skel) {
		skel = save;
		return;
	}
	nev = 0;
	bpf_map_update_elem(bpf_map__fd(skel->maps.gp_pids), &pid, &one, 0);
	begin(GP_OP_CREATE, 1, 43, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 1, 0, 5, 1, 0, 0, 0);
	begin(GP_OP_CREATE, 2, 42, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 2, 0, 5, 1, 0, 0, 0);
	begin(GP_OP_DBG_TRAP, 3, 99, 0, 0, 6, 0, 0, 0, 42, 0);
	finish(GP_OP_DBG_TRAP, 3, 0, 5, 0, 0, 0, 0);
	CHECK(drain(skel) == 2);
	CHECK(evs[0].pid == 42 && evs[1].target_pid == 42);
	CHECK(hist(skel, GP_OP_CREATE, 0, &h) && h.count == 1);
	CHECK(count_keys(skel->maps.gp_queues, 16) == 1);
	CHECK(pending_n(skel) == 0);
	logic_test_bpf__destroy(skel);
	skel = save;
}

TEST(histogram_unit_divides_before_bucketing)
{
	struct logic_test_bpf *save = skel;
	struct gp_hist h;

	skel = open_unit(false, 1000);	/* usecs, as -u */
	CHECK(skel);
	if (!skel) {
		skel = save;
		return;
	}
	/* 5000 ns = 5 us: slot 2 (4..7 us), not slot 12 as in ns */
	begin(GP_OP_CREATE, 1, 42, 7, 0, 0, 0, 0, 0, 0, 1000);
	finish(GP_OP_CREATE, 1, 0, 6000, 1, 0, 0, 0);
	/* 999 ns: below one unit, slot 0 */
	begin(GP_OP_CREATE, 1, 42, 7, 0, 0, 0, 0, 0, 0, 0);
	finish(GP_OP_CREATE, 1, 0, 999, 2, 0, 0, 0);
	CHECK(hist(skel, GP_OP_CREATE, 0, &h));
	CHECK(h.count == 2 && h.sum_ns == 5999);
	CHECK(h.slots[2] == 1 && h.slots[0] == 1);
	logic_test_bpf__destroy(skel);
	skel = save;
}

TEST(log2_slots)
{
	static const struct { __u64 v; int slot; } c[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 1023, 9 },
		{ 1024, 10 }, { 4294967295ULL, 31 }, { 1ULL << 40, 31 },
	};

	fresh();
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		__u64 a[] = { c[i].v };
		int got = run(skel->progs.test_logic_slot, a, 1);

		if (got != c[i].slot)
			printf("# slot(%llu) = %d, want %d\n",
			       (unsigned long long)c[i].v, got, c[i].slot);
		CHECK(got == c[i].slot);
	}
}

TEST(reduced_mode_offsets_match_uapi)
{
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, ring_base_address) ==
	      GP_UAPI_CQ_RING_BASE);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args,
		       write_pointer_address) == GP_UAPI_CQ_WPTR);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args,
		       read_pointer_address) == GP_UAPI_CQ_RPTR);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, doorbell_offset) ==
	      GP_UAPI_CQ_DOORBELL_OFFSET);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, ring_size) ==
	      GP_UAPI_CQ_RING_SIZE);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, gpu_id) ==
	      GP_UAPI_CQ_GPU_ID);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, queue_type) ==
	      GP_UAPI_CQ_QUEUE_TYPE);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, queue_percentage) ==
	      GP_UAPI_CQ_PERCENTAGE);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, queue_priority) ==
	      GP_UAPI_CQ_PRIORITY);
	CHECK(offsetof(struct kfd_ioctl_create_queue_args, queue_id) ==
	      GP_UAPI_CQ_QUEUE_ID);
	CHECK(offsetof(struct kfd_ioctl_destroy_queue_args, queue_id) ==
	      GP_UAPI_DQ_QUEUE_ID);
	CHECK(offsetof(struct kfd_ioctl_dbg_trap_args, pid) == GP_UAPI_DBG_PID);
	CHECK(offsetof(struct kfd_ioctl_dbg_trap_args, op) == GP_UAPI_DBG_OP);
}

static bool has_prog(struct bpf_object *obj, const char *prefix,
		     const char *hook)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, hook);
	return bpf_object__find_program_by_name(obj, name) != NULL;
}

TEST(probe_object_opens_and_every_fentry_has_a_kprobe_twin)
{
	struct gpreempt_bpf *g = gpreempt_bpf__open();
	struct bpf_program *prog;
	int fe = 0, fx = 0;

	CHECK(g);
	if (!g)
		return;
	bpf_object__for_each_program(prog, g->obj) {
		const char *n = bpf_program__name(prog);
		enum bpf_prog_type t = bpf_program__type(prog);

		if (!strncmp(n, "fe_", 3)) {
			fe++;
			CHECK(has_prog(g->obj, "kp_", n + 3));
		} else if (!strncmp(n, "fx_", 3)) {
			fx++;
			CHECK(has_prog(g->obj, "kr_", n + 3));
			CHECK(has_prog(g->obj, "fe_", n + 3));
		} else if (!strncmp(n, "kp_", 3)) {
			CHECK(has_prog(g->obj, "fe_", n + 3));
			CHECK(t == BPF_PROG_TYPE_KPROBE);
		} else if (!strncmp(n, "kr_", 3)) {
			CHECK(has_prog(g->obj, "fx_", n + 3));
		}
	}
	printf("# %d fentry, %d fexit programs, all twinned\n", fe, fx);
	CHECK(fe >= 17 && fx >= 15);
	gpreempt_bpf__destroy(g);
}

TEST(reduced_set_passes_the_verifier_without_amdgpu_btf)
{
	struct gpreempt_bpf *g = gpreempt_bpf__open();
	struct gp_attach a = { .reduced = true };
	struct bpf_program *prog;
	int err, n = 0;

	CHECK(g);
	if (!g)
		return;
	/*
	 * The host has no amdgpu BTF: what the reduced plan picks (the
	 * ioctl hooks' kprobes, the exit tracepoint) must load without it.
	 */
	for (int i = 0; i < gp_nhooks; i++) {
		a.plan[i].how = gp_hooks[i].flags & GP_HOOK_REDUCED ?
				GP_HOW_KPROBE : GP_HOW_ABSENT;
		snprintf(a.plan[i].target, sizeof(a.plan[i].target), "%s",
			 gp_hooks[i].func);
	}
	gp_attach_prepare(&a, g->obj);
	bpf_object__for_each_program(prog, g->obj)
		n += bpf_program__autoload(prog);
	CHECK(n == 7);	/* create, destroy, dbg: entry + return; exit */
	err = gpreempt_bpf__load(g);
	if (err)
		printf("# load: %d\n", err);
	CHECK(err == 0);
	gpreempt_bpf__destroy(g);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP L1 BPF tests need root\n");
		return 0;
	}
	RUN(create_ok_fills_event_map_and_histogram);
	RUN(create_failure_reports_errno_and_adds_no_row);
	RUN(return_without_entry_is_ignored);
	RUN(destroy_deletes_the_row_on_any_gpu);
	RUN(procfs_add_and_del_are_instant_and_keep_the_map);
	RUN(eviction_is_refcounted_per_process_and_gpu);
	RUN(suspend_marks_only_queues_kfd_did_not_flag);
	RUN(suspend_returning_zero_changes_nothing);
	RUN(debug_trap_histogram_is_per_trap_op);
	RUN(process_exit_drops_rows_and_pending_pairs);
	RUN(full_ring_buffer_counts_lost_events_per_cpu);
	RUN(pid_filter_keeps_owner_or_target);
	RUN(histogram_unit_divides_before_bucketing);
	RUN(log2_slots);
	RUN(reduced_mode_offsets_match_uapi);
	RUN(probe_object_opens_and_every_fentry_has_a_kprobe_twin);
	RUN(reduced_set_passes_the_verifier_without_amdgpu_btf);
	if (skel)
		logic_test_bpf__destroy(skel);
	return tap_done();
}
