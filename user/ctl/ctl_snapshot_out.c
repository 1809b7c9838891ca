// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl snapshot` output: text (under 80 columns) and NDJSON,
 * one object per line:
 *   {"type":"snapshot","root":..,"sched_policy":N,"gpus":N,
 *    "processes":N,"queues":N,"live":bool,"mqds":"ok"|errno name,
 *    "hqds":..}
 *   {"type":"gpu","node":N,"gpu_id":N,"name":..,"gfx":"gfx90a",
 *    "gfx_target_version":N,"cus":N,"num_xcc":N,"fw_version":N,
 *    "sdma_fw_version":N,"debug_fw":bool,"debug_trap":bool,
 *    "mqd_layout":"v9"|"raw"}
 *   {"type":"process","pid":N,"ns_pid":N,"uid":N,"comm":..,
 *    "cgroup":..,"queues":N}
 *   {"type":"queue",...}            (queues.h, sysfs + live state)
 *   {"type":"mqd","pid":N,"pasid":..,"gpu_id":N,"index":N,
 *    "queue_id":N|-1,"kind":..,"layout":..,"words":N,"decoded":bool,
 *    decoded: "active","vmid","pipe_priority","queue_priority",
 *    "ring_base","ring_size_bytes","rptr","wptr","rptr_report_addr",
 *    "wptr_poll_addr","doorbell_offset","doorbell_enabled","on_hqd",
 *    and "inst","pipe","queue" when on_hqd; undecoded with -v: "raw"}
 *   {"type":"hqd","node":N,"gpu_id":N,"inst":N,"kind":"hiq"|"cp"|
 *    "sdma","pipe":N,"queue":N,"registers":N,"decoded":bool,
 *    "active":bool,"ring_base":..,"rptr_report_addr":..,
 *    "wptr_poll_addr":..}   (CP/HIQ slots; every slot with -v)
 *   {"type":"hqd_node","node":N,"gpu_id":N,"stopped":bool}
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_snapshot.h"
#include "json.h"
#include "names.h"
#include "output.h"
#include "text.h"

static const char *policy_name(int p)
{
	switch (p) {
	case 0: return "HWS";
	case 1: return "HWS, no oversubscription";
	case 2: return "no HWS: debug-trap suspend refused";
	}
	return "unknown";
}

static const char *err_name(int e)
{
	return e ? strerrorname_np(-e) : "ok";
}

/* Why a debugfs dump is missing, and what to do (two short lines). */
static void debugfs_hint(FILE *f, const char *what, int e)
{
	switch (-e) {
	case ENOENT:
		fprintf(f, "%s: none: debugfs is not mounted or the kernel has "
			"no CONFIG_DEBUG_FS\n  (mount -t debugfs none "
			"/sys/kernel/debug)\n", what);
		return;
	case EACCES:
	case EPERM:
		fprintf(f, "%s: none: debugfs is root only (run with sudo)\n",
			what);
		return;
	}
	fprintf(f, "%s: none: %s\n", what, strerror(-e));
}

static int gpus(const struct snap *s)
{
	int n = 0;

	for (int i = 0; i < s->nnodes; i++)
		n += !!s->nodes[i].gpu_id;
	return n;
}

static int mqd_decoded(const struct snap *s)
{
	int n = 0;

	for (size_t i = 0; i < s->m.nq; i++)
		n += s->m.q[i].decoded;
	return n;
}

