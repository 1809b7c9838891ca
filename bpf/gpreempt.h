/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the BPF programs and user space: events, map keys and
 * values. No kernel types here; fixed-width fields only, so the layout is
 * the same for clang -target bpf and the host compiler.
 */
#ifndef GPREEMPT_H
#define GPREEMPT_H

#define GP_COMM_LEN 16
#define GP_MAX_SLOTS 32		/* log2 latency slots: up to ~4 s in ns */
#define GP_MAX_QUEUES 4096	/* entries of the PID -> queue map */
#define GP_PIN_DIR "/sys/fs/bpf/gpreempt"
#define GP_PIN_QUEUES GP_PIN_DIR "/queues"
/* Beside the queue map, the tracer pins its histograms (bugreport reads). */
#define GP_PIN_HISTS_NAME "hists"
#define GP_PIN_HISTS GP_PIN_DIR "/" GP_PIN_HISTS_NAME

/* What happened. Keep in sync with gp_op_name() in user/trace/output.c. */
enum gp_op {
	GP_OP_CREATE = 0,	/* kfd_ioctl_create_queue (entry..return) */
	GP_OP_DESTROY,		/* kfd_ioctl_destroy_queue */
	GP_OP_QUEUE_ADD,	/* kfd_procfs_add_queue: a queue now exists */
	GP_OP_QUEUE_DEL,	/* kfd_procfs_del_queue: a queue is gone */
	GP_OP_EVICT,		/* evict_process_queues_{cpsch,nocpsch} */
	GP_OP_RESTORE,		/* restore_process_queues_{cpsch,nocpsch} */
	GP_OP_PROC_EVICT,	/* kfd_process_evict_queues (has trigger) */
	GP_OP_DBG_TRAP,		/* kfd_ioctl_set_debug_trap */
	GP_OP_SUSPEND,		/* suspend_queues */
	GP_OP_RESUME,		/* resume_queues */
	GP_OP_HW_UNMAP,		/* pm_send_unmap_queue (HWS) */
	GP_OP_HW_FENCE,		/* amdkfd_fence_wait_timeout (HWS) */
	GP_OP_MES_REMOVE,	/* MES remove_hw_queue (GFX11+) */
	GP_OP_MES_ADD,		/* MES add_hw_queue (GFX11+) */
	GP_OP_EXIT,		/* sched_process_exit: map entries dropped
				 * (how many: evict.n_queues) */
	GP_OP_MAX,
};

/* State of a queue in the map. */
enum gp_queue_state {
	GP_QS_ACTIVE = 0,
	GP_QS_EVICTED = 1,
	GP_QS_SUSPENDED = 2,
	GP_QS_EVICTED_SUSPENDED = 3,	/* both: off until both clear */
};

/* Where a map row came from. */
enum gp_queue_origin {
	GP_ORIGIN_SYSFS = 0,	/* seeded by the loader at start */
	GP_ORIGIN_BPF = 1,	/* seen created while tracing */
};

