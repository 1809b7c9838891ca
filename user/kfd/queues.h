/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PID -> queue table.
 *
 * 1. Seeding: KFD publishes every queue in sysfs as
 *    <root>/<pid>/queues/<qid>/{gpuid,type,size} (root defaults to
 *    KFD_SYSFS_PROC; pid = the host tgid, type = enum kfd_queue_type,
 *    size = ring bytes; kfd_process.c, kfd_procfs_queue_show). The scan is
 *    plain file reading (L0-tested on fixture trees); a process or queue
 *    that vanishes while it is read (ENOENT/ENODEV/ESRCH) is skipped, not
 *    an error. Rows come out with origin GP_ORIGIN_SYSFS, state active,
 *    created_ns 0.
 * 2. The BPF map: gp_queues_seed() writes the scan into the tracer's map;
 *    gp_queues_collect() reads any map of this layout (the tracer's own fd,
 *    or the pin at GP_PIN_QUEUES through gp_queues_open_pinned(), which is
 *    what gpreempt-ctl list uses while a tracer runs).
 * 3. Printing: text (under 80 columns) or NDJSON, one object per row:
 *    {"type":"queue","pid":N,"gpu_id":N,"queue_id":N,
 *     "queue_type":"compute","queue_type_raw":0,"priority":N,
 *     "ring_size_bytes":N,"state":"active","origin":"sysfs",
 *     "created_boot_ns":N,"changed_boot_ns":N,"evictions":N,
 *     "restores":N,"suspends":N,"resumes":N}
 *    (created_boot_ns is 0 for rows seeded from sysfs: creation predates
 *    the tracer). In text mode an empty table prints one line saying so.
 */
#ifndef GP_QUEUES_H
#define GP_QUEUES_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "gpreempt.h"
#include "names.h"
#include "outopts.h"

struct gp_queue_row {
	struct gp_queue_key k;
	struct gp_queue_val v;
};

/* Return nonzero to stop the scan (gp_queues_scan returns that value). */
typedef int (*gp_queue_cb)(const struct gp_queue_row *r, void *ctx);

struct gp_scan_opts {
	const char *root;	/* NULL: KFD_SYSFS_PROC */
	const int *pids;	/* only these host pids; npids 0: all */
	int npids;
	/*
	 * Test hook: called with the queue directory's path just before its
	 * files are read, so a test can delete the directory mid-walk.
	 */
	void (*before_queue)(const char *qdir, void *hook_ctx);
	void *hook_ctx;
	/* Out: queue rows skipped because they vanished mid-read
	 * (ENOENT/ENODEV/ESRCH), or were unreadable (EPERM under a device
	 * cgroup, unparsable content). */
	int vanished;
	int unreadable;
};

/*
 * Walk the sysfs tree; cb once per complete queue, in (pid, qid) order.
 * Returns the number of rows, cb's nonzero value, or -errno when the root
 * itself cannot be read (-ENOENT: no KFD process directory at all).
 */
int gp_queues_scan(struct gp_scan_opts *so, gp_queue_cb cb, void *ctx);

/*
 * Parse one sysfs value file's content ("123", maybe "\n"-terminated).
 * 0 or -EINVAL. Exposed for tests.
 */
int gp_parse_sysfs_u64(const char *s, __u64 *out);

/* The scan into an array (malloc'd, caller frees); count or -errno. */
int gp_queues_scan_array(struct gp_scan_opts *so, struct gp_queue_row **rows);

/*
 * Seed the tracer's map from KFD_SYSFS_PROC, BPF_NOEXIST (a row BPF already
 * wrote wins). Returns rows written or -errno.
 */
int gp_queues_seed(int map_fd, const int *pids, int npids);
int gp_queues_seed_from(int map_fd, struct gp_scan_opts *so);
/*
 * After seeding, index every row of queues_fd as BPF does for the rows it
 * adds: its pid into the owners set (gp_owners: the exit hook walks the
 * queue map only for pids in it) and (pid, queue_id) -> gpu_id into
 * gp_qidx (suspend, resume and destroy find rows by id through it).
 * Returns rows visited or -errno.
 */
int gp_queues_index(int queues_fd, int owners_fd, int qidx_fd);

/*
 * fd of the pinned map (bpf_obj_get(GP_PIN_QUEUES)), or -errno: -ENOENT
 * no tracer running; -ESTALE the pin outlived its tracer (killed with
 * SIGKILL: no BPF program updates the map any more, its rows are old).
 */
int gp_queues_open_pinned(void);
int gp_queues_open_pinned_at(const char *path);
/*
 * 1 if a loaded BPF program uses the map (a tracer keeps it current), 0
 * if none does, -errno. Listing programs needs CAP_SYS_ADMIN; without it
 * the answer is 1 (cannot tell, so trusted).
 */
int gp_map_in_use(int map_fd);

/* All rows of a map, sorted by (pid, gpu_id, queue_id); count or -errno. */
int gp_queues_collect(int map_fd, struct gp_queue_row **rows);

/* Sorting and printing, independent of where the rows came from. */
void gp_queues_sort(struct gp_queue_row *rows, size_t n);
void gp_queue_row_header(FILE *f);
void gp_queue_row_text(FILE *f, const struct gp_queue_row *r);
void gp_queue_row_json(FILE *f, const struct gp_queue_row *r);
void gp_queue_rows_print(FILE *f, const struct gp_queue_row *rows, size_t n,
			 const struct gp_out_opts *o);

/* gp_queues_collect + gp_queue_rows_print; rows printed or -errno. */
int gp_queues_print(FILE *f, int map_fd, const struct gp_out_opts *o);

#endif