static void text_topology(FILE *f, const struct snap *s)
{
	char gfx[16];

	if (s->nnodes < 0) {
		fprintf(f, "KFD topology: unreadable (%s)\n",
			err_name(s->nnodes));
		return;
	}
	fprintf(f, "KFD topology: %d node%s, %d GPU%s\n", s->nnodes,
		s->nnodes == 1 ? "" : "s", gpus(s), gpus(s) == 1 ? "" : "s");
	if (s->sched_policy >= 0)
		fprintf(f, "amdgpu sched_policy %d (%s)\n", s->sched_policy,
			policy_name(s->sched_policy));
	else
		fprintf(f, "amdgpu sched_policy unknown (%s)\n",
			err_name(s->sched_policy));
	if (!gpus(s)) {
		fprintf(f, "  no GPU node: KFD lists CPUs only\n");
		return;
	}
	fprintf(f, "%-4s %-7s %-13s %-8s %4s %3s %5s %4s %-5s %s\n", "NODE",
		"GPU_ID", "NAME", "GFX", "CUS", "XCC", "MECFW", "SDMA",
		"DEBUG", "MQD");
	for (int i = 0; i < s->nnodes; i++) {
		const struct gp_topo_node *n = &s->nodes[i];

		if (!n->gpu_id)
			continue;
		fprintf(f, "%-4u %-7u %-13.13s %-8s %4u %3u %5u %4u %-5s %s\n",
			n->node, n->gpu_id, n->name,
			gp_topo_gfx_name(n->gfx_target_version, gfx,
					 sizeof(gfx)),
			n->cu_count, n->num_xcc, n->fw_version,
			n->sdma_fw_version, n->debug_fw ? "yes" : "no",
			gp_mqd_layout_name(gp_mqd_layout_for_gfx(
				n->gfx_target_version)));
	}
}

static void text_procs(FILE *f, const struct snap *s)
{
	char uid[16], ns[16], comm[32], tcomm[32];

	fprintf(f, "\n");
	if (s->nprocs < 0) {
		fprintf(f, "KFD processes: unreadable (%s)\n",
			err_name(s->nprocs));
		return;
	}
	if (!s->nprocs) {
		fprintf(f, "KFD processes: none\n");
		return;
	}
	fprintf(f, "%-8s %-7s %-6s %-15s %6s %s\n", "PID", "NSPID", "UID",
		"COMM", "QUEUES", "CGROUP");
	for (int i = 0; i < s->nprocs; i++) {
		const struct snap_proc *p = &s->procs[i];
		size_t cl = strlen(p->cgroup);

		/* a process names itself: no control character reaches
		 * the terminal (as in `list`; JSON escapes them) */
		gp_text_safe(comm, sizeof(comm), p->comm, sizeof(p->comm));
		gp_text_safe(tcomm, sizeof(tcomm), p->tracer_comm,
			     sizeof(p->tracer_comm));
		snprintf(uid, sizeof(uid), p->uid < 0 ? "?" : "%ld", p->uid);
		snprintf(ns, sizeof(ns), p->ns_pid ? "%d" : "?", p->ns_pid);
		/* keep the line under 80 columns: the cgroup's tail says
		 * most (the pod or the unit) */
		fprintf(f, "%-8d %-7s %-6s %-15.15s %6d %s%s\n", p->pid, ns,
			uid, comm, p->queues, cl > 30 ? "..." : "",
			cl > 30 ? p->cgroup + cl - 27 : cl ? p->cgroup : "-");
		if (p->tracer > 0)
			fprintf(f, "%-8s held (ptrace) by %d (%s)\n", "", p->tracer,
				tcomm[0] ? tcomm : "?");
	}
}