struct gp_event {
	__u64 ts_ns;		/* bpf_ktime_get_boot_ns() at completion */
	__u64 duration_ns;	/* entry..return; 0 for instant events */
	__u64 cgroup_id;
	__u32 pid;		/* host tgid of the owner (not always current) */
	__u32 tid;		/* host tid of current */
	__u32 ns_pid;		/* owner's pid in its own pid namespace */
	__u32 op;		/* enum gp_op */
	__s32 ret;		/* return value; negative errno on failure */
	__u32 gpu_id;
	__u32 queue_id;
	__u32 target_pid;	/* debug trap, suspend, resume: the target */
	__u32 flags;		/* GP_EVF_* */
	__u32 pasid;		/* owner's PASID where known, else 0
				 * (was "pad": same size and place) */
	char comm[GP_COMM_LEN];	/* current's comm */
	union {
		struct {
			__u32 type;	/* KFD_IOC_QUEUE_TYPE_* (ioctl) or
					 * enum kfd_queue_type (procfs) */
			__u32 priority;
			__u32 percentage;
			__u32 ring_size;
			__u64 doorbell_offset;
			/*
			 * User virtual addresses in the owner (CREATE_QUEUE
			 * arguments, or queue_properties for q_add/q_del):
			 * the ring, and the AQL write/read dispatch-id words
			 * the arbiter reads (docs: arbiter-facts.md). 0 when
			 * not known (reduced q_add does not exist).
			 */
			__u64 ring_base;
			__u64 wptr_addr;
			__u64 rptr_addr;
		} queue;
		struct {
			__u32 evicted_before;	/* qpd->evicted */
			__u32 evicted_after;
			__u32 trigger;		/* KFD_QUEUE_EVICTION_TRIGGER_* */
			__u32 n_queues;
		} evict;
		struct {
			__u32 dbg_op;		/* enum kfd_dbg_trap_operations */
			__u32 debugger_pid;
		} dbg;
		struct {
			__u32 num_queues;	/* asked */
			__u32 grace_period;
			__u32 done;		/* queues suspended/resumed */
			__u32 pad;
			/*
			 * Time this suspend/resume spent in each hardware
			 * step, summed over the calls its thread made
			 * inside it (enum gp_phase); 0: none seen.
			 */
			__u64 phase_ns[4];
		} susp;
		struct {
			__u32 filter;		/* pm_send_unmap_queue */
			__u32 filter_param;
			__u32 reset;
			__u32 timeout_ms;	/* amdkfd_fence_wait_timeout */
		} hw;
	};
};

#define GP_EVF_REDUCED	(1U << 0)	/* reduced mode: UAPI args only */
#define GP_EVF_KWORKER	(1U << 1)	/* ran in a kworker, owner from q */

struct gp_queue_key {
	__u32 pid;		/* host tgid of the owning process */
	__u32 gpu_id;
	__u32 queue_id;
	__u32 pad;
};

struct gp_queue_val {
	__u64 created_ns;	/* boot ns; 0 if seeded from sysfs */
	__u64 changed_ns;	/* last state change */
	__u64 ring_size;
	__u32 type;		/* enum kfd_queue_type */
	__u32 priority;
	__u32 state;		/* enum gp_queue_state */
	__u32 origin;		/* enum gp_queue_origin */
	__u32 evictions;
	__u32 restores;
	__u32 suspends;
	__u32 resumes;
	/*
	 * Captured when BPF sees the queue created (0 for rows seeded from
	 * sysfs, which does not publish them): user virtual addresses in
	 * the owner of the ring and of the write/read pointers (for AQL
	 * queues, amd_queue_t's write_dispatch_id/read_dispatch_id).
	 */
	__u64 ring_base;
	__u64 wptr_addr;
	__u64 rptr_addr;
	__u32 ioc_type;		/* KFD_IOC_QUEUE_TYPE_*, GP_IOC_QT_UNKNOWN
				 * when only the kernel type is known */
	__u32 pad;
};

#define GP_IOC_QT_UNKNOWN 0xffffffffU
#define GP_ANY_GPU 0xffffffffU	/* a walk or lookup on every GPU */

/*
 * Ops whose events reach user space at once (BPF_RB_FORCE_WAKEUP) unless
 * they failed (ret < 0): what the arbiter acts on. Everything else is
 * batched (the reader is woken per 1/16 of the ring, or polls).
 */
#define GP_OPMASK(op) (1U << (op))
#define GP_IMMEDIATE_OPS						\
	(GP_OPMASK(GP_OP_CREATE) | GP_OPMASK(GP_OP_DESTROY) |		\
	 GP_OPMASK(GP_OP_QUEUE_ADD) | GP_OPMASK(GP_OP_QUEUE_DEL) |	\
	 GP_OPMASK(GP_OP_SUSPEND) | GP_OPMASK(GP_OP_RESUME) |		\
	 GP_OPMASK(GP_OP_EXIT))
#define GP_ALL_OPS (GP_OPMASK(GP_OP_MAX) - 1)

