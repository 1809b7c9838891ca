/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary mode's pairs ("lean"): when nothing per event goes to user
 * space and no pid filter applies, an entry probe stores only its start
 * time (and what its return must read again) in a task-local slot, and
 * the return probe adds the count and the histogram sample. The full
 * event is built only when the return changes the queue map (a queue
 * created or destroyed, queues suspended or resumed): rare next to the
 * calls that fail or change nothing.
 *
 * Why: in the VM, the entry probe of a failing CREATE_QUEUE spent 3.2 us
 * building an event nobody reads (comm, cgroup, namespace pid, 8 argument
 * reads, a 144-byte hash-map value) and the return 1.5 us on the pending
 * map (bpf_stats, 6.12 guest, 2026-11-23; docs/benchmarks.md section 7).
 * A task-local slot is a cached pointer, not a hash insert and delete,
 * and goes with the task: no cleanup at exit.
 *
 * Ops with values that only the entry knows and the queue map needs
 * (eviction/restore: qpd->evicted before), and the instant q_add/q_del,
 * keep the full path in every mode. The probes hand this code a slot
 * set (task storage in gpreempt.bpf.c, an array in tests/bpf), so the
 * L1 tests run the very same functions.
 */
#ifndef GP_LEAN_BPF_H
#define GP_LEAN_BPF_H

#include "maps.bpf.h"

/* Summary mode without -p: known at load (rodata), so dead code goes. */
#define GP_LEAN (!gp_emit_ops && !gp_filter_pids)

struct gp_lean_slot {
	__u64 start_ns;
	__u64 ptr;		/* ioctl args; suspend/resume: the id array */
	__u64 aux;		/* suspend/resume: struct kfd_process * */
	__u32 arg;		/* debug op; suspend/resume: num_queues */
	__u32 pending;		/* entry seen, return not yet */
	__u64 phase_ns[GP_PHASE_MAX];	/* suspend/resume only */
};

struct gp_lean {
	struct gp_lean_slot s[GP_OP_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct gp_lean);
} gp_lean_store SEC(".maps");

/* The ops that take the lean path in summary mode. */
static __always_inline bool gp_lean_op(__u32 op)
{
	switch (op) {
	case GP_OP_CREATE:
	case GP_OP_DESTROY:
	case GP_OP_DBG_TRAP:
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
	case GP_OP_HW_UNMAP:
	case GP_OP_HW_FENCE:
	case GP_OP_MES_REMOVE:
	case GP_OP_MES_ADD:
		return true;
	}
	return false;
}

/* Does this return change the queue map (see gp_apply)? */
static __always_inline bool gp_lean_changes(__u32 op, long ret)
{
	switch (op) {
	case GP_OP_CREATE:
	case GP_OP_DESTROY:
		return ret == 0;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		return ret > 0;
	}
	return false;
}

static __always_inline void gp_lean_begin(struct gp_lean *l, __u32 op,
					  __u64 ptr, __u64 aux, __u32 arg,
					  __u64 now)
{
	struct gp_lean_slot *s;

	if (op >= GP_OP_MAX)
		return;
	s = &l->s[op];
	s->start_ns = now;
	s->pending = 1;
	s->ptr = ptr;
	s->aux = aux;
	s->arg = arg;
	if (op == GP_OP_SUSPEND || op == GP_OP_RESUME)
		__builtin_memset(s->phase_ns, 0, sizeof(s->phase_ns));
}

/* A hardware step's time, to the suspend/resume this thread is inside. */
static __always_inline void gp_lean_charge(struct gp_lean *l, __u32 op,
					   __u64 ns)
{
	int ph = gp_phase_of(op);
	struct gp_lean_slot *s = &l->s[GP_OP_SUSPEND];

	if (ph < 0 || ph >= GP_PHASE_MAX)
		return;
	if (!s->pending)
		s = &l->s[GP_OP_RESUME];
	if (s->pending)
		s->phase_ns[ph] += ns;
}

/*
 * Return side: count, histogram, phases. The slot (its ptr, aux, arg
 * still valid) for the caller to apply a map change, NULL when no entry
 * was seen (tracing began inside the call).
 */
static __always_inline struct gp_lean_slot *
gp_lean_end(struct gp_lean *l, __u32 op, long ret, __u64 now)
{
	struct gp_lean_slot *s;
	__u64 ns;

	if (op >= GP_OP_MAX)
		return NULL;
	s = &l->s[op];
	if (!s->pending)
		return NULL;
	ns = now > s->start_ns ? now - s->start_ns : 0;
	s->pending = 0;
	gp_count_op(op, ret);
	gp_hist_add(op, op == GP_OP_DBG_TRAP ? gp_dbg_sub(s->arg) : 0, ns);
	gp_lean_charge(l, op, ns);
	if (op == GP_OP_SUSPEND || op == GP_OP_RESUME)
		gp_phase_hists_add(op, s->phase_ns);
	return s;
}

#endif
