/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF logic behind every probe: pending entry->return pairs, the
 * PID -> queue map and its state machine, latency histograms, the ring
 * buffer with its lost-event counter, the pid filter, and process-exit
 * cleanup. It sees only plain values (no kernel pointers), so the probes
 * in gpreempt.bpf.c and the L1 test programs in tests/bpf/ call the very
 * same code; "now" is a parameter for the same reason.
 *
 * Flow of one timed operation:
 *	e = { op, tid, pid, ... entry values };	(probe, on entry)
 *	gp_begin(&e, ptr, now);			stash: a row, or the hash
 *	p = gp_pending_get(tid, op);		(probe, on return)
 *	p->ev.queue_id = ...;			values only known at return
 *	gp_finish(p, tid, op, ret, now);	map, histogram, event
 * Instant operations (a queue appears or goes) call gp_instant().
 */
#ifndef GP_LOGIC_BPF_H
#define GP_LOGIC_BPF_H

#include "maps.bpf.h"
#include "qmap.bpf.h"
#include "lean.bpf.h"
#include "rows.bpf.h"

/*
 * Pending pairs live in a row of gp_pend_rows (rows.bpf.h) or, when
 * another thread holds the row, in the gp_pending hash, keyed by
 * (tid, op). 128 rows of 16 slots of 144 bytes: 290 KiB.
 */
#define GP_PEND_ROWS 128

struct gp_pend_row {
	struct gp_row_hdr h;
	struct gp_pending p[GP_ROW_SLOTS];
};

GP_ROWS_MAP(gp_pend_rows, struct gp_pend_row, GP_PEND_ROWS);

static __always_inline struct gp_pend_row *gp_pend_row(__u32 tid)
{
	return gp_row_of(&gp_pend_rows, GP_PEND_ROWS, tid);
}

/* Entry side: stash the event so far, for the return of (tid, op). */
static __always_inline struct gp_pending *
gp_begin(const struct gp_event *e, __u64 ptr, __u64 now)
{
	struct gp_pending_key k = { .tid = e->tid, .op = e->op };
	struct gp_pend_row *r = gp_pend_row(e->tid);
	struct gp_pending *p;
	static const struct gp_pending zero;
	__u32 op = e->op;

	if (op < GP_OP_MAX && r && gp_row_hold(&r->h, e->tid, op)) {
		gp_row_mark(&r->h, op);
		p = &r->p[gp_row_slot(op)];
	} else {
		if (bpf_map_update_elem(&gp_pending, &k, &zero, BPF_ANY))
			return NULL;
		p = bpf_map_lookup_elem(&gp_pending, &k);
		if (!p)
			return NULL;
	}
	p->start_ns = now;
	p->ptr = ptr;
	__builtin_memcpy(&p->ev, e, sizeof(p->ev));
	return p;
}

/* The row of tid if it holds it and op is pending there, else NULL. */
static __always_inline struct gp_pend_row *gp_pend_row_of(__u32 tid,
							  __u32 op)
{
	struct gp_pend_row *r = gp_pend_row(tid);

	if (op >= GP_OP_MAX || !r || !gp_row_held(&r->h, tid) ||
	    !gp_row_pending(&r->h, op))
		return NULL;
	return r;
}

/* A pending pair: its row's slot first (what gp_begin prefers). */
static __always_inline struct gp_pending *gp_pending_get(__u32 tid, __u32 op)
{
	struct gp_pending_key k = { .tid = tid, .op = op };
	struct gp_pend_row *r = gp_pend_row_of(tid, op);

	if (r)
		return &r->p[gp_row_slot(op)];
	return bpf_map_lookup_elem(&gp_pending, &k);
}

/*
 * The return is done with (tid, op)'s pair: its row slot frees (the row
 * too when nothing is left), or else its hash entry goes; the same order
 * as gp_pending_get, so it is the pair that was returned.
 */
static __always_inline void gp_pending_put(__u32 tid, __u32 op)
{
	struct gp_pending_key k = { .tid = tid, .op = op };
	struct gp_pend_row *r = gp_pend_row_of(tid, op);

	if (!r) {
		bpf_map_delete_elem(&gp_pending, &k);
		return;
	}
	gp_row_unmark(&r->h, op);
	gp_row_put(&r->h, tid);
}

static __always_inline __u32 gp_hist_sub(const struct gp_event *e)
{
	return e->op == GP_OP_DBG_TRAP ? gp_dbg_sub(e->dbg.dbg_op) : 0;
}

