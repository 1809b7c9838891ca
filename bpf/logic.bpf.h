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
 *	gp_begin(&e, ptr, now);			stash, keyed by (tid, op)
 *	p = gp_pending_get(tid, op);		(probe, on return)
 *	p->ev.queue_id = ...;			values only known at return
 *	gp_finish(p, tid, op, ret, now);	map, histogram, event
 * Instant operations (a queue appears or goes) call gp_instant().
 */
#ifndef GP_LOGIC_BPF_H
#define GP_LOGIC_BPF_H

#include "gpreempt.h"

/*
 * Queue ids of one suspend/resume applied to the map: all of them up to
 * KFD_MAX_NUM_OF_QUEUES_PER_PROCESS (1024, kfd_priv.h), the most ids a
 * process can have; an array longer than that repeats ids or names none.
 */
#define GP_MAX_SUSP_QIDS 1024
#define GP_QID_MASK 0x3fffffffU	/* KFD_DBG_QUEUE_{ERROR,INVALID} bits off */
#define GP_NO_QID 0xffffffffU	/* matches no queue */

/* UAPI KFD_IOC_QUEUE_TYPE_* and the kernel's enum kfd_queue_type. */
#define GP_IOC_QT_COMPUTE	0
#define GP_IOC_QT_SDMA		1
#define GP_IOC_QT_COMPUTE_AQL	2
#define GP_IOC_QT_SDMA_XGMI	3
#define GP_IOC_QT_SDMA_BY_ENG	4
#define GP_KQT_COMPUTE		0
#define GP_KQT_SDMA		1
#define GP_KQT_SDMA_XGMI	4
#define GP_KQT_SDMA_BY_ENG	5

const volatile bool gp_filter_pids = false;	/* -p given */
const volatile __u32 gp_evflags = 0;		/* GP_EVF_REDUCED in
						 * reduced mode */
/*
 * Histogram unit in ns (1, 1000, 1000000 for -m/-u): durations are divided
 * before bucketing, as libbpf-tools do, since 1 us is no power of two of
 * 1 ns and ns slots cannot be regrouped into true us slots later.
 */
const volatile __u64 gp_hist_unit_ns = 1;
/*
 * Which ops' events go to the ring buffer (GP_OPMASK bits): all for the
 * tracer's event mode, GP_IMMEDIATE_OPS for an embedder that only acts on
 * queue lifecycle and suspend results, 0 for summary mode (histograms and
 * the queue map only: nothing per event crosses to user space).
 */
const volatile __u32 gp_emit_ops = GP_ALL_OPS;
/* Ops whose event wakes the reader at once (the rest is batched). */
const volatile __u32 gp_wake_ops = GP_IMMEDIATE_OPS;

struct gp_pending_key {
	__u32 tid;
	__u32 op;
};

struct gp_pending {
	__u64 start_ns;
	__u64 ptr;		/* what the return side reads again
				 * (the ioctl's args, the qpd; for
				 * suspend/resume the caller's user array
				 * of ev.susp.num_queues ids, 0 for all) */
	struct gp_event ev;
};

/*
 * 4 MiB: ~37,000 events of slack for a loader busy formatting (256 KiB lost
 * events from 250 k/s in bench/; docs/benchmarks.md).
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);
} gp_events SEC(".maps");

/*
 * Per-CPU counters, enum gp_stat: failed ring-buffer reservations (key 0,
 * the name is historical) and full maps. The loader sums and reports.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GP_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} gp_lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_MAX_QUEUES);
	__type(key, struct gp_queue_key);
	__type(value, struct gp_queue_val);
} gp_queues SEC(".maps");

/*
 * Pids that own (or owned) a row of gp_queues: set by BPF when it adds a
 * row and by the loader after seeding (gp_queues_mark_owners()). Every
 * process exit on the machine runs gp_task_exit(); walking the whole
 * queue map there cost ~11 us per exit (bench/), this lookup a few ns.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u8);
} gp_owners SEC(".maps");

/* (pid, queue_id) -> gpu_id of the gp_queues row; see gpreempt.h. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_MAX_QUEUES);
	__type(key, struct gp_qidx_key);
	__type(value, __u32);
} gp_qidx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct gp_hist_key);
	__type(value, struct gp_hist);
} gp_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct gp_pending_key);
	__type(value, struct gp_pending);
} gp_pending SEC(".maps");

/* -p PIDs (host tgids); consulted only when gp_filter_pids is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} gp_pids SEC(".maps");

static __always_inline bool gp_pid_wanted(__u32 pid, __u32 target)
{
	if (!gp_filter_pids)
		return true;
	if (bpf_map_lookup_elem(&gp_pids, &pid))
		return true;
	return target && bpf_map_lookup_elem(&gp_pids, &target);
}

/* floor(log2(v)), 0 for 0, clamped to the last slot. */
static __always_inline __u32 gp_slot(__u64 v)
{
	__u32 r = 0;

#pragma unroll
	for (int s = 32; s > 0; s >>= 1) {
		if (v >= (1ULL << s)) {
			v >>= s;
			r += s;
		}
	}
	return r < GP_MAX_SLOTS ? r : GP_MAX_SLOTS - 1;
}

