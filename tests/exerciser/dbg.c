// SPDX-License-Identifier: GPL-2.0
/*
 * One AMDKFD_IOC_DBG_TRAP call, filled the way ROCdbgapi fills it
 * (os_driver.cpp) unless the caller overrides a field, and printed as
 * {"step":"dbg","op":NAME,...} with the op's outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex.h"

static const char *const op_names[] = {
	[KFD_IOC_DBG_TRAP_ENABLE] = "enable",
	[KFD_IOC_DBG_TRAP_DISABLE] = "disable",
	[KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT] = "send-runtime",
	[KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED] = "set-exceptions",
	[KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE] = "launch-override",
	[KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE] = "launch-mode",
	[KFD_IOC_DBG_TRAP_SUSPEND_QUEUES] = "suspend",
	[KFD_IOC_DBG_TRAP_RESUME_QUEUES] = "resume",
	[KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH] = "set-watch",
	[KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH] = "clear-watch",
	[KFD_IOC_DBG_TRAP_SET_FLAGS] = "set-flags",
	[KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT] = "query",
	[KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO] = "exception-info",
	[KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT] = "snapshot",
	[KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT] = "device-snapshot",
};

#define NR_OPS (sizeof(op_names) / sizeof(op_names[0]))

const char *dbg_op_name(uint32_t op)
{
	return op < NR_OPS ? op_names[op] : "raw";
}

/* A name from the table, or any number (to probe the kernel's checks). */
int dbg_op_parse(const char *s, uint32_t *op)
{
	unsigned long v;
	char *end;
	size_t i;

	for (i = 0; i < NR_OPS; i++) {
		if (!strcmp(s, op_names[i])) {
			*op = i;
			return 0;
		}
	}
	v = strtoul(s, &end, 0);
	if (!*s || *end || v > UINT32_MAX)
		return -1;
	*op = v;
	return 0;
}

int dbg_call(int kfd, struct dbg_req *q, struct ioc *r, uint64_t *out_mask)
{
	struct kfd_queue_snapshot_entry qsnap[64];
	struct kfd_dbg_device_info_entry dsnap[8];
	struct kfd_ioctl_dbg_trap_args a;
	struct kfd_runtime_info rinfo;
	uint32_t snap_ids[64];
	char what[32];
	uint32_t cap = 0, i, n;
	struct jl j;

	memset(&a, 0, sizeof(a));
	memset(&rinfo, 0, sizeof(rinfo));
	a.pid = q->pid;
	a.op = q->op;
	switch (q->op) {
	case KFD_IOC_DBG_TRAP_ENABLE:
		a.enable.exception_mask = q->mask_set ? q->mask :
			KFD_EC_MASK(EC_PROCESS_RUNTIME);
		a.enable.rinfo_ptr = (uintptr_t)&rinfo;
		a.enable.rinfo_size = sizeof(rinfo);
		a.enable.dbg_fd = q->dbg_fd;
		break;
	case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
		a.send_runtime_event.exception_mask = q->mask_set ? q->mask :
			KFD_EC_MASK(EC_PROCESS_RUNTIME);
		a.send_runtime_event.gpu_id = q->gpu;
		a.send_runtime_event.queue_id = q->qid;
		break;
	case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
		a.set_exceptions_enabled.exception_mask = q->mask_set ?
			q->mask : EX_EC_DBGAPI_ENABLED;
		break;
	case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
		a.launch_mode.launch_mode = q->mode;
		break;
	case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
		a.suspend_queues.exception_mask = q->mask_set ? q->mask :
			EX_EC_DBGAPI_QUEUE;
		a.suspend_queues.queue_array_ptr = (uintptr_t)q->qids;
		a.suspend_queues.num_queues = q->nq;
		a.suspend_queues.grace_period = q->grace;
		break;
	case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
		a.resume_queues.queue_array_ptr = (uintptr_t)q->qids;
		a.resume_queues.num_queues = q->nq;
		break;
	case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
		a.query_debug_event.exception_mask = q->mask_set ? q->mask : 0;
		break;
	case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
		cap = q->n && q->n < 64 ? q->n : 64;
		memset(qsnap, 0, sizeof(qsnap));
		a.queue_snapshot.exception_mask = q->mask_set ? q->mask :
			KFD_EC_MASK(EC_QUEUE_NEW);
		a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)qsnap;
		a.queue_snapshot.num_queues = cap;
		a.queue_snapshot.entry_size = sizeof(qsnap[0]);
		break;
	case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
		cap = q->n && q->n < 8 ? q->n : 8;
		a.device_snapshot.exception_mask = q->mask_set ? q->mask : 0;
		a.device_snapshot.snapshot_buf_ptr = (uintptr_t)dsnap;
		a.device_snapshot.num_devices = cap;
		a.device_snapshot.entry_size = sizeof(dsnap[0]);
		break;
	default:
		/* Every member with a mask has it first in the union. */
		if (q->mask_set)
			memcpy((char *)&a + 8, &q->mask, sizeof(q->mask));
		break;
	}

	snprintf(what, sizeof(what), "dbg-%s", dbg_op_name(q->op));
	kfd_call(kfd, AMDKFD_IOC_DBG_TRAP, &a, r, what);

	jl_begin(&j, "dbg");
	jl_str(&j, "op", dbg_op_name(q->op));
	jl_int(&j, "op_nr", q->op);
	jl_int(&j, "pid", q->pid);
	jl_ioc(&j, r);
	switch (q->op) {
	case KFD_IOC_DBG_TRAP_ENABLE:
		jl_hex(&j, "exception_mask", a.enable.exception_mask);
		jl_int(&j, "dbg_fd", q->dbg_fd);
		jl_int(&j, "rinfo_size", a.enable.rinfo_size);
		jl_hex(&j, "r_debug", rinfo.r_debug);
		jl_int(&j, "runtime_state", rinfo.runtime_state);
		jl_int(&j, "ttmp_setup", rinfo.ttmp_setup);
		break;
	case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
	case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
		/* exception_mask is first in both members */
		jl_hex(&j, "exception_mask",
		       a.set_exceptions_enabled.exception_mask);
		break;
	case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
		jl_int(&j, "grace", q->grace);
		/* fall through */
	case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
		jl_int(&j, "num_queues", q->nq);
		jl_hex_array(&j, "qids", q->qids, q->nq);
		break;
	case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
		jl_hex(&j, "exception_mask",
		       a.query_debug_event.exception_mask);
		jl_hex(&j, "gpu_id", a.query_debug_event.gpu_id);
		jl_int(&j, "queue_id", a.query_debug_event.queue_id);
		if (out_mask)
			*out_mask = a.query_debug_event.exception_mask;
		break;
	case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
		n = a.queue_snapshot.num_queues;
		jl_int(&j, "num_queues", n);
		jl_int(&j, "entry_size", a.queue_snapshot.entry_size);
		if (r->ret >= 0) {
			for (i = 0; i < n && i < cap; i++)
				snap_ids[i] = qsnap[i].queue_id;
			jl_hex_array(&j, "snapshot_qids", snap_ids, i);
		}
		break;
	case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
		jl_int(&j, "num_devices", a.device_snapshot.num_devices);
		jl_int(&j, "entry_size", a.device_snapshot.entry_size);
		break;
	}
	jl_end(&j, false);
	return r->ret;
}