/*
 * Index: a queue id is unique within its process across GPUs (KFD takes
 * it from the process's queue_slot_bitmap, kfd_process_queue_manager.c
 * find_available_queue_slot), so (pid, queue_id) names one row of
 * gp_queues; the value is that row's gpu_id. Suspend/resume and destroy
 * name queues by id only: this makes each an O(1) lookup, not a walk.
 */
struct gp_qidx_key {
	__u32 pid;
	__u32 queue_id;
};

/* Per-CPU counters of map gp_lost (the loader sums them). */
enum gp_stat {
	GP_STAT_LOST = 0,	/* events dropped: ring buffer full */
	GP_STAT_HIST_FULL,	/* histogram samples dropped: gp_hists full */
	GP_STAT_QUEUES_FULL,	/* queue rows not added: gp_queues full */
	GP_STAT_MAX,
};

/*
 * Debug-trap ops KFD does not know (kfd_dbg_trap_operations ends at
 * GET_DEVICE_SNAPSHOT, 14) share one histogram: any KFD user can send
 * them, and one key each would fill gp_hists for everybody.
 */
#define GP_DBG_OP_LAST 14
#define GP_DBG_OP_OTHER 255

/*
 * Phases of a suspend/resume: the hardware steps KFD runs in the same
 * thread inside suspend_queues()/resume_queues() (HWS: the unmap packet
 * and the fence wait for the preemption, per device; MES: remove/add of
 * each queue). Their time is charged to the enclosing suspend/resume.
 */
enum gp_phase {
	GP_PHASE_UNMAP = 0,	/* pm_send_unmap_queue */
	GP_PHASE_FENCE,		/* amdkfd_fence_wait_timeout */
	GP_PHASE_MES_RM,	/* mes_v1x_0_remove_hw_queue */
	GP_PHASE_MES_ADD,	/* mes_v1x_0_add_hw_queue */
	GP_PHASE_MAX,
};
/* Histogram key .sub of a phase of a suspend/resume (0: the whole op). */
#define GP_PHASE_SUB(ph) (1 + (ph))

/* Per-op counters (summary mode): events, and how many failed (ret < 0). */
struct gp_count {
	__u64 count;
	__u64 failed;
};

/* Per-op (and, for the debug trap, per dbg op) latency histogram. */
struct gp_hist_key {
	__u32 op;		/* enum gp_op */
	__u32 sub;		/* dbg op for GP_OP_DBG_TRAP, else 0 */
};

struct gp_hist {
	__u64 slots[GP_MAX_SLOTS];
	__u64 count;
	__u64 sum_ns;
};

/*
 * gp_hists is a per-CPU array with one entry per (op, sub): a direct
 * index and plain increments, where a hash lookup and three atomic adds
 * cost ~400 ns per sample in the VM (bpf_stats, 6.12 guest, 2026-11-23).
 * Subs: 0 (the whole op), the phases GP_PHASE_SUB(0..3); for the debug
 * trap (no whole-op entry) its ops 0..GP_DBG_OP_LAST, and
 * GP_DBG_OP_OTHER in the op's last entry.
 */
#define GP_HIST_SUBS 16
#define GP_HIST_ENTRIES (GP_OP_MAX * GP_HIST_SUBS)

/* Entry of (op, sub), or GP_HIST_ENTRIES (none: counted as full). */
static inline __u32 gp_hist_idx(__u32 op, __u32 sub)
{
	if (sub == GP_DBG_OP_OTHER)
		sub = GP_HIST_SUBS - 1;
	if (op >= GP_OP_MAX || sub >= GP_HIST_SUBS)
		return GP_HIST_ENTRIES;
	return op * GP_HIST_SUBS + sub;
}

static inline struct gp_hist_key gp_hist_key_of(__u32 idx)
{
	struct gp_hist_key k = { .op = idx / GP_HIST_SUBS,
				 .sub = idx % GP_HIST_SUBS };

	if (k.sub == GP_HIST_SUBS - 1)
		k.sub = GP_DBG_OP_OTHER;
	return k;
}

#endif