static __always_inline void gp_stat_inc(__u32 idx)
{
	__u64 *n = bpf_map_lookup_elem(&gp_lost, &idx);

	if (n)
		*n += 1;	/* per-CPU slot: no atomics needed */
}

static __always_inline void gp_hist_add(__u32 op, __u32 sub, __u64 ns)
{
	struct gp_hist_key k = { .op = op, .sub = sub };
	static const struct gp_hist zero;
	struct gp_hist *h;
	__u32 slot;

	h = bpf_map_lookup_elem(&gp_hists, &k);
	if (!h) {
		bpf_map_update_elem(&gp_hists, &k, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&gp_hists, &k);
		if (!h) {
			gp_stat_inc(GP_STAT_HIST_FULL);
			return;
		}
	}
	slot = gp_slot(gp_hist_unit_ns > 1 ? ns / gp_hist_unit_ns : ns);
	if (slot < GP_MAX_SLOTS)
		__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
}

static __always_inline void gp_emit(const struct gp_event *e)
{
	struct gp_event *r;

	if (e->op >= GP_OP_MAX || !(gp_emit_ops & GP_OPMASK(e->op)))
		return;
	r = bpf_ringbuf_reserve(&gp_events, sizeof(*r), 0);
	if (!r) {
		gp_stat_inc(GP_STAT_LOST);
		return;
	}
	__builtin_memcpy(r, e, sizeof(*r));
	r->flags |= gp_evflags;
	/*
	 * Queue lifecycle and suspend results that changed something wake
	 * the reader at once (the arbiter must see a new queue within 1 ms);
	 * they are rare. A forced wakeup costs ~6 us of BPF time (bench/
	 * bpf-cost, 2026-11-23): failures (a loop of failing CREATE_QUEUE)
	 * stay batched. The bulk stream wakes the reader only once 1/16 of
	 * the ring is pending and is drained on the poll timeout: a wakeup
	 * per event made each traced call tens of us slower when calls are
	 * sparse (bench/).
	 */
	if ((gp_wake_ops & GP_OPMASK(e->op)) && e->ret >= 0)
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(r, bpf_ringbuf_query(&gp_events,
							BPF_RB_AVAIL_DATA) >=
				   bpf_ringbuf_query(&gp_events,
						     BPF_RB_RING_SIZE) / 16 ?
				   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline __u32 gp_kq_type(__u32 ioc_type)
{
	switch (ioc_type) {
	case GP_IOC_QT_SDMA:
		return GP_KQT_SDMA;
	case GP_IOC_QT_SDMA_XGMI:
		return GP_KQT_SDMA_XGMI;
	case GP_IOC_QT_SDMA_BY_ENG:
		return GP_KQT_SDMA_BY_ENG;
	default:		/* COMPUTE, COMPUTE_AQL */
		return GP_KQT_COMPUTE;
	}
}

/* What happens to the rows a walk or a queue-id list selects. */
enum gp_walk_act {
	GP_WALK_EVICT,		/* set or clear EVICTED per "evicted" */
	GP_WALK_SUSPEND,
	GP_WALK_RESUME,
	GP_WALK_DELETE,
};

struct gp_walk {
	__u32 pid;
	__u32 gpu_id;		/* GP_ANY_GPU: all */
	__u32 act;
	__u32 evicted;		/* GP_WALK_EVICT: qpd->evicted after */
	__u32 count_transition;	/* bump the eviction/restore counters */
	__u32 matched;
	__u32 found_gpu;	/* gpu_id of the last row matched */
	__u32 pad;
	__u64 ids;		/* gp_walk_ids: user array of queue ids */
	__u64 now;
};

/* One selected row: its state change, or its deletion (and index's). */
static __always_inline void gp_walk_row(struct gp_walk *w,
					struct gp_queue_key *k,
					struct gp_queue_val *v)
{
	struct gp_qidx_key ik = { .pid = k->pid, .queue_id = k->queue_id };

	w->matched++;
	w->found_gpu = k->gpu_id;
	switch (w->act) {
	case GP_WALK_DELETE:
		bpf_map_delete_elem(&gp_qidx, &ik);
		bpf_map_delete_elem(&gp_queues, k);
		return;
	case GP_WALK_EVICT:
		if (w->evicted) {
			v->state |= GP_QS_EVICTED;
			if (w->count_transition)
				v->evictions++;
		} else {
			v->state &= ~GP_QS_EVICTED;
			if (w->count_transition)
				v->restores++;
		}
		break;
	case GP_WALK_SUSPEND:
		v->state |= GP_QS_SUSPENDED;
		v->suspends++;
		break;
	case GP_WALK_RESUME:
		if (!(v->state & GP_QS_SUSPENDED))
			return;
		v->state &= ~GP_QS_SUSPENDED;
		v->resumes++;
		break;
	}
	v->changed_ns = w->now;
}

/* Every row of a process (and GPU): eviction, resume-all, exit. */
static long gp_walk_cb(struct bpf_map *map, struct gp_queue_key *k,
		       struct gp_queue_val *v, struct gp_walk *w)
{
	if (k->pid != w->pid)
		return 0;
	if (w->gpu_id != GP_ANY_GPU && k->gpu_id != w->gpu_id)
		return 0;
	gp_walk_row(w, k, v);
	return 0;
}

/* The row of (w->pid, qid) through the index: O(1), no walk. */
static __always_inline void gp_walk_qid(struct gp_walk *w, __u32 qid)
{
	struct gp_qidx_key ik = { .pid = w->pid, .queue_id = qid };
	struct gp_queue_key k = { .pid = w->pid, .queue_id = qid };
	struct gp_queue_val *v;
	__u32 *gpu;

	gpu = bpf_map_lookup_elem(&gp_qidx, &ik);
	if (!gpu)
		return;
	k.gpu_id = *gpu;
	v = bpf_map_lookup_elem(&gp_queues, &k);
	if (v)
		gp_walk_row(w, &k, v);
}

/*
 * bpf_loop body over the caller's queue-id array as KFD left it: ids
 * that failed carry the INVALID or ERROR bit and are skipped.
 */
static long gp_walk_ids_cb(__u32 i, struct gp_walk *w)
{
	__u32 qid;

	if (bpf_probe_read_user(&qid, sizeof(qid),
				(void *)(w->ids + (__u64)i * sizeof(qid))))
		return 1;
	if (!(qid & ~GP_QID_MASK))
		gp_walk_qid(w, qid);
	return 0;
}

static __always_inline void gp_walk_init(struct gp_walk *w, __u32 pid,
					 __u32 gpu_id, __u32 act, __u64 now)
{
	__builtin_memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->gpu_id = gpu_id;
	w->act = act;
	w->now = now;
}

/* A queue seen to exist: insert, or refresh what the event knows. */
static __always_inline void gp_queue_upsert(const struct gp_event *e,
					    __u32 ktype, __u32 ioc_type,
					    __u64 now)
{
	struct gp_queue_key k = {
		.pid = e->pid, .gpu_id = e->gpu_id, .queue_id = e->queue_id,
	};
	struct gp_qidx_key ik = { .pid = e->pid, .queue_id = e->queue_id };
	struct gp_queue_val *v, nv = {};
	__u8 one = 1;

	v = bpf_map_lookup_elem(&gp_queues, &k);
	if (!v) {
		nv.created_ns = now;
		nv.state = GP_QS_ACTIVE;
		nv.origin = GP_ORIGIN_BPF;
		nv.ioc_type = GP_IOC_QT_UNKNOWN;
		bpf_map_update_elem(&gp_owners, &k.pid, &one, BPF_ANY);
		bpf_map_update_elem(&gp_qidx, &ik, &k.gpu_id, BPF_ANY);
		bpf_map_update_elem(&gp_queues, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&gp_queues, &k);
		if (!v) {		/* map full */
			gp_stat_inc(GP_STAT_QUEUES_FULL);
			bpf_map_delete_elem(&gp_qidx, &ik);
			return;
		}
	}
	v->type = ktype;
	v->priority = e->queue.priority;
	v->ring_size = e->queue.ring_size;
	if (ioc_type != GP_IOC_QT_UNKNOWN)
		v->ioc_type = ioc_type;
	/* q_add runs inside CREATE_QUEUE: keep what either one knew. */
	if (e->queue.wptr_addr || e->queue.rptr_addr) {
		v->ring_base = e->queue.ring_base;
		v->wptr_addr = e->queue.wptr_addr;
		v->rptr_addr = e->queue.rptr_addr;
	}
	if (v->origin == GP_ORIGIN_SYSFS && !v->created_ns)
		v->created_ns = now;
	v->changed_ns = now;
}

/* What a completed event does to the queue map. */
static __always_inline void gp_apply(struct gp_event *e, struct gp_pending *p,
				     __u64 now)
{
	struct gp_qidx_key ik = {};
	struct gp_queue_key k = {};
	struct gp_walk w;

	switch (e->op) {
	case GP_OP_CREATE:
		if (e->ret == 0)
			gp_queue_upsert(e, gp_kq_type(e->queue.type),
					e->queue.type, now);
		break;
	case GP_OP_QUEUE_ADD:
		gp_queue_upsert(e, e->queue.type, GP_IOC_QT_UNKNOWN, now);
		break;
	case GP_OP_DESTROY:
		/* The ioctl names no GPU: queue ids are per process. */
		if (e->ret != 0)
			break;
		gp_walk_init(&w, e->pid, GP_ANY_GPU, GP_WALK_DELETE, now);
		gp_walk_qid(&w, e->queue_id);
		if (w.matched && !e->gpu_id)
			e->gpu_id = w.found_gpu;
		break;
	case GP_OP_QUEUE_DEL:
		k.pid = e->pid;
		k.gpu_id = e->gpu_id;
		k.queue_id = e->queue_id;
		ik.pid = e->pid;
		ik.queue_id = e->queue_id;
		bpf_map_delete_elem(&gp_queues, &k);
		bpf_map_delete_elem(&gp_qidx, &ik);
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		if (e->ret != 0)
			break;
		gp_walk_init(&w, e->pid, e->gpu_id, GP_WALK_EVICT, now);
		w.evicted = e->evict.evicted_after;
		/* Eviction is ref-counted: only 0->1 and 1->0 do work. */
		w.count_transition = !e->evict.evicted_before !=
				     !e->evict.evicted_after;
		bpf_for_each_map_elem(&gp_queues, gp_walk_cb, &w, 0);
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		/* ret = number of queues done; 0 or an error: no change */
		if (e->ret <= 0)
			break;
		gp_walk_init(&w, e->target_pid, GP_ANY_GPU,
			     e->op == GP_OP_SUSPEND ? GP_WALK_SUSPEND :
						      GP_WALK_RESUME, now);
		/* No array at all (resume_queues(p, 0, NULL) on debug
		 * disable) means every queue of the process. */
		if (!p->ptr || !e->susp.num_queues) {
			bpf_for_each_map_elem(&gp_queues, gp_walk_cb, &w, 0);
			break;
		}
		w.ids = p->ptr;
		bpf_loop(e->susp.num_queues < GP_MAX_SUSP_QIDS ?
			 e->susp.num_queues : GP_MAX_SUSP_QIDS,
			 gp_walk_ids_cb, &w, 0);
		break;
	}
}

/* Entry side: stash the event so far, keyed by (tid, op). */
static __always_inline struct gp_pending *
gp_begin(const struct gp_event *e, __u64 ptr, __u64 now)
{
	struct gp_pending_key k = { .tid = e->tid, .op = e->op };
	struct gp_pending *p;
	static const struct gp_pending zero;

	if (bpf_map_update_elem(&gp_pending, &k, &zero, BPF_ANY))
		return NULL;
	p = bpf_map_lookup_elem(&gp_pending, &k);
	if (!p)
		return NULL;
	p->start_ns = now;
	p->ptr = ptr;
	__builtin_memcpy(&p->ev, e, sizeof(p->ev));
	return p;
}

static __always_inline struct gp_pending *gp_pending_get(__u32 tid, __u32 op)
{
	struct gp_pending_key k = { .tid = tid, .op = op };

	return bpf_map_lookup_elem(&gp_pending, &k);
}

static __always_inline __u32 gp_hist_sub(const struct gp_event *e)
{
	if (e->op != GP_OP_DBG_TRAP)
		return 0;
	return e->dbg.dbg_op <= GP_DBG_OP_LAST ? e->dbg.dbg_op :
						 GP_DBG_OP_OTHER;
}

/* Return side: complete, account and emit; the pending entry goes. */
static __always_inline void gp_finish(struct gp_pending *p, __u32 tid,
				      __u32 op, long ret, __u64 now)
{
	struct gp_pending_key k = { .tid = tid, .op = op };
	struct gp_event *e = &p->ev;

	e->ret = ret;
	e->ts_ns = now;
	e->duration_ns = now > p->start_ns ? now - p->start_ns : 0;
	if (gp_pid_wanted(e->pid, e->target_pid)) {
		gp_apply(e, p, now);
		gp_hist_add(e->op, gp_hist_sub(e), e->duration_ns);
		gp_emit(e);
	}
	bpf_map_delete_elem(&gp_pending, &k);
}

/* Instant events (kfd_procfs_add_queue/del_queue): no duration. */
static __always_inline void gp_instant(struct gp_event *e, __u64 now)
{
	static const struct gp_pending nop;

	e->ts_ns = now;
	e->duration_ns = 0;
	if (!gp_pid_wanted(e->pid, e->target_pid))
		return;
	gp_apply(e, (struct gp_pending *)&nop, now);
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
	struct gp_event e = {};
	struct gp_walk w;

	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		pk.op = op;
		bpf_map_delete_elem(&gp_pending, &pk);
	}
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
	gp_emit(&e);
}

#endif
