// SPDX-License-Identifier: GPL-2.0
/*
 * KFD debugfs MQD/HQD dump parsers (see mqd.h for the format and its
 * sources, docs/snapshot.md for the citations). What the words of one
 * MQD mean, per ASIC family, is mqd_layout.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqd.h"

/* Grow *v (of *cap elements of size sz) to hold n + 1. */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	void *nv;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 8;
	nv = realloc(*v, *cap * sz);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

/*
 * "    %.8x: " then up to max "%8.8x" words. Returns the number of words
 * (>= 1) with the offset in *off, or 0 when the line is not a dump row.
 */
static int hex_row(const char *s, uint32_t *off, uint32_t *w, int max)
{
	unsigned int n = 0;
	char *end;

	if (strncmp(s, "    ", 4) || !isxdigit((unsigned char)s[4]))
		return 0;
	s += 4;
	*off = strtoul(s, &end, 16);
	if (end - s != 8 || end[0] != ':' || end[1] != ' ')
		return 0;
	s = end + 1;
	while (*s == ' ' && (int)n < max) {
		s++;
		if (!isxdigit((unsigned char)*s))
			return 0;	/* strtoul would take a sign or blanks */
		w[n] = strtoul(s, &end, 16);
		if (end - s != 8)
			return 0;
		s = end;
		n++;
	}
	return *s ? 0 : (int)n;
}

static void unknown(unsigned int *count, unsigned int *first,
		    unsigned int line)
{
	if (!(*count)++)
		*first = line;
}

int gp_mqds_parse(const char *text, struct gp_mqd_dump *d)
{
	size_t pcap = 0, qcap = 0, wcap = 0;
	struct gp_mqd_queue *cur = NULL;
	struct gp_mqd_proc *proc = NULL;
	unsigned int lineno = 0;
	const char *p = text;
	char line[512], pasid[16];
	uint32_t off, w[8], gpu;
	int pid, t, nw;

	memset(d, 0, sizeof(*d));
	while (*p) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		lineno++;
		if (!line[0])
			continue;
		if (sscanf(line, "Process %d PASID %15[^:]:", &pid, pasid) == 2) {
			if (grow((void **)&d->procs, &pcap, d->nprocs,
				 sizeof(*d->procs)))
				return -ENOMEM;
			proc = &d->procs[d->nprocs++];
			memset(proc, 0, sizeof(*proc));
			proc->pid = pid;
			snprintf(proc->pasid, sizeof(proc->pasid), "%s", pasid);
			proc->first = d->nq;
			cur = NULL;
			continue;
		}
		if (proc && !strncmp(line, "  ", 2) && line[2] != ' ') {
			enum gp_mqd_kind k;

			t = -1;
			if (sscanf(line, "  Compute queue on device %x", &gpu) == 1)
				k = GP_MQD_COMPUTE;
			else if (sscanf(line, "  SDMA queue on device %x", &gpu) == 1)
				k = GP_MQD_SDMA;
			else if (sscanf(line, "  DIQ on device %x", &gpu) == 1)
				k = GP_MQD_DIQ;
			else if (sscanf(line, "  Bad user queue type %d on device %x",
					&t, &gpu) == 2 ||
				 sscanf(line, "  Bad kernel queue type %d on device %x",
					&t, &gpu) == 2)
				k = GP_MQD_BAD;
			else {
				unknown(&d->unknown_lines, &d->first_unknown,
					lineno);
				cur = NULL;
				continue;
			}
			if (grow((void **)&d->q, &qcap, d->nq, sizeof(*d->q)))
				return -ENOMEM;
			cur = &d->q[d->nq++];
			memset(cur, 0, sizeof(*cur));
			cur->pid = proc->pid;
			memcpy(cur->pasid, proc->pasid, sizeof(cur->pasid));
			cur->gpu_id = gpu;
			cur->kind = k;
			cur->bad_type = t;
			cur->index = proc->nq++;
			cur->queue_id = -1;
			cur->hqd_inst = cur->hqd_pipe = cur->hqd_queue = -1;
			wcap = 0;
			if (k == GP_MQD_BAD)
				cur = NULL;	/* the kernel prints no dump */
			continue;
		}
		nw = hex_row(line, &off, w, 8);
		/* rows must continue the current dump exactly */
		if (cur && nw && off == cur->ndw * 4) {
			if (cur->ndw + nw > wcap) {
				uint32_t *nd;

				wcap = wcap ? 2 * wcap : 512;
				while (wcap < cur->ndw + nw)
					wcap *= 2;
				nd = realloc(cur->dw, wcap * sizeof(*nd));
				if (!nd)
					return -ENOMEM;
				cur->dw = nd;
			}
			memcpy(cur->dw + cur->ndw, w, nw * sizeof(*w));
			cur->ndw += nw;
			continue;
		}
		unknown(&d->unknown_lines, &d->first_unknown, lineno);
	}
	return 0;
}

