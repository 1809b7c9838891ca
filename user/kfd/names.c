// SPDX-License-Identifier: GPL-2.0
/* Names of gpreempt's numbers, and the "?<n>" fallback; see names.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/kfd_ioctl.h>
#include <linux/types.h>

#include "gpreempt.h"
#include "names.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NAME(tab, i) ((i) < ARRAY_SIZE(tab) ? (tab)[i] : NULL)

/* Short, at most 8 characters: they are the OP column. */
static const char *const op_names[] = {
	[GP_OP_CREATE] = "create",
	[GP_OP_DESTROY] = "destroy",
	[GP_OP_QUEUE_ADD] = "q_add",
	[GP_OP_QUEUE_DEL] = "q_del",
	[GP_OP_EVICT] = "evict",
	[GP_OP_RESTORE] = "restore",
	[GP_OP_PROC_EVICT] = "p_evict",
	[GP_OP_DBG_TRAP] = "dbg_trap",
	[GP_OP_SUSPEND] = "suspend",
	[GP_OP_RESUME] = "resume",
	[GP_OP_HW_UNMAP] = "hw_unmap",
	[GP_OP_HW_FENCE] = "hw_fence",
	[GP_OP_MES_REMOVE] = "mes_rm",
	[GP_OP_MES_ADD] = "mes_add",
	[GP_OP_EXIT] = "exit",
};

/* enum kfd_queue_type (struct queue, sysfs "type"). */
static const char *const kq_types[] = {
	"compute", "sdma", "hiq", "diq", "sdma_xgmi", "sdma_by_eng_id",
};

/* enum kfd_dbg_trap_operations; JSON names, then the text ones. */
static const char *const dbg_ops[] = {
	"enable", "disable", "send_runtime_event", "set_exceptions_enabled",
	"set_wave_launch_override", "set_wave_launch_mode", "suspend_queues",
	"resume_queues", "set_node_address_watch", "clear_node_address_watch",
	"set_flags", "query_debug_event", "query_exception_info",
	"get_queue_snapshot", "get_device_snapshot",
};

/* At most 7 characters: the text DETAIL column is narrow. */
static const char *const dbg_ops_short[] = {
	"enable", "disable", "rt_ev", "set_exc", "wv_ovr", "wv_mode",
	"suspend", "resume", "set_wp", "clr_wp", "flags", "qry_ev",
	"qry_exc", "q_snap", "d_snap",
};

/* enum KFD_QUEUE_EVICTION_TRIGGERS. */
static const char *const triggers[] = {
	"svm", "userptr", "ttm", "suspend", "criu_checkpoint", "criu_restore",
};

static const char *const qstates[] = {
	[GP_QS_ACTIVE] = "active",
	[GP_QS_EVICTED] = "evicted",
	[GP_QS_SUSPENDED] = "suspended",
	[GP_QS_EVICTED_SUSPENDED] = "evicted_suspended",
};

const char *gp_op_name(__u32 op)
{
	return NAME(op_names, op);
}

const char *gp_kq_type_name(__u32 t)
{
	return NAME(kq_types, t);
}

/* GP_DBG_OP_OTHER: the histogram of every op KFD does not know. */
const char *gp_dbg_op_name(__u32 op)
{
	return op == GP_DBG_OP_OTHER ? "unknown_ops" : NAME(dbg_ops, op);
}

const char *gp_dbg_op_short(__u32 op)
{
	return op == GP_DBG_OP_OTHER ? "unknown" : NAME(dbg_ops_short, op);
}

const char *gp_trigger_name(__u32 trigger)
{
	return NAME(triggers, trigger);
}

const char *gp_qstate_name(__u32 state)
{
	return NAME(qstates, state);
}

const char *gp_origin_name(__u32 origin)
{
	return origin == GP_ORIGIN_SYSFS ? "sysfs" :
	       origin == GP_ORIGIN_BPF ? "bpf" : NULL;
}

/* The ops whose calls the phases are: same names. */
const char *gp_phase_name(__u32 phase)
{
	static const __u32 ops[] = {
		[GP_PHASE_UNMAP] = GP_OP_HW_UNMAP,
		[GP_PHASE_FENCE] = GP_OP_HW_FENCE,
		[GP_PHASE_MES_RM] = GP_OP_MES_REMOVE,
		[GP_PHASE_MES_ADD] = GP_OP_MES_ADD,
	};

	return phase < ARRAY_SIZE(ops) ? gp_op_name(ops[phase]) : NULL;
}

const char *gp_hist_sub_name(__u32 op, __u32 sub)
{
	if (op == GP_OP_DBG_TRAP)
		return gp_dbg_op_name(sub);
	if ((op == GP_OP_SUSPEND || op == GP_OP_RESUME) && sub)
		return gp_phase_name(sub - 1);
	return NULL;
}

const char *gp_errno_name(int err)
{
	if (err < 0)
		err = -err;
	return err ? strerrorname_np(err) : NULL;
}

const char *names_or_num(const char *name, uint32_t n, char *buf,
			 size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "?%u", n);
	return buf;
}

const char *names_ioc_queue_type(uint32_t type)
{
	switch (type) {
	case KFD_IOC_QUEUE_TYPE_COMPUTE: return "compute";
	case KFD_IOC_QUEUE_TYPE_SDMA: return "sdma";
	case KFD_IOC_QUEUE_TYPE_COMPUTE_AQL: return "compute_aql";
	case KFD_IOC_QUEUE_TYPE_SDMA_XGMI: return "sdma_xgmi";
	case KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID: return "sdma_by_eng_id";
	}
	return NULL;
}

char *gp_fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else if (v && !(v % 1024))
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}