static void text_mqd(FILE *f, const struct gp_mqd_queue *q, bool verbose)
{
	char qid[16], slot[40] = "";

	snprintf(qid, sizeof(qid), q->queue_id < 0 ? "q?" : "q%d",
		 q->queue_id);
	if (q->on_hqd && q->hqd_inst >= 0)
		snprintf(slot, sizeof(slot), "  slot x%d p%d q%d", q->hqd_inst,
			 q->hqd_pipe, q->hqd_queue);
	else if (q->on_hqd)
		snprintf(slot, sizeof(slot), "  slot p%d q%d", q->hqd_pipe,
			 q->hqd_queue);
	if (!q->decoded) {
		fprintf(f, "%-8d %-7u %-4s %-7s raw: %s, %zu words%s\n",
			q->pid, q->gpu_id, qid, gp_mqd_kind_name(q->kind),
			q->kind == GP_MQD_COMPUTE ? "layout not known" :
			"not decoded", q->ndw,
			verbose || !q->ndw ? "" : " (-v)");
		for (size_t i = 0; verbose && i < q->ndw; i++)
			fprintf(f, "%s%08x%s", i % 8 ? " " : "    ", q->dw[i],
				i % 8 == 7 || i + 1 == q->ndw ? "\n" : "");
		return;
	}
	fprintf(f, "%-8d %-7u %-4s %-7s %-3s %-8s vmid %-2u prio %u/%u%s\n",
		q->pid, q->gpu_id, qid, gp_mqd_kind_name(q->kind),
		gp_mqd_layout_name(q->layout),
		q->f.active ? "active" : "inactive", q->f.vmid,
		q->f.pipe_priority, q->f.queue_priority, slot);
	fprintf(f, "  ring 0x%llx (%llu KiB) rptr %u wptr %llu doorbell 0x%x%s\n",
		(unsigned long long)q->f.ring_base,
		(unsigned long long)q->f.ring_size / 1024,
		q->f.rptr, (unsigned long long)q->f.wptr, q->f.doorbell_offset,
		q->f.doorbell_en ? "" : " (off)");
	fprintf(f, "  rptr report @0x%llx  wptr poll @0x%llx\n",
		(unsigned long long)q->f.rptr_report_addr,
		(unsigned long long)q->f.wptr_poll_addr);
}

static void text_debugfs(FILE *f, const struct snap *s, bool verbose)
{
	size_t i;

	fprintf(f, "\n");
	if (s->mqd_err) {
		debugfs_hint(f, "MQDs", s->mqd_err);
	} else {
		fprintf(f, "MQDs (debugfs): %zu process%s, %zu queue%s, %d "
			"decoded\n", s->m.nprocs, s->m.nprocs == 1 ? "" : "es",
			s->m.nq, s->m.nq == 1 ? "" : "s", mqd_decoded(s));
		if (s->m.nq)
			fprintf(f, "%-8s %-7s %-4s %-7s %s\n", "PID", "GPU_ID",
				"QID", "KIND", "STATE");
		for (i = 0; i < s->m.nq; i++)
			text_mqd(f, &s->m.q[i], verbose);
		for (i = 0; i < s->m.nprocs; i++)
			if (!s->m.procs[i].nq)
				fprintf(f, "%-8d no queues (PASID %s)\n",
					s->m.procs[i].pid, s->m.procs[i].pasid);
		if (s->m.unknown_lines)
			fprintf(f, "  %u line%s in no known format (first: "
				"line %u)\n", s->m.unknown_lines,
				s->m.unknown_lines == 1 ? "" : "s",
				s->m.first_unknown);
	}
	if (s->hqd_err) {
		if (!s->mqd_err || verbose)
			debugfs_hint(f, "HQDs", s->hqd_err);
		return;
	}
	for (i = 0; i < s->h.nnodes; i++) {
		const struct gp_hqd_node *n = &s->h.nodes[i];
		int cp = 0, act = 0;

		for (size_t j = 0; j < s->h.n; j++)
			if (s->h.h[j].node == n->node &&
			    s->h.h[j].kind == GP_HQD_CP) {
				cp++;
				act += s->h.h[j].decoded && s->h.h[j].f.active;
			}
		fprintf(f, "HQDs node %u gpu %u: %s%d CP slot%s, %d active\n",
			n->node, n->gpu_id, n->stopped ? "scheduler stopped, " :
			"", cp, cp == 1 ? "" : "s", act);
		for (size_t j = 0; j < s->h.n; j++) {
			const struct gp_hqd *h = &s->h.h[j];

			if (h->node != n->node ||
			    (!verbose && !(h->decoded && h->f.active &&
					   h->kind == GP_HQD_CP)))
				continue;
			fprintf(f, "  x%d %-4s pipe %d queue %d: %s ring 0x%llx\n",
				h->inst < 0 ? 0 : h->inst,
				gp_hqd_kind_name(h->kind), h->pipe, h->queue,
				!h->decoded ? "raw" : h->f.active ? "active" :
				"idle", (unsigned long long)h->f.ring_base);
		}
	}
}

