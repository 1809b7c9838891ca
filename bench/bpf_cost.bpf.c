// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark programs for the shared BPF logic (bpf/logic.bpf.h), run with
 * BPF_PROG_TEST_RUN on the host. They are tc programs only because that
 * program type accepts a repeat count (raw_tp and syscall do not); the
 * packet is ignored. Each run is one complete traced operation as the
 * probes do it: entry stash, return lookup, queue map, histogram and one
 * ring-buffer event. bench/bpf-cost.c drives them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "logic.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define BENCH_PID 4242
#define BENCH_TID 4242
#define BENCH_GPU 0x1002

/* User address of the suspend's queue-id array (bpf-cost.c sets it). */
__u64 bench_qids_ptr;

/* The probe's entry half: what gp_ev_current() and the reads would fill. */
static __always_inline void bench_event(struct gp_event *e, __u32 op)
{
	__builtin_memset(e, 0, sizeof(*e));
	e->op = op;
	e->pid = BENCH_PID;
	e->tid = BENCH_TID;
	e->ns_pid = BENCH_PID;
	e->gpu_id = BENCH_GPU;
	__builtin_memcpy(e->comm, "bench", 6);
}

static __always_inline int bench_op(struct gp_event *e, long ret, __u32 qid)
{
	struct gp_pending *p;

	if (!gp_begin(e, 0, bpf_ktime_get_boot_ns()))
		return 1;
	p = gp_pending_get(e->tid, e->op);
	if (!p)
		return 1;
	if (e->op == GP_OP_CREATE && ret == 0)
		p->ev.queue_id = qid;
	if (e->op == GP_OP_SUSPEND || e->op == GP_OP_RESUME)
		p->ptr = bench_qids_ptr;	/* holds qid */
	gp_finish(p, e->tid, e->op, ret, bpf_ktime_get_boot_ns());
	return 0;
}

/* Test-run overhead alone: subtracted from the others. */
SEC("tc")
int bench_empty(struct __sk_buff *skb)
{
	return 0;
}

/* The VM loop's case: CREATE_QUEUE failing EINVAL (no queue map change). */
SEC("tc")
int bench_create_fail(struct __sk_buff *skb)
{
	struct gp_event e;

	bench_event(&e, GP_OP_CREATE);
	e.queue.type = GP_IOC_QT_COMPUTE_AQL;
	e.queue.priority = 7;
	e.queue.percentage = 100;
	e.queue.ring_size = 4096;
	return bench_op(&e, -22, 0);
}

/* A successful create: the queue map row is inserted, then refreshed. */
SEC("tc")
int bench_create_ok(struct __sk_buff *skb)
{
	struct gp_event e;

	bench_event(&e, GP_OP_CREATE);
	e.queue.type = GP_IOC_QT_COMPUTE_AQL;
	e.queue.priority = 7;
	e.queue.ring_size = 4096;
	return bench_op(&e, 0, 1);
}

/*
 * The dbg loop's case: one DBG_TRAP SUSPEND_QUEUES ioctl is two events,
 * the ioctl and suspend_queues() inside it, which walks the queue map
 * for the target's rows (bench_create_ok left one).
 */
SEC("tc")
int bench_dbg_suspend(struct __sk_buff *skb)
{
	struct gp_event d, s;
	struct gp_pending *p;

	bench_event(&d, GP_OP_DBG_TRAP);
	d.target_pid = BENCH_PID;
	d.dbg.dbg_op = 6;	/* KFD_IOC_DBG_TRAP_SUSPEND_QUEUES */
	d.dbg.debugger_pid = BENCH_PID;
	if (!gp_begin(&d, 0, bpf_ktime_get_boot_ns()))
		return 1;
	bench_event(&s, GP_OP_SUSPEND);
	s.target_pid = BENCH_PID;
	s.susp.num_queues = 1;
	if (bench_op(&s, 1, 1))
		return 1;
	p = gp_pending_get(BENCH_TID, GP_OP_DBG_TRAP);
	if (!p)
		return 1;
	gp_finish(p, BENCH_TID, GP_OP_DBG_TRAP, 0, bpf_ktime_get_boot_ns());
	return 0;
}

/*
 * sched_process_exit of a process that never used KFD: what every process
 * exit on the machine costs while gpreempt-trace runs.
 */
SEC("tc")
int bench_exit_other(struct __sk_buff *skb)
{
	gp_task_exit(BENCH_PID + 1, BENCH_PID + 1, "other",
		     bpf_ktime_get_boot_ns());
	return 0;
}
