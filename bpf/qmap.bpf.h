/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PID -> queue map's state machine: which rows an event selects (a
 * walk over one process, or O(1) lookups through the (pid, queue_id)
 * index) and what it does to them. Part of logic.bpf.h.
 */
#ifndef GP_QMAP_BPF_H
#define GP_QMAP_BPF_H

#include "maps.bpf.h"

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

/*
 * What a completed event does to the queue map. ids: suspend/resume's
 * user array of e->susp.num_queues queue ids (0: every queue).
 */
static __always_inline void gp_apply(struct gp_event *e, __u64 ids, __u64 now)
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
		if (!ids || !e->susp.num_queues) {
			bpf_for_each_map_elem(&gp_queues, gp_walk_cb, &w, 0);
			break;
		}
		w.ids = ids;
		bpf_loop(e->susp.num_queues < GP_MAX_SUSP_QIDS ?
			 e->susp.num_queues : GP_MAX_SUSP_QIDS,
			 gp_walk_ids_cb, &w, 0);
		break;
	}
}

#endif