void gp_mqd_dump_free(struct gp_mqd_dump *d)
{
	for (size_t i = 0; i < d->nq; i++)
		free(d->q[i].dw);
	free(d->q);
	free(d->procs);
	memset(d, 0, sizeof(*d));
}

static int hqd_add_reg(struct gp_hqd *h, size_t *cap, uint32_t a, uint32_t v)
{
	if (grow((void **)&h->regs, cap, h->nregs, sizeof(*h->regs)))
		return -ENOMEM;
	h->regs[h->nregs][0] = a;
	h->regs[h->nregs][1] = v;
	h->nregs++;
	return 0;
}

int gp_hqds_parse(const char *text, struct gp_hqd_dump *d)
{
	size_t ncap = 0, hcap = 0, rcap = 0;
	struct gp_hqd_node *node = NULL;
	struct gp_hqd *cur = NULL;
	unsigned int lineno = 0, nn;
	const char *p = text;
	char line[512];
	uint32_t off, w[8], gpu;
	int a, b, c, e, nw, i;

	memset(d, 0, sizeof(*d));
	while (*p) {
		size_t len = strcspn(p, "\n");
		struct gp_hqd h = { .inst = -1, .mec = -1 };
		bool slot = false;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		lineno++;
		if (!line[0])
			continue;
		if (sscanf(line, "Node %u, gpu_id %x:", &nn, &gpu) == 2) {
			if (grow((void **)&d->nodes, &ncap, d->nnodes,
				 sizeof(*d->nodes)))
				return -ENOMEM;
			node = &d->nodes[d->nnodes++];
			node->node = nn;
			node->gpu_id = gpu;
			node->stopped = false;
			cur = NULL;
			continue;
		}
		if (node && !strcmp(line, " Device is stopped")) {
			node->stopped = true;
			cur = NULL;
			continue;
		}
		if (node && sscanf(line, "   Inst %d, HIQ on MEC %d Pipe %d "
				   "Queue %d", &e, &a, &b, &c) == 4) {
			h.inst = e, h.kind = GP_HQD_HIQ, h.mec = a;
			h.pipe = b, h.queue = c, slot = true;
		} else if (node && sscanf(line, "  HIQ on MEC %d Pipe %d "
					  "Queue %d", &a, &b, &c) == 3) {
			h.kind = GP_HQD_HIQ, h.mec = a, h.pipe = b;
			h.queue = c, slot = true;
		} else if (node && sscanf(line, " Inst %d,  CP Pipe %d, Queue %d",
					  &e, &b, &c) == 3) {
			h.inst = e, h.kind = GP_HQD_CP, h.pipe = b;
			h.queue = c, slot = true;
		} else if (node && sscanf(line, "  CP Pipe %d, Queue %d",
					  &b, &c) == 2) {
			h.kind = GP_HQD_CP, h.pipe = b, h.queue = c, slot = true;
		} else if (node && sscanf(line, "  SDMA Engine %d, RLC %d",
					  &b, &c) == 2) {
			h.kind = GP_HQD_SDMA, h.pipe = b, h.queue = c;
			slot = true;
		}
		if (slot) {
			if (grow((void **)&d->h, &hcap, d->n, sizeof(*d->h)))
				return -ENOMEM;
			h.node = node->node;
			h.gpu_id = node->gpu_id;
			cur = &d->h[d->n++];
			*cur = h;
			rcap = 0;
			continue;
		}
		nw = hex_row(line, &off, w, 8);
		if (cur && nw) {
			for (i = 0; i < nw; i++)
				if (hqd_add_reg(cur, &rcap, off + 4 * i, w[i]))
					return -ENOMEM;
			continue;
		}
		unknown(&d->unknown_lines, &d->first_unknown, lineno);
	}
	return 0;
}

