// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the live dumps (or fixture copies) and the arbiter's view,
 * gp_mqd_read_addrs: debugfs mqds + hqds, topology for the layouts,
 * sysfs for unambiguous queue ids (see mqd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mqd.h"
#include "queues.h"
#include "topo.h"

int gp_mqd_slurp(const char *path, char **text)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd, err;

	*text = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(buf);
		return err;
	}
	for (;;) {
		if (cap - len < 4097) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto fail;
		}
		if (!r)
			break;
		len += r;
	}
	close(fd);
	buf[len] = 0;
	*text = buf;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}

/* Topology -> (gpu_id, gfx) arrays; count (0 when unreadable). */
static size_t gpu_table(const char *root, uint32_t **ids, uint32_t **gfx)
{
	struct gp_topo_node *t = NULL;
	int n = gp_topo_read(root, &t);
	size_t k = 0;

	*ids = *gfx = NULL;
	if (n > 0) {
		*ids = calloc(n, sizeof(**ids));
		*gfx = calloc(n, sizeof(**gfx));
		for (int i = 0; *ids && *gfx && i < n; i++)
			if (t[i].gpu_id) {
				(*ids)[k] = t[i].gpu_id;
				(*gfx)[k++] = t[i].gfx_target_version;
			}
	}
	free(t);
	return k;
}

/* sysfs queue rows -> ids by the rules of gp_mqd_assign_ids. */
static void assign_from_sysfs(struct gp_mqd_dump *d, const char *root)
{
	struct gp_scan_opts so = { .root = root };
	struct gp_queue_row *rows = NULL;
	int n = gp_queues_scan_array(&so, &rows);
	int *pids;
	uint32_t *gpus, *ids, *types;

	if (n <= 0)
		return;
	pids = calloc(n, sizeof(*pids));
	gpus = calloc(n, sizeof(*gpus));
	ids = calloc(n, sizeof(*ids));
	types = calloc(n, sizeof(*types));
	if (pids && gpus && ids && types) {
		for (int i = 0; i < n; i++) {
			pids[i] = rows[i].k.pid;
			gpus[i] = rows[i].k.gpu_id;
			ids[i] = rows[i].k.queue_id;
			types[i] = rows[i].v.type;
		}
		gp_mqd_assign_ids(d, pids, gpus, ids, types, n);
	}
	free(pids);
	free(gpus);
	free(ids);
	free(types);
	free(rows);
}

int gp_mqd_read_addrs(const struct gp_mqd_paths *p, struct gp_mqd_addr **out,
		      int *undecoded)
{
	struct gp_mqd_paths none = {};
	struct gp_mqd_dump m;
	struct gp_hqd_dump h = {};
	uint32_t *ids, *gfx;
	size_t ng, i, k = 0;
	char *text = NULL;
	int r;

	*out = NULL;
	if (undecoded)
		*undecoded = 0;
	if (!p)
		p = &none;
	r = gp_mqd_slurp(p->mqds ? p->mqds : GP_DEBUGFS_MQDS, &text);
	if (r)
		return r;
	r = gp_mqds_parse(text, &m);
	free(text);
	if (r)
		goto out;
	ng = gpu_table(p->topology, &ids, &gfx);
	gp_mqd_apply_layouts(&m, ids, gfx, ng);
	if (!gp_mqd_slurp(p->hqds ? p->hqds : GP_DEBUGFS_HQDS, &text)) {
		if (!gp_hqds_parse(text, &h)) {
			gp_hqd_apply_layouts(&h, ids, gfx, ng);
			gp_mqd_match_hqds(&m, &h);
		}
		free(text);
	}
	free(ids);
	free(gfx);
	assign_from_sysfs(&m, p->proc);
	*out = calloc(m.nq ? m.nq : 1, sizeof(**out));
	if (!*out) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < m.nq; i++) {
		const struct gp_mqd_queue *q = &m.q[i];
		struct gp_mqd_addr *a = &(*out)[k];

		if (q->kind != GP_MQD_COMPUTE)
			continue;
		if (!q->decoded) {
			if (undecoded)
				(*undecoded)++;
			continue;
		}
		a->pid = q->pid;
		a->gpu_id = q->gpu_id;
		a->queue_id = q->queue_id;
		a->layout = q->layout;
		a->ring_base = q->f.ring_base;
		a->ring_size = q->f.ring_size;
		a->rptr_report_addr = q->f.rptr_report_addr;
		a->wptr_poll_addr = q->f.wptr_poll_addr;
		a->doorbell_offset = q->f.doorbell_offset;
		a->active = q->f.active;
		a->on_hqd = q->on_hqd;
		k++;
	}
	r = k;
out:
	gp_hqd_dump_free(&h);
	gp_mqd_dump_free(&m);
	return r;
}
