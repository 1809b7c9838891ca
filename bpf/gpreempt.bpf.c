// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-trace probes: one small function per KFD hook, each in two
 * flavours, fentry/fexit ("fe_"/"fx_") and kprobe/kretprobe ("kp_"/"kr_"),
 * as libbpf-tools' fsslower does. The loader keeps one flavour per hook
 * (bpf_program__set_autoload) and attaches by name, so nothing here names
 * its target. The ioctl hooks read only the UAPI argument structs, at
 * fixed offsets: their kprobe flavour is the reduced mode, for kernels
 * whose amdgpu module has no BTF. Probes only read the kernel;
 * logic.bpf.h does the rest.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kfd_types.bpf.h"
#include "logic.bpf.h"

#define GP_PF_KTHREAD 0x00200000	/* include/linux/sched.h */

char LICENSE[] SEC("license") = "GPL";

/* The task's tgid as its own pid namespace sees it. */
static __always_inline __u32 gp_ns_tgid(struct task_struct *t)
{
	struct pid *pid = BPF_CORE_READ(t, group_leader, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	int nr = 0;

	bpf_core_read(&nr, sizeof(nr), &pid->numbers[level & 7].nr);
	return nr;
}

static __always_inline __u64 gp_task_cgroup(struct task_struct *t)
{
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/*
 * The same for current, whose task pointer is typed (BTF): the chain is
 * plain loads, not three helper calls; the flexible array's element
 * still takes one read.
 */
static __always_inline __u32 gp_ns_tgid_cur(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pid *pid = t->group_leader->thread_pid;
	unsigned int level = pid->level;
	int nr = 0;

	bpf_core_read(&nr, sizeof(nr),
		      (void *)((unsigned long)pid +
			       bpf_core_field_offset(struct pid, numbers) +
			       (level & 7) * bpf_core_type_size(struct upid) +
			       bpf_core_field_offset(struct upid, nr)));
	return nr;
}

/* A fresh event whose owner is current (ioctl context). */
static __always_inline void gp_ev_current(struct gp_event *e, __u32 op)
{
	__u64 id = bpf_get_current_pid_tgid();

	__builtin_memset(e, 0, sizeof(*e));
	e->op = op;
	e->tid = (__u32)id;
	e->pid = id >> 32;
	e->ns_pid = gp_ns_tgid_cur();
	e->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

/* The owner is another task (q->process->lead_thread): never current. */
static __always_inline void gp_ev_owner(struct gp_event *e,
					struct task_struct *owner)
{
	struct task_struct *cur = (void *)bpf_get_current_task();

	if (!owner)
		return;
	e->pid = BPF_CORE_READ(owner, tgid);
	e->ns_pid = gp_ns_tgid(owner);
	e->cgroup_id = gp_task_cgroup(owner);
	if (BPF_CORE_READ(cur, flags) & GP_PF_KTHREAD)
		e->flags |= GP_EVF_KWORKER;
}

/* queue->device and pdd->dev: kfd_dev on 6.1, kfd_node from 6.5. */
static __always_inline __u32 gp_dev_id(void *dev)
{
	if (!dev)
		return 0;
	if (bpf_core_type_exists(struct kfd_node___gp))
		return BPF_CORE_READ((struct kfd_node___gp *)dev, id);
	return BPF_CORE_READ((struct kfd_dev___gp *)dev, id);
}

static __always_inline __u32 gp_proc_pasid(struct kfd_process___gp *p)
{
	if (p && bpf_core_field_exists(p->pasid))
		return BPF_CORE_READ(p, pasid);
	return 0;
}

/* PASID moved from kfd_process to kfd_process_device in 6.14. */
static __always_inline __u32 gp_pdd_pasid(struct kfd_process_device___gp *pdd)
{
	if (bpf_core_field_exists(pdd->pasid))
		return BPF_CORE_READ(pdd, pasid);
	return gp_proc_pasid(BPF_CORE_READ(pdd, process));
}

/* Who a hardware step (unmap, fence, MES) works for: the enclosing op. */
static __always_inline __u32 gp_enclosing_target(__u32 tid)
{
	struct gp_pending *p;

	p = gp_pending_get(tid, GP_OP_SUSPEND);
	if (!p)
		p = gp_pending_get(tid, GP_OP_RESUME);
	if (p)
		return p->ev.target_pid;
	p = gp_pending_get(tid, GP_OP_EVICT);
	if (!p)
		p = gp_pending_get(tid, GP_OP_RESTORE);
	return p ? p->ev.pid : 0;
}

/*
 * The ioctl argument structs are UAPI: fixed offsets (kfd_uapi.h, checked
 * against <linux/kfd_ioctl.h> by tests/bpf), no CO-RE, so the ioctl hooks
 * load without amdgpu's BTF and serve the reduced mode as they are.
 */
static __always_inline __u32 gp_u32_at(void *base, int off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), base + off);
	return v;
}

/* ---- entry handlers: build the event, stash it ---- */

/* Summary mode's slots in task storage (lean.bpf.h), created on entry. */
static __always_inline struct gp_lean *gp_lean_cur(bool create)
{
	return bpf_task_storage_get(&gp_lean_store, bpf_get_current_task_btf(),
				    0, create ?
				    BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline int gp_lean_enter(__u32 op, void *ptr, void *aux,
					 __u32 arg)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct gp_lean *l = gp_lean_row_enter(tid, op);

	if (!l)
		l = gp_lean_cur(true);
	if (l)
		gp_lean_begin(l, op, (__u64)ptr, (__u64)aux, arg,
			      bpf_ktime_get_boot_ns());
	return 0;
}

/* Fields of an argument struct copied to the stack in one read. */
#define GP_A32(w, off) (*(__u32 *)((char *)(w) + (off)))
#define GP_A64(w, off) (*(__u64 *)((char *)(w) + (off)))

/*
 * CREATE_QUEUE's arguments, read on entry or by the lean return (out:
 * after a success, with what KFD wrote back): one copy of the struct's
 * first 56 bytes, not eight to ten reads, each a helper call (the event
 * mode entry probe spent 2.1 us in the VM, 0.8 us after this and the
 * pending rows: docs/benchmarks-history.md sections 7.1 and 8.1).
 */
static __always_inline void gp_create_args(struct gp_event *e, void *data,
					   bool out)
{
	__u64 w[7] = {};

	bpf_probe_read_kernel(w, sizeof(w), data);
	e->gpu_id = GP_A32(w, GP_UAPI_CQ_GPU_ID);
	e->queue.type = GP_A32(w, GP_UAPI_CQ_QUEUE_TYPE);
	e->queue.priority = GP_A32(w, GP_UAPI_CQ_PRIORITY);
	e->queue.percentage = GP_A32(w, GP_UAPI_CQ_PERCENTAGE);
	e->queue.ring_size = GP_A32(w, GP_UAPI_CQ_RING_SIZE);
	e->queue.ring_base = GP_A64(w, GP_UAPI_CQ_RING_BASE);
	e->queue.wptr_addr = GP_A64(w, GP_UAPI_CQ_WPTR);
	e->queue.rptr_addr = GP_A64(w, GP_UAPI_CQ_RPTR);
	if (out) {
		e->queue.doorbell_offset =
			GP_A64(w, GP_UAPI_CQ_DOORBELL_OFFSET);
		e->queue_id = GP_A32(w, GP_UAPI_CQ_QUEUE_ID);
	}
}

static __always_inline int on_create(void *data)
{
	struct gp_event e;

	if (GP_LEAN)
		return gp_lean_enter(GP_OP_CREATE, data, NULL, 0);
	gp_ev_current(&e, GP_OP_CREATE);
	gp_create_args(&e, data, false);
	gp_begin(&e, (__u64)data, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_destroy(void *data)
{
	struct gp_event e;

	if (GP_LEAN)
		return gp_lean_enter(GP_OP_DESTROY, data, NULL, 0);
	gp_ev_current(&e, GP_OP_DESTROY);
	e.queue_id = gp_u32_at(data, GP_UAPI_DQ_QUEUE_ID);
	gp_begin(&e, (__u64)data, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_queue(struct queue___gp *q, __u32 op)
{
	struct kfd_process___gp *proc = BPF_CORE_READ(q, process);
	struct gp_event e;

	gp_ev_current(&e, op);
	gp_ev_owner(&e, BPF_CORE_READ(proc, lead_thread));
	e.pasid = gp_proc_pasid(proc);
	e.gpu_id = gp_dev_id(BPF_CORE_READ(q, device));
	e.queue_id = BPF_CORE_READ(q, properties.queue_id);
	e.queue.type = BPF_CORE_READ(q, properties.type);
	e.queue.priority = BPF_CORE_READ(q, properties.priority);
	e.queue.percentage = BPF_CORE_READ(q, properties.queue_percent);
	e.queue.ring_size = BPF_CORE_READ(q, properties.queue_size);
	e.queue.doorbell_offset = BPF_CORE_READ(q, properties.doorbell_off);
	e.queue.ring_base = BPF_CORE_READ(q, properties.queue_address);
	e.queue.wptr_addr = (__u64)BPF_CORE_READ(q, properties.write_ptr);
	e.queue.rptr_addr = (__u64)BPF_CORE_READ(q, properties.read_ptr);
	gp_instant(&e, bpf_ktime_get_boot_ns());
	return 0;
}

/* qpd is embedded in kfd_process_device: walk back to the owner. */
static __always_inline int on_evict(struct qcm_process_device___gp *qpd,
				    __u32 op)
{
	struct kfd_process_device___gp *pdd;
	struct gp_event e;

	pdd = (void *)qpd -
	      bpf_core_field_offset(struct kfd_process_device___gp, qpd);
	gp_ev_current(&e, op);
	gp_ev_owner(&e, BPF_CORE_READ(pdd, process, lead_thread));
	e.pasid = gp_pdd_pasid(pdd);
	e.gpu_id = gp_dev_id(BPF_CORE_READ(pdd, dev));
	e.evict.evicted_before = BPF_CORE_READ(qpd, evicted);
	e.evict.n_queues = BPF_CORE_READ(qpd, queue_count);
	gp_begin(&e, (__u64)qpd, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_proc_evict(struct kfd_process___gp *p,
					 __u32 trigger)
{
	struct gp_event e;

	gp_ev_current(&e, GP_OP_PROC_EVICT);
	gp_ev_owner(&e, BPF_CORE_READ(p, lead_thread));
	e.pasid = gp_proc_pasid(p);
	e.evict.trigger = trigger;
	gp_begin(&e, 0, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_dbg(void *data)
{
	struct gp_event e;
	__u64 w = 0;	/* pid, op: one read */

	if (GP_LEAN)
		return gp_lean_enter(GP_OP_DBG_TRAP, data, NULL,
				     gp_u32_at(data, GP_UAPI_DBG_OP));
	gp_ev_current(&e, GP_OP_DBG_TRAP);
	bpf_probe_read_kernel(&w, sizeof(w), data);
	e.target_pid = GP_A32(&w, GP_UAPI_DBG_PID);
	e.dbg.dbg_op = GP_A32(&w, GP_UAPI_DBG_OP);
	e.dbg.debugger_pid = e.pid;
	gp_begin(&e, 0, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_susp(struct kfd_process___gp *p, __u32 op,
				   __u32 num, __u32 grace, void *ids)
{
	struct gp_event e;

	if (GP_LEAN)
		return gp_lean_enter(op, ids, p, num);
	gp_ev_current(&e, op);
	gp_ev_owner(&e, BPF_CORE_READ(p, lead_thread));
	e.target_pid = e.pid;
	e.pasid = gp_proc_pasid(p);
	e.susp.num_queues = num;
	e.susp.grace_period = grace;
	gp_begin(&e, (__u64)ids, bpf_ktime_get_boot_ns());
	return 0;
}

static __always_inline int on_hw(__u32 op, __u32 a, __u32 b, __u32 c,
				 __u32 timeout_ms)
{
	struct gp_event e;

	if (GP_LEAN)
		return gp_lean_enter(op, NULL, NULL, 0);
	gp_ev_current(&e, op);
	e.target_pid = gp_enclosing_target(e.tid);
	e.hw.filter = a;
	e.hw.filter_param = b;
	e.hw.reset = c;
	e.hw.timeout_ms = timeout_ms;
	gp_begin(&e, 0, bpf_ktime_get_boot_ns());
	return 0;
}

/* ---- return handlers: values only known now, then finish ---- */

/*
 * Summary mode: count and histogram; the event is built only when the
 * queue map changes, from what the entry kept (the ioctl's args are
 * still the kernel's copy at return; the process outlives its call).
 */
static __always_inline int on_lean_return(__u32 op, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct gp_lean *l = gp_lean_row_return(tid, op);
	struct kfd_process___gp *proc;
	struct gp_lean_slot *s;
	struct gp_event e;
	__u64 now;
	void *ptr;

	if (!l)
		l = gp_lean_cur(false);
	if (!l)
		return 0;
	now = bpf_ktime_get_boot_ns();
	s = gp_lean_end(l, op, ret, now);
	if (!s || !gp_lean_changes(op, ret)) {
		gp_lean_row_put(l, tid);
		return 0;
	}
	ptr = (void *)s->ptr;
	gp_ev_current(&e, op);
	e.ret = ret;
	e.ts_ns = now;
	switch (op) {
	case GP_OP_CREATE:
		gp_create_args(&e, ptr, true);
		break;
	case GP_OP_DESTROY:
		e.queue_id = gp_u32_at(ptr, GP_UAPI_DQ_QUEUE_ID);
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		proc = (void *)s->aux;	/* a plain load, not a CO-RE one */
		gp_ev_owner(&e, BPF_CORE_READ(proc, lead_thread));
		e.target_pid = e.pid;
		e.susp.num_queues = s->arg;
		break;
	}
	gp_apply(&e, s->ptr, now);
	gp_lean_row_put(l, tid);
	return 0;
}

static __always_inline int on_return(__u32 op, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct qcm_process_device___gp *qpd;
	struct gp_pending *p;
	void *ptr;

	if (GP_LEAN && gp_lean_op(op))
		return on_lean_return(op, ret);
	p = gp_pending_get(tid, op);
	if (!p)
		return 0;
	ptr = (void *)p->ptr;
	switch (op) {
	case GP_OP_CREATE:
		if (ret == 0) {
			__u64 w[4] = {};	/* doorbell .. queue_id: one read */

			bpf_probe_read_kernel(w, sizeof(w),
					      ptr + GP_UAPI_CQ_DOORBELL_OFFSET);
			p->ev.queue.doorbell_offset = w[0];
			p->ev.queue_id = GP_A32(w, GP_UAPI_CQ_QUEUE_ID -
						GP_UAPI_CQ_DOORBELL_OFFSET);
		}
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		qpd = ptr;
		p->ev.evict.evicted_after = BPF_CORE_READ(qpd, evicted);
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		/* p->ptr: the user id array, read by gp_apply */
		p->ev.susp.done = ret > 0 ? ret : 0;
		break;
	}
	gp_finish(p, tid, op, ret, bpf_ktime_get_boot_ns());
	return 0;
}

/*
 * Both flavours of one entry hook. fexit/kretprobe only need the return
 * value: everything else was stashed on entry.
 */
#define GP_ENTRY(name, call, ...)					\
SEC("fentry")								\
int BPF_PROG(fe_##name, ##__VA_ARGS__) { return call; }			\
SEC("kprobe")								\
int BPF_KPROBE(kp_##name, ##__VA_ARGS__) { return call; }

#define GP_RETURN(name, op)						\
SEC("fexit")								\
int fx_##name(__u64 *ctx)						\
{									\
	__u64 ret = 0;							\
									\
	bpf_get_func_ret(ctx, &ret);					\
	return on_return(op, (int)ret);					\
}									\
SEC("kretprobe")							\
int BPF_KRETPROBE(kr_##name, long ret) { return on_return(op, (int)ret); }

/* An entry hook and its return hook, both flavours of each. */
#define GP_TIMED(name, call, op, ...)					\
	GP_ENTRY(name, call, __VA_ARGS__)				\
	GP_RETURN(name, op)

/* kfd_ioctl_*(struct file *, struct kfd_process *, void *data) */
GP_TIMED(create, on_create(data), GP_OP_CREATE, void *f, void *p, void *data)
GP_TIMED(destroy, on_destroy(data), GP_OP_DESTROY, void *f, void *p,
	 void *data)
GP_TIMED(dbg, on_dbg(data), GP_OP_DBG_TRAP, void *f, void *p, void *data)

GP_ENTRY(qadd, on_queue(q, GP_OP_QUEUE_ADD), struct queue___gp *q)
GP_ENTRY(qdel, on_queue(q, GP_OP_QUEUE_DEL), struct queue___gp *q)

/* (struct device_queue_manager *, struct qcm_process_device *) */
#define GP_QPD void *dqm, struct qcm_process_device___gp *qpd
GP_TIMED(evict_c, on_evict(qpd, GP_OP_EVICT), GP_OP_EVICT, GP_QPD)
GP_TIMED(evict_nc, on_evict(qpd, GP_OP_EVICT), GP_OP_EVICT, GP_QPD)
GP_TIMED(restore_c, on_evict(qpd, GP_OP_RESTORE), GP_OP_RESTORE, GP_QPD)
GP_TIMED(restore_nc, on_evict(qpd, GP_OP_RESTORE), GP_OP_RESTORE, GP_QPD)

GP_TIMED(pevict, on_proc_evict(p, trigger), GP_OP_PROC_EVICT,
	 struct kfd_process___gp *p, __u32 trigger)

/* suspend_queues(p, num_queues, grace_period, exception_clear_mask, ids) */
GP_TIMED(suspend, on_susp(p, GP_OP_SUSPEND, num, grace, ids), GP_OP_SUSPEND,
	 struct kfd_process___gp *p, __u32 num, __u32 grace, __u64 mask,
	 void *ids)
/* resume_queues(p, num_queues, ids) */
GP_TIMED(resume, on_susp(p, GP_OP_RESUME, num, 0, ids), GP_OP_RESUME,
	 struct kfd_process___gp *p, __u32 num, void *ids)

/* pm_send_unmap_queue(pm, filter, filter_param, reset) */
GP_TIMED(unmap, on_hw(GP_OP_HW_UNMAP, filter, param, reset, 0),
	 GP_OP_HW_UNMAP, void *pm, __u32 filter, __u32 param, bool reset)
/* amdkfd_fence_wait_timeout(dqm or fence_addr, fence_value, timeout_ms) */
GP_TIMED(fence, on_hw(GP_OP_HW_FENCE, 0, 0, 0, timeout_ms), GP_OP_HW_FENCE,
	 void *dqm, __u64 value, __u32 timeout_ms)
/* mes_v1{1,2}_0_{remove,add}_hw_queue(mes, input) */
#define GP_MES(name, op) GP_TIMED(name, on_hw(op, 0, 0, 0, 0), op, void *mes)
GP_MES(mes11_rm, GP_OP_MES_REMOVE)
GP_MES(mes11_add, GP_OP_MES_ADD)
GP_MES(mes12_rm, GP_OP_MES_REMOVE)
GP_MES(mes12_add, GP_OP_MES_ADD)

/* Both modes: a process going away takes its rows with it. */
SEC("raw_tp/sched_process_exit")
int tp_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	char comm[GP_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	gp_task_exit(id >> 32, (__u32)id, comm, bpf_ktime_get_boot_ns());
	return 0;
}