void gp_hqd_dump_free(struct gp_hqd_dump *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->h[i].regs);
	free(d->h);
	free(d->nodes);
	memset(d, 0, sizeof(*d));
}

static enum gp_mqd_layout layout_of(uint32_t gpu_id, const uint32_t *ids,
				    const uint32_t *gfx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == gpu_id)
			return gp_mqd_layout_for_gfx(gfx[i]);
	return GP_MQD_RAW;
}

int gp_mqd_apply_layouts(struct gp_mqd_dump *d, const uint32_t *gpu_ids,
			 const uint32_t *gfx, size_t ngpus)
{
	int n = 0;

	for (size_t i = 0; i < d->nq; i++) {
		struct gp_mqd_queue *q = &d->q[i];

		q->layout = GP_MQD_RAW;
		q->decoded = false;
		if (q->kind != GP_MQD_COMPUTE)
			continue;	/* SDMA MQDs: shown raw */
		q->layout = layout_of(q->gpu_id, gpu_ids, gfx, ngpus);
		q->decoded = !gp_mqd_decode(q->dw, q->ndw, q->layout, &q->f);
		n += q->decoded;
	}
	return n;
}

int gp_hqd_apply_layouts(struct gp_hqd_dump *d, const uint32_t *gpu_ids,
			 const uint32_t *gfx, size_t ngpus)
{
	int n = 0;
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct gp_hqd *h = &d->h[i];

		h->layout = h->kind == GP_HQD_SDMA ? GP_MQD_RAW :
			    layout_of(h->gpu_id, gpu_ids, gfx, ngpus);
		h->decoded = !gp_hqd_decode((const uint32_t (*)[2])h->regs,
					    h->nregs, h->layout, &h->f);
		n += h->decoded;
	}
	return n;
}

int gp_mqd_match_hqds(struct gp_mqd_dump *m, const struct gp_hqd_dump *h)
{
	int n = 0;

	for (size_t i = 0; i < m->nq; i++) {
		struct gp_mqd_queue *q = &m->q[i];

		q->on_hqd = false;
		if (!q->decoded)
			continue;
		for (size_t j = 0; j < h->n; j++) {
			const struct gp_hqd *s = &h->h[j];

			if (s->kind != GP_HQD_CP || !s->decoded ||
			    !s->f.active || s->gpu_id != q->gpu_id ||
			    s->f.ring_base != q->f.ring_base ||
			    s->f.rptr_report_addr != q->f.rptr_report_addr ||
			    s->f.wptr_poll_addr != q->f.wptr_poll_addr)
				continue;
			q->on_hqd = true;
			q->hqd_inst = s->inst;
			q->hqd_pipe = s->pipe;
			q->hqd_queue = s->queue;
			n++;
			break;
		}
	}
	return n;
}

/* enum kfd_queue_type (kfd_priv.h) -> the debugfs kind it prints as. */
static int kind_of_type(uint32_t t)
{
	switch (t) {
	case 0:
		return GP_MQD_COMPUTE;
	case 1: case 4: case 5:
		return GP_MQD_SDMA;
	case 3:
		return GP_MQD_DIQ;
	}
	return -1;
}

int gp_mqd_assign_ids(struct gp_mqd_dump *d, const int *pids,
		      const uint32_t *gpus, const uint32_t *ids,
		      const uint32_t *types, size_t n)
{
	int set = 0;

	for (size_t i = 0; i < d->nq; i++) {
		struct gp_mqd_queue *q = &d->q[i];
		size_t j, ns = 0, nm = 0, hit = 0;

		q->queue_id = -1;
		for (j = 0; j < n; j++)
			if (pids[j] == q->pid && gpus[j] == q->gpu_id &&
			    kind_of_type(types[j]) == (int)q->kind) {
				ns++;
				hit = j;
			}
		for (j = 0; j < d->nq; j++)
			if (d->q[j].pid == q->pid &&
			    d->q[j].gpu_id == q->gpu_id &&
			    d->q[j].kind == q->kind)
				nm++;
		if (ns == 1 && nm == 1) {
			q->queue_id = ids[hit];
			set++;
		}
	}
	return set;
}
