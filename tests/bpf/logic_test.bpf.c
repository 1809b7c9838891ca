// SPDX-License-Identifier: GPL-2.0
/*
 * L1 stand-ins for the probes of gpreempt.bpf.c: raw_tp programs run with
 * BPF_PROG_TEST_RUN that feed synthetic raw values (what a probe would
 * have read from KFD) into the same logic.bpf.h functions, with a
 * caller-chosen clock. tests/bpf/test_logic.c drives them and checks the
 * maps, histograms and ring-buffer events that come out.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "logic.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Ring base, write and read pointer of the next create/q_add (test sets). */
__u64 test_addrs[3];

/* Entry side of any op (instant ops complete here). */
SEC("raw_tp")
int BPF_PROG(test_logic_begin, __u64 op, __u64 tid, __u64 pid, __u64 gpu_id,
	     __u64 queue_id, __u64 a, __u64 b, __u64 c, __u64 d,
	     __u64 target, __u64 now)
{
	struct gp_event e = {};

	e.op = op;
	e.tid = tid;
	e.pid = pid;
	e.ns_pid = pid;
	e.gpu_id = gpu_id;
	e.queue_id = queue_id;
	e.target_pid = target;
	__builtin_memcpy(e.comm, "l1-test", 8);
	switch (op) {
	case GP_OP_CREATE:
	case GP_OP_QUEUE_ADD:
	case GP_OP_QUEUE_DEL:
		e.queue.type = a;
		e.queue.priority = b;
		e.queue.percentage = c;
		e.queue.ring_size = d;
		e.queue.ring_base = test_addrs[0];
		e.queue.wptr_addr = test_addrs[1];
		e.queue.rptr_addr = test_addrs[2];
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		e.evict.evicted_before = a;
		e.evict.n_queues = b;
		break;
	case GP_OP_DBG_TRAP:
		e.dbg.dbg_op = a;
		e.dbg.debugger_pid = pid;
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		e.susp.num_queues = a;
		e.susp.grace_period = b;
		break;
	}
	if (op == GP_OP_QUEUE_ADD || op == GP_OP_QUEUE_DEL) {
		gp_instant(&e, now);
		return 0;
	}
	return gp_begin(&e, 0, now) ? 0 : 1;
}

/*
 * Return side: a..d are what the probe reads at return. Suspend/resume:
 * a is the user address of the queue-id array (the test's own memory,
 * read with bpf_probe_read_user as in the probe), 0 for none.
 */
SEC("raw_tp")
int BPF_PROG(test_logic_finish, __u64 op, __u64 tid, __u64 ret, __u64 now,
	     __u64 a, __u64 b, __u64 c, __u64 d)
{
	struct gp_pending *p = gp_pending_get(tid, op);

	if (!p)
		return 1;
	switch (op) {
	case GP_OP_CREATE:
		p->ev.queue_id = a;
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		p->ev.evict.evicted_after = a;
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		p->ev.susp.done = (int)ret > 0 ? ret : 0;
		p->ptr = a;
		break;
	}
	gp_finish(p, tid, op, (int)ret, now);
	return 0;
}

SEC("raw_tp")
int BPF_PROG(test_logic_exit, __u64 pid, __u64 tid, __u64 now)
{
	gp_task_exit(pid, tid, "l1-exit", now);
	return 0;
}

static long flood_one(__u32 i, void *ctx)
{
	struct gp_event e = {};

	e.op = GP_OP_HW_FENCE;
	e.queue_id = i;
	gp_emit(&e);
	return 0;
}

/* Emit n events straight into the ring buffer (to fill it). */
SEC("raw_tp")
int BPF_PROG(test_logic_flood, __u64 n)
{
	bpf_loop(n < 4096 ? n : 4096, flood_one, NULL, 0);
	return 0;
}

/* gp_slot() on its own, for the bucket edges. */
SEC("raw_tp")
int BPF_PROG(test_logic_slot, __u64 v)
{
	return gp_slot(v);
}

/*
 * Summary mode's lean pairs (lean.bpf.h). The probes keep their slots in
 * a row of gp_lean_rows, or in task storage when another thread holds
 * the row; here one array entry per simulated thread stands for its task
 * storage. Both programs return where the slot was: 0 a row, 3 the
 * stand-in.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct gp_lean);
} test_lean SEC(".maps");

SEC("raw_tp")
int BPF_PROG(test_lean_begin, __u64 op, __u64 tid, __u64 thread, __u64 ptr,
	     __u64 arg, __u64 now)
{
	struct gp_lean *l = gp_lean_row_enter(tid, op);
	__u32 k = thread;
	int where = 0;

	if (!l) {
		l = bpf_map_lookup_elem(&test_lean, &k);
		where = 3;
	}
	if (!l)
		return 1;
	gp_lean_begin(l, op, ptr, 0, arg, now);
	return where;
}

/*
 * Return side. When the map changes, the event is what the probe would
 * build at return: owner pid, gpu, queue id (create and destroy read them
 * from the ioctl's args), the queue-id array and count kept on entry.
 */
SEC("raw_tp")
int BPF_PROG(test_lean_finish, __u64 op, __u64 tid, __u64 thread, __u64 ret,
	     __u64 now, __u64 pid, __u64 gpu_id, __u64 queue_id)
{
	struct gp_lean *l;
	struct gp_lean_slot *s;
	struct gp_event e = {};
	__u32 k = thread;
	int where = 0;

	if (op >= GP_OP_MAX)	/* the probes pass constants */
		return 1;
	l = gp_lean_row_return(tid, op);
	if (!l) {
		l = bpf_map_lookup_elem(&test_lean, &k);
		where = 3;
	}
	if (!l)
		return 1;
	s = gp_lean_end(l, op, (int)ret, now);
	if (!s || !gp_lean_changes(op, (int)ret)) {
		gp_lean_row_put(l, tid);
		return s ? where : 2;
	}
	e.op = op;
	e.ret = (int)ret;
	e.pid = pid;
	e.target_pid = pid;
	e.gpu_id = gpu_id;
	e.queue_id = queue_id;
	if (op == GP_OP_SUSPEND || op == GP_OP_RESUME)
		e.susp.num_queues = s->arg;
	else
		e.queue.ring_size = 4096;
	gp_apply(&e, s->ptr, now);
	gp_lean_row_put(l, tid);
	return where;
}