void snap_print_text(FILE *f, const struct snap *s, bool verbose)
{
	struct gp_out_opts o = {};

	if (s->root[0])
		fprintf(f, "(files under %s)\n", s->root);
	text_topology(f, s);
	text_procs(f, s);
	if (s->nrows) {
		fprintf(f, "\n");
		gp_queue_rows_print(f, s->rows, s->nrows, &o);
		fprintf(f, "live state: %s\n", s->live >= 0 ?
			"from gpreempt-trace's map" :
			"none (gpreempt-trace not running)");
	}
	text_debugfs(f, s, verbose);
	fflush(f);
}

static void json_fields(struct json *j, const struct gp_mqd_fields *x)
{
	json_bool(j, "active", x->active);
	json_u64(j, "vmid", x->vmid);
	json_u64(j, "pipe_priority", x->pipe_priority);
	json_u64(j, "queue_priority", x->queue_priority);
	json_hex(j, "ring_base", x->ring_base);
	json_u64(j, "ring_size_bytes", x->ring_size);
	json_u64(j, "rptr", x->rptr);
	json_u64(j, "wptr", x->wptr);
	json_hex(j, "rptr_report_addr", x->rptr_report_addr);
	json_hex(j, "wptr_poll_addr", x->wptr_poll_addr);
	json_hex(j, "doorbell_offset", x->doorbell_offset);
	json_bool(j, "doorbell_enabled", x->doorbell_en);
}

static void json_raw(struct json *j, const uint32_t *dw, size_t n)
{
	char *buf = malloc(n * 9 + 1);

	if (!buf)
		return;
	buf[0] = 0;
	/* "%08x" words joined by a space: what the kernel printed */
	for (size_t i = 0; i < n; i++)
		sprintf(buf + (i ? 9 * i - 1 : 0), "%s%08x",
			i ? " " : "", dw[i]);
	json_str(j, "raw", buf);
	free(buf);
}

static void json_mqd(FILE *f, const struct gp_mqd_queue *q, bool verbose)
{
	struct json j;

	json_begin(&j, f);
	json_str(&j, "type", "mqd");
	json_s64(&j, "pid", q->pid);
	json_str(&j, "pasid", q->pasid);
	json_u64(&j, "gpu_id", q->gpu_id);
	json_u64(&j, "index", q->index);
	json_s64(&j, "queue_id", q->queue_id);
	json_str(&j, "kind", gp_mqd_kind_name(q->kind));
	if (q->kind == GP_MQD_BAD)
		json_s64(&j, "bad_type", q->bad_type);
	json_str(&j, "layout", gp_mqd_layout_name(q->layout));
	json_u64(&j, "words", q->ndw);
	json_bool(&j, "decoded", q->decoded);
	if (q->decoded) {
		json_fields(&j, &q->f);
		json_bool(&j, "on_hqd", q->on_hqd);
		if (q->on_hqd) {
			json_s64(&j, "inst", q->hqd_inst);
			json_s64(&j, "pipe", q->hqd_pipe);
			json_s64(&j, "queue", q->hqd_queue);
		}
	} else if (verbose) {
		json_raw(&j, q->dw, q->ndw);
	}
	json_end(&j);
}

