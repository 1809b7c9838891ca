/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue placement: which GPU (gpu_id) each KFD queue of a process is on,
 * from any of the three places the kernel says it:
 *  - the tracer's CREATE_QUEUE events (gpu_id is an argument of the ioctl);
 *  - sysfs, <root>/<pid>/queues/<qid>/{gpuid,type,size} (kfd_process.c,
 *    kfd_procfs_queue_show; root defaults to /sys/class/kfd/kfd/proc), for
 *    queues created before any tracer ran;
 *  - GET_QUEUE_SNAPSHOT on a process the daemon holds (struct
 *    kfd_queue_snapshot_entry: queue_id, gpu_id, queue_type per entry).
 * Queue ids are unique per process (one id bitmap per process, not per
 * GPU), so a (pid, queue_id) pair names one queue on one GPU, and a
 * SUSPEND_QUEUES of any subset of ids touches only the GPUs that hold
 * them (kfd_device_queue_manager.c suspend_queues(), 6.12).
 * Pure tables, no I/O but gp_qplace_from_sysfs().
 */
#ifndef GP_QPLACE_H
#define GP_QPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gp_qp_origin { GP_QP_TRACER, GP_QP_SYSFS, GP_QP_SNAPSHOT };

struct gp_qplace {
	uint32_t queue_id;
	uint32_t gpu_id;
	uint32_t type;		/* KFD_IOC_QUEUE_TYPE_* */
	uint8_t suspended;	/* as far as we know */
	uint8_t origin;		/* enum gp_qp_origin */
};

/*
 * Decode a GET_QUEUE_SNAPSHOT buffer: num entries (the kernel's count,
 * clipped to the capacity cap_entries the buffer was sized for), strided by
 * stride bytes (the entry_size the caller passed in: the kernel fills
 * only the bytes it knows and leaves the stride). Returns the rows
 * written to out (at most cap_out), or -EINVAL when stride is smaller
 * than the fields this needs.
 */
int gp_qplace_from_snapshot(const void *buf, uint32_t num,
			    uint32_t cap_entries, uint32_t stride,
			    struct gp_qplace *out, int cap_out);

/* The sysfs rows of one pid (root NULL: the real tree); count or -errno. */
int gp_qplace_from_sysfs(const char *root, int pid, struct gp_qplace *out,
			 int cap);

/*
 * The queue ids of q[0..n) that sit on one of gpus[0..ngpus) (ngpus < 0:
 * every GPU), in table order, into ids (cap entries). Count.
 */
int gp_qplace_subset(const struct gp_qplace *q, int n, const uint32_t *gpus,
		     int ngpus, uint32_t *ids, int cap);

/* The distinct gpu_ids of q[0..n), ascending, into gpus; count. */
int gp_qplace_gpus(const struct gp_qplace *q, int n, uint32_t *gpus,
		   int cap);

#endif
