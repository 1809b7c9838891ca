// SPDX-License-Identifier: GPL-2.0
/* Queue placement tables (see qplace.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#include "qplace.h"
#include "queues.h"

int gp_qplace_from_snapshot(const void *buf, uint32_t num,
			    uint32_t cap_entries, uint32_t stride,
			    struct gp_qplace *out, int cap_out)
{
	const size_t need = offsetof(struct kfd_queue_snapshot_entry,
				     queue_type) + sizeof(uint32_t);
	const unsigned char *p = buf;
	int n = 0;

	if (stride < need)
		return -EINVAL;
	if (num > cap_entries)
		num = cap_entries;	/* the kernel wrote no more */
	for (uint32_t i = 0; i < num && n < cap_out; i++) {
		struct kfd_queue_snapshot_entry e = { 0 };

		/* memcpy: the buffer need not be aligned for the struct. */
		memcpy(&e, p + (size_t)i * stride,
		       stride < sizeof(e) ? stride : sizeof(e));
		out[n++] = (struct gp_qplace){
			.queue_id = e.queue_id, .gpu_id = e.gpu_id,
			.type = e.queue_type, .origin = GP_QP_SNAPSHOT,
		};
	}
	return n;
}

struct sysfs_ctx {
	struct gp_qplace *out;
	int cap, n;
};

static int sysfs_row(const struct gp_queue_row *r, void *ctx)
{
	struct sysfs_ctx *c = ctx;

	if (c->n < c->cap)
		c->out[c->n++] = (struct gp_qplace){
			.queue_id = r->k.queue_id, .gpu_id = r->k.gpu_id,
			.type = r->v.type, .origin = GP_QP_SYSFS,
		};
	return 0;
}

int gp_qplace_from_sysfs(const char *root, int pid, struct gp_qplace *out,
			 int cap)
{
	struct gp_scan_opts so = { .root = root, .pids = &pid, .npids = 1 };
	struct sysfs_ctx c = { out, cap, 0 };
	int r = gp_queues_scan(&so, sysfs_row, &c);

	return r < 0 ? r : c.n;
}

static bool on(uint32_t gpu, const uint32_t *gpus, int ngpus)
{
	if (ngpus < 0)
		return true;
	for (int i = 0; i < ngpus; i++)
		if (gpus[i] == gpu)
			return true;
	return false;
}

int gp_qplace_subset(const struct gp_qplace *q, int n, const uint32_t *gpus,
		     int ngpus, uint32_t *ids, int cap)
{
	int k = 0;

	for (int i = 0; i < n && k < cap; i++)
		if (on(q[i].gpu_id, gpus, ngpus))
			ids[k++] = q[i].queue_id;
	return k;
}

int gp_qplace_gpus(const struct gp_qplace *q, int n, uint32_t *gpus, int cap)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		int j = k;

		if (on(q[i].gpu_id, gpus, k))
			continue;
		if (k == cap)
			break;
		/* insertion keeps the set sorted */
		while (j > 0 && gpus[j - 1] > q[i].gpu_id) {
			gpus[j] = gpus[j - 1];
			j--;
		}
		gpus[j] = q[i].gpu_id;
		k++;
	}
	return k;
}
