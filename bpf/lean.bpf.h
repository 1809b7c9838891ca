/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary mode's pairs ("lean"): when nothing per event goes to user
 * space and no pid filter applies, an entry probe stores only its start
 * time (and what its return must read again) in a slot of its thread,
 * and the return probe adds the count and the histogram sample. The full
 * event is built only when the return changes the queue map (a queue
 * created or destroyed, queues suspended or resumed): rare next to the
 * calls that fail or change nothing.
 *
 * Why: in the VM, the entry probe of a failing CREATE_QUEUE spent 3.2 us
 * building an event nobody reads (comm, cgroup, namespace pid, 8 argument
 * reads, a 144-byte hash-map value) and the return 1.5 us on the pending
 * map (bpf_stats, 6.12 guest, 2026-11-23; docs/benchmarks-history.md section 7).
 * A thread's slot is an array element, not a hash insert and delete.
 *
 * Where the slots live: a row of gp_lean_rows (rows.bpf.h), or task
 * storage when another thread holds the row (task storage is a helper
 * call with its own lock: ~360-500 ns more per pair in the VM).
 *
 * Ops with values that only the entry knows and the queue map needs
 * (eviction/restore: qpd->evicted before), and the instant q_add/q_del,
 * keep the full path in every mode. The probes hand this code the slot
 * set they found (a row or task storage in gpreempt.bpf.c; a row or an
 * array entry standing for task storage in tests/bpf), so the L1 tests
 * run the very same functions.
 */
#ifndef GP_LEAN_BPF_H
#define GP_LEAN_BPF_H

#include "maps.bpf.h"
#include "rows.bpf.h"

/* Summary mode without -p: known at load (rodata), so dead code goes. */
#define GP_LEAN (!gp_emit_ops && !gp_filter_pids)

struct gp_lean_slot {
	__u64 start_ns;
	__u64 ptr;		/* ioctl args; suspend/resume: the id array */
	__u64 aux;		/* suspend/resume: struct kfd_process * */
	__u32 arg;		/* debug op; suspend/resume: num_queues */
};

struct gp_lean {
	struct gp_row_hdr h;	/* owner: a row's only; pending: both */
	struct gp_lean_slot s[GP_OP_MAX];
	__u64 phase_ns[2][GP_PHASE_MAX];	/* [0] suspend, [1] resume */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct gp_lean);
} gp_lean_store SEC(".maps");

/*
 * 512 rows of 560 bytes (280 KiB): a row is only contended by threads
 * whose tids are equal modulo 512 and that are inside a traced call at
 * the same time; the loser pays task storage, nothing is lost.
 */
#define GP_LEAN_ROWS 512

GP_ROWS_MAP(gp_lean_rows, struct gp_lean, GP_LEAN_ROWS);

static __always_inline struct gp_lean *gp_lean_row(__u32 tid)
{
	return gp_row_of(&gp_lean_rows, GP_LEAN_ROWS, tid);
}

/* Entry: the row of tid if it may keep op's slot there, else NULL. */
static __always_inline struct gp_lean *gp_lean_row_enter(__u32 tid, __u32 op)
{
	struct gp_lean *l = gp_lean_row(tid);

	return l && gp_row_hold(&l->h, tid, op) ? l : NULL;
}

/* Return: the row of tid if op is pending there, else NULL. */
static __always_inline struct gp_lean *gp_lean_row_return(__u32 tid,
							  __u32 op)
{
	struct gp_lean *l;

	if (op >= GP_OP_MAX)
		return NULL;
	l = gp_lean_row(tid);
	if (!l || !gp_row_held(&l->h, tid))
		return NULL;
	return gp_row_pending(&l->h, op) ? l : NULL;
}

/*
 * After a return has read its slot (gp_lean_end): the row goes back when
 * nothing of it is pending. Task storage is never held: nothing to do.
 */
static __always_inline void gp_lean_row_put(struct gp_lean *l, __u32 tid)
{
	if (l)
		gp_row_put(&l->h, tid);
}

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
	gp_row_mark(&l->h, op);
	s->start_ns = now;
	s->ptr = ptr;
	s->aux = aux;
	s->arg = arg;
	if (op == GP_OP_SUSPEND || op == GP_OP_RESUME)
		__builtin_memset(l->phase_ns[op == GP_OP_RESUME], 0,
				 sizeof(l->phase_ns[0]));
}

/* A hardware step's time, to the suspend/resume this thread is inside. */
static __always_inline void gp_lean_charge(struct gp_lean *l, __u32 op,
					   __u64 ns)
{
	int ph = gp_phase_of(op);

	if (ph < 0 || ph >= GP_PHASE_MAX)
		return;
	if (gp_row_pending(&l->h, GP_OP_SUSPEND))
		l->phase_ns[0][ph] += ns;
	else if (gp_row_pending(&l->h, GP_OP_RESUME))
		l->phase_ns[1][ph] += ns;
}

/*
 * Return side: count, histogram, phases. The slot (its ptr, aux, arg
 * still valid) for the caller to apply a map change, NULL when no entry
 * was seen (tracing began inside the call). The caller puts a row back
 * (gp_lean_row_put) once done with the slot.
 */
static __always_inline struct gp_lean_slot *
gp_lean_end(struct gp_lean *l, __u32 op, long ret, __u64 now)
{
	struct gp_lean_slot *s;
	__u64 ns;

	if (op >= GP_OP_MAX)
		return NULL;
	if (!gp_row_pending(&l->h, op))
		return NULL;
	s = &l->s[op];
	ns = now > s->start_ns ? now - s->start_ns : 0;
	gp_row_unmark(&l->h, op);
	gp_count_op(op, ret);
	gp_hist_add(op, op == GP_OP_DBG_TRAP ? gp_dbg_sub(s->arg) : 0, ns);
	gp_lean_charge(l, op, ns);
	if (op == GP_OP_SUSPEND || op == GP_OP_RESUME)
		gp_phase_hists_add(op, l->phase_ns[op == GP_OP_RESUME]);
	return s;
}

#endif