static void json_debugfs(FILE *f, const struct snap *s, bool verbose)
{
	struct json j;
	size_t i;

	for (i = 0; !s->mqd_err && i < s->m.nq; i++)
		json_mqd(f, &s->m.q[i], verbose);
	for (i = 0; !s->hqd_err && i < s->h.nnodes; i++) {
		json_begin(&j, f);
		json_str(&j, "type", "hqd_node");
		json_u64(&j, "node", s->h.nodes[i].node);
		json_u64(&j, "gpu_id", s->h.nodes[i].gpu_id);
		json_bool(&j, "stopped", s->h.nodes[i].stopped);
		json_end(&j);
	}
	for (i = 0; !s->hqd_err && i < s->h.n; i++) {
		const struct gp_hqd *h = &s->h.h[i];

		if (!verbose && h->kind == GP_HQD_SDMA)
			continue;
		json_begin(&j, f);
		json_str(&j, "type", "hqd");
		json_u64(&j, "node", h->node);
		json_u64(&j, "gpu_id", h->gpu_id);
		json_s64(&j, "inst", h->inst);
		json_str(&j, "kind", gp_hqd_kind_name(h->kind));
		if (h->kind == GP_HQD_HIQ)
			json_s64(&j, "mec", h->mec);
		json_s64(&j, "pipe", h->pipe);
		json_s64(&j, "queue", h->queue);
		json_u64(&j, "registers", h->nregs);
		json_bool(&j, "decoded", h->decoded);
		if (h->decoded)
			json_fields(&j, &h->f);
		json_end(&j);
	}
}

void snap_print_json(FILE *f, const struct snap *s, bool verbose)
{
	struct json j;
	char gfx[16];
	int i;

	json_begin(&j, f);
	json_str(&j, "type", "snapshot");
	json_str(&j, "root", s->root[0] ? s->root : "/");
	json_s64(&j, "sched_policy", s->sched_policy);
	json_s64(&j, "gpus", s->nnodes < 0 ? s->nnodes : gpus(s));
	json_s64(&j, "processes", s->nprocs);
	json_s64(&j, "queues", s->nrows);
	json_bool(&j, "live", s->live >= 0);
	json_str(&j, "mqds", err_name(s->mqd_err));
	json_str(&j, "hqds", err_name(s->hqd_err));
	json_end(&j);
	for (i = 0; i < s->nnodes; i++) {
		const struct gp_topo_node *n = &s->nodes[i];

		if (!n->gpu_id)
			continue;
		json_begin(&j, f);
		json_str(&j, "type", "gpu");
		json_u64(&j, "node", n->node);
		json_u64(&j, "gpu_id", n->gpu_id);
		json_str(&j, "name", n->name);
		json_str(&j, "gfx", gp_topo_gfx_name(n->gfx_target_version,
						     gfx, sizeof(gfx)));
		json_u64(&j, "gfx_target_version", n->gfx_target_version);
		json_u64(&j, "cus", n->cu_count);
		json_u64(&j, "num_xcc", n->num_xcc);
		json_u64(&j, "fw_version", n->fw_version);
		json_u64(&j, "sdma_fw_version", n->sdma_fw_version);
		json_bool(&j, "debug_fw", n->debug_fw);
		json_bool(&j, "debug_trap", n->debug_trap);
		json_str(&j, "mqd_layout", gp_mqd_layout_name(
			gp_mqd_layout_for_gfx(n->gfx_target_version)));
		json_str(&j, "pci", gp_topo_pci_name(n, gfx, sizeof(gfx)));
		if (n->partition >= 0) {
			json_u64(&j, "partition", n->partition);
			json_u64(&j, "partitions", n->partitions);
		}
		json_u64(&j, "drm_render_minor", n->drm_render_minor);
		json_u64(&j, "unique_id", n->unique_id);
		json_end(&j);
	}
	for (i = 0; i < s->nprocs; i++) {
		const struct snap_proc *p = &s->procs[i];

		json_begin(&j, f);
		json_str(&j, "type", "process");
		json_s64(&j, "pid", p->pid);
		json_s64(&j, "ns_pid", p->ns_pid);
		json_s64(&j, "uid", p->uid);
		json_str(&j, "comm", p->comm);
		json_str(&j, "cgroup", p->cgroup);
		json_s64(&j, "queues", p->queues);
		json_s64(&j, "tracer_pid", p->tracer);
		json_str(&j, "tracer_comm", p->tracer_comm);
		json_end(&j);
	}
	for (i = 0; i < s->nrows; i++)
		gp_queue_row_json(f, &s->rows[i]);
	json_debugfs(f, s, verbose);
	fflush(f);
}
