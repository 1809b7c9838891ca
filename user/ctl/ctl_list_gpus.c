// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl list`'s per-GPU rows: each GPU that has KFD queues, named
 * the way the topology names it (gpu_id, node, PCI address, partition,
 * render node: gp_topo_label), with its queue and process counts. The
 * queue rows above it carry the gpu_id to join on. HIP and ROCr device
 * indices are never used (HIP_/ROCR_VISIBLE_DEVICES renumber them per
 * process).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ctl_cmd.h"
#include "json.h"
#include "queues.h"
#include "text.h"
#include "topo.h"

struct gpu_sum {
	uint32_t gpu_id;
	int queues, procs;
};

/* The distinct gpu_ids of rows with their counts, in first-seen order. */
static int sum_gpus(const struct gp_queue_row *rows, int n,
		    struct gpu_sum *s)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		int k, j;

		for (k = 0; k < m && s[k].gpu_id != rows[i].k.gpu_id; k++)
			;
		if (k == m)
			s[m++] = (struct gpu_sum){ .gpu_id = rows[i].k.gpu_id };
		s[k].queues++;
		/* a process counts once per GPU: its first row there */
		for (j = 0; j < i; j++)
			if (rows[j].k.pid == rows[i].k.pid &&
			    rows[j].k.gpu_id == rows[i].k.gpu_id)
				break;
		s[k].procs += j == i;
	}
	return m;
}

void ctl_list_gpus(const struct ctl_out *o, const struct gp_queue_row *rows,
		   int n, const char *topology)
{
	struct gp_topo_node *nodes = NULL;
	struct gpu_sum *s;
	int m, nn;

	if (n <= 0)
		return;
	s = calloc(n, sizeof(*s));
	if (!s)
		return;
	m = sum_gpus(rows, n, s);
	nn = gp_topo_read(topology, &nodes);
	if (!o->json)
		printf("\n%-64s %6s %6s\n", "GPU", "QUEUES", "PROCS");
	for (int i = 0; i < m; i++) {
		const struct gp_topo_node *t = nn > 0 ?
			gp_topo_find(nodes, nn, s[i].gpu_id) : NULL;
		char label[128];
		struct json j;

		if (t)
			gp_topo_label(t, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "gpu_id %u (not in the "
				 "topology)", s[i].gpu_id);
		if (!o->json) {
			printf("%-64s %6d %6d\n", label, s[i].queues,
			       s[i].procs);
			continue;
		}
		json_begin(&j, stdout);
		json_str(&j, "type", "gpu");
		json_u64(&j, "gpu_id", s[i].gpu_id);
		if (t) {
			json_u64(&j, "node", t->node);
			json_u64(&j, "render_minor", t->drm_render_minor);
		}
		json_str(&j, "name", label);
		json_u64(&j, "queues", s[i].queues);
		json_u64(&j, "processes", s[i].procs);
		json_end(&j);
	}
	free(nodes);
	free(s);
	fflush(stdout);
}