/* Charge a hardware step to the suspend/resume its thread is inside. */
static __always_inline void gp_phase_charge(__u32 tid, __u32 op, __u64 ns)
{
	int ph = gp_phase_of(op);
	struct gp_pending *s;

	if (ph < 0)
		return;
	s = gp_pending_get(tid, GP_OP_SUSPEND);
	if (!s)
		s = gp_pending_get(tid, GP_OP_RESUME);
	if (s && ph < GP_PHASE_MAX)
		s->ev.susp.phase_ns[ph] += ns;
}

/* The phases of a finished suspend/resume into their histograms. */
static __always_inline void gp_phase_hists(const struct gp_event *e)
{
	if (e->op == GP_OP_SUSPEND || e->op == GP_OP_RESUME)
		gp_phase_hists_add(e->op, e->susp.phase_ns);
}

/* Return side: complete, account and emit; the pending entry goes. */
static __always_inline void gp_finish(struct gp_pending *p, __u32 tid,
				      __u32 op, long ret, __u64 now)
{
	struct gp_event *e = &p->ev;

	e->ret = ret;
	e->ts_ns = now;
	e->duration_ns = now > p->start_ns ? now - p->start_ns : 0;
	gp_phase_charge(tid, op, e->duration_ns);
	if (gp_pid_wanted(e->pid, e->target_pid)) {
		gp_apply(e, p->ptr, now);
		gp_count_add(e);
		gp_hist_add(e->op, gp_hist_sub(e), e->duration_ns);
		gp_phase_hists(e);
		gp_emit(e);
	}
	gp_pending_put(tid, op);
}

/* Instant events (kfd_procfs_add_queue/del_queue): no duration. */
static __always_inline void gp_instant(struct gp_event *e, __u64 now)
{
	e->ts_ns = now;
	e->duration_ns = 0;
	if (!gp_pid_wanted(e->pid, e->target_pid))
		return;
	gp_apply(e, 0, now);
	gp_count_add(e);
	gp_emit(e);
}

/*
 * A thread exits: its unfinished pairs go. The group leader's exit also
 * drops the process's rows; one GP_OP_EXIT event says how many.
 */
static __always_inline void gp_task_exit(__u32 pid, __u32 tid,
					 const char *comm, __u64 now)
{
	struct gp_pending_key pk = { .tid = tid };
	struct gp_pend_row *pr;
	struct gp_event e = {};
	struct gp_lean *lr;
	struct gp_walk w;

	/*
	 * Every thread exit on the machine comes here, and almost no thread
	 * has anything pending. A delete takes the bucket lock (irqs off)
	 * even for a key that is not there; a lookup takes nothing. In the
	 * VM (bench/progstats, 300 exits, 2026-11-23) an exit cost 23-27 us
	 * of BPF in event mode and 13.5 us in summary mode with 16 deletes;
	 * 18-25 and 11-13 us with lookups first. Most of the rest is TCG
	 * refilling its soft TLB after each context switch.
	 */
	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		if (op == GP_OP_QUEUE_ADD || op == GP_OP_QUEUE_DEL ||
		    op == GP_OP_EXIT)
			continue;	/* instant: never pending */
		if (GP_LEAN && gp_lean_op(op))
			continue;	/* a row or task storage: below */
		pk.op = op;
		if (bpf_map_lookup_elem(&gp_pending, &pk))
			bpf_map_delete_elem(&gp_pending, &pk);
	}
	/* rows whose return never came */
	pr = gp_pend_row(tid);
	if (pr)
		gp_row_drop(&pr->h, tid);
	lr = GP_LEAN ? gp_lean_row(tid) : NULL;
	if (lr)
		gp_row_drop(&lr->h, tid);
	if (pid != tid || !bpf_map_lookup_elem(&gp_owners, &pid))
		return;
	gp_walk_init(&w, pid, GP_ANY_GPU, GP_WALK_DELETE, now);
	bpf_for_each_map_elem(&gp_queues, gp_walk_cb, &w, 0);
	bpf_map_delete_elem(&gp_owners, &pid);
	if (!w.matched || !gp_pid_wanted(pid, 0))
		return;
	e.op = GP_OP_EXIT;
	e.pid = pid;
	e.tid = tid;
	e.ts_ns = now;
	e.evict.n_queues = w.matched;
	if (comm)
		__builtin_memcpy(e.comm, comm, GP_COMM_LEN);
	gp_count_add(&e);
	gp_emit(&e);
}

#endif
