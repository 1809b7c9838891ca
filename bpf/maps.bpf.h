/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side's configuration (rodata the loader sets before load), its
 * maps, and the small helpers every op uses: the pid filter, log2 slots,
 * counters, histograms and the ring buffer. Part of logic.bpf.h.
 */
#ifndef GP_MAPS_BPF_H
#define GP_MAPS_BPF_H

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
 * One keyed map: GP_MAP(name, HASH or PERCPU_ARRAY, max entries, key type,
 * value type), libbpf's BTF-defined map (the skeleton names it "name").
 */
#define GP_MAP(name, type_, max, key_t, val_t)			\
	struct {						\
		__uint(type, BPF_MAP_TYPE_##type_);		\
		__uint(max_entries, max);			\
		__type(key, key_t);				\
		__type(value, val_t);				\
	} name SEC(".maps")

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
GP_MAP(gp_lost, PERCPU_ARRAY, GP_STAT_MAX, __u32, __u64);

GP_MAP(gp_queues, HASH, GP_MAX_QUEUES, struct gp_queue_key,
       struct gp_queue_val);

/*
 * Pids that own (or owned) a row of gp_queues: set by BPF when it adds a
 * row and by the loader after seeding (gp_queues_mark_owners()). Every
 * process exit on the machine runs gp_task_exit(); walking the whole
 * queue map there cost ~11 us per exit (bench/), this lookup a few ns.
 */
GP_MAP(gp_owners, HASH, GP_MAX_QUEUES, __u32, __u8);

/* (pid, queue_id) -> gpu_id of the gp_queues row; see gpreempt.h. */
GP_MAP(gp_qidx, HASH, GP_MAX_QUEUES, struct gp_qidx_key, __u32);

/* Latency histograms, gp_hist_idx(op, sub) -> gp_hist (gpreempt.h). */
GP_MAP(gp_hists, PERCPU_ARRAY, GP_HIST_ENTRIES, __u32, struct gp_hist);

GP_MAP(gp_pending, HASH, 8192, struct gp_pending_key, struct gp_pending);

/* Per-op counts, per CPU: what summary mode reports for every op. */
GP_MAP(gp_counts, PERCPU_ARRAY, GP_OP_MAX, __u32, struct gp_count);

/* -p PIDs (host tgids); consulted only when gp_filter_pids is set. */
GP_MAP(gp_pids, HASH, 64, __u32, __u8);

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

static __always_inline void gp_count_op(__u32 op, long ret)
{
	struct gp_count *c = bpf_map_lookup_elem(&gp_counts, &op);

	if (!c)
		return;
	c->count++;	/* per-CPU slot: no atomics needed */
	if (ret < 0)
		c->failed++;
}

static __always_inline void gp_count_add(const struct gp_event *e)
{
	gp_count_op(e->op, e->ret);
}

static __always_inline void gp_hist_add(__u32 op, __u32 sub, __u64 ns)
{
	__u32 idx = gp_hist_idx(op, sub);
	struct gp_hist *h = bpf_map_lookup_elem(&gp_hists, &idx);
	__u32 slot;

	if (!h) {
		gp_stat_inc(GP_STAT_HIST_FULL);
		return;
	}
	slot = gp_slot(gp_hist_unit_ns > 1 ? ns / gp_hist_unit_ns : ns);
	/* per-CPU entry: no atomics needed */
	if (slot < GP_MAX_SLOTS)
		h->slots[slot]++;
	h->count++;
	h->sum_ns += ns;
}

/* A finished suspend/resume's phases into their histograms. */
static __always_inline void gp_phase_hists_add(__u32 op,
					       const __u64 *phase_ns)
{
	for (int ph = 0; ph < GP_PHASE_MAX; ph++)
		if (phase_ns[ph])
			gp_hist_add(op, GP_PHASE_SUB(ph), phase_ns[ph]);
}

/* A debug-trap op's histogram: unknown ops share one (bounded map). */
static __always_inline __u32 gp_dbg_sub(__u32 dbg_op)
{
	return dbg_op <= GP_DBG_OP_LAST ? dbg_op : GP_DBG_OP_OTHER;
}

/* A hardware step's phase, or -1 (not one). */
static __always_inline int gp_phase_of(__u32 op)
{
	switch (op) {
	case GP_OP_HW_UNMAP:
		return GP_PHASE_UNMAP;
	case GP_OP_HW_FENCE:
		return GP_PHASE_FENCE;
	case GP_OP_MES_REMOVE:
		return GP_PHASE_MES_RM;
	case GP_OP_MES_ADD:
		return GP_PHASE_MES_ADD;
	}
	return -1;
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

#endif
