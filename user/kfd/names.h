/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One home for the names of gpreempt's numbers (trace events, queue
 * types, queue states, debug-trap ops, eviction triggers, errnos) and for
 * the "?<n>" shown when a number has no name. Pure; used by the tracer's
 * output, the queue table, the histograms and the CLI.
 *
 *	char b[NAMES_NUM_LEN];
 *	printf("%s", names_or_num(gp_op_name(op), op, b, sizeof(b)));
 */
#ifndef GP_NAMES_H
#define GP_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* Room for "?4294967295" and its NUL. */
#define NAMES_NUM_LEN 12

/* name if not NULL, else "?<n>" written into buf (NAMES_NUM_LEN bytes). */
const char *names_or_num(const char *name, uint32_t n, char *buf,
			 size_t len);

/*
 * The ioctl's queue types (KFD_IOC_QUEUE_TYPE_*: "compute", "sdma",
 * "compute_aql", "sdma_xgmi", "sdma_by_eng_id"), NULL when unknown.
 */
const char *names_ioc_queue_type(uint32_t type);


/* Names; NULL when the number is unknown (see gp_name_or_num). */
const char *gp_op_name(__u32 op);		/* "create", "suspend" */
const char *gp_kq_type_name(__u32 t);		/* enum kfd_queue_type */
const char *gp_dbg_op_name(__u32 op);		/* "suspend_queues" */
const char *gp_dbg_op_short(__u32 op);		/* "suspend" (<= 7 chars) */
const char *gp_trigger_name(__u32 trigger);	/* "ttm", "criu_restore" */
const char *gp_qstate_name(__u32 state);	/* "active", "evicted" */
const char *gp_origin_name(__u32 origin);	/* "sysfs", "bpf" */
const char *gp_phase_name(__u32 phase);		/* "hw_unmap", "mes_rm" */
/* The sub-key's name for a histogram of op (dbg op, phase), or NULL. */
const char *gp_hist_sub_name(__u32 op, __u32 sub);
/* "EINVAL" for 22 or -22; NULL if unknown. */
const char *gp_errno_name(int err);

/* Ring sizes are powers of two in practice: 4096 -> "4K", 2^20 -> "1M". */
char *gp_fmt_size(char *buf, size_t len, uint64_t bytes);


#endif
