// SPDX-License-Identifier: GPL-2.0
/* gpreempt-trace's Prometheus families, rendered (see trace_metrics.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "trace_metrics.h"

#define NS_PER_S 1e9

int tm_bounds(uint64_t unit_ns, double *bounds)
{
	int n = 0;

	if (!unit_ns)
		unit_ns = 1;
	/* the last slot is clamped (gp_slot): it has no upper bound */
	for (int i = 0; i < GP_MAX_SLOTS - 1; i++) {
		uint64_t ns = (2ULL << i) * unit_ns;

		if (ns > TM_MAX_BOUND_NS)
			break;
		bounds[n++] = ns / NS_PER_S;
	}
	return n;
}

static int key_cmp(const void *a, const void *b)
{
	const struct gp_hist_key *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->sub < y->sub ? -1 : x->sub > y->sub;
}

static void hist_one(struct prom_buf *b, const char *name, const char *lab,
		     const struct gp_hist *h, const double *bounds, int nb)
{
	uint64_t c[GP_MAX_SLOTS] = {0};

	for (int i = 0; i < GP_MAX_SLOTS; i++)
		c[i < nb ? i : nb] += h->slots[i];
	prom_histogram(b, name, lab, bounds, c, nb, h->sum_ns / NS_PER_S);
}

/*
 * The three histogram families, each a pass over the keys sorted by
 * (op, sub): 0 whole ops, 1 debug-trap ops, 2 phases. Keys the per-key
 * map walk repeated are skipped.
 */
static void hists(struct prom_buf *b, const struct tm_snap *s)
{
	static const char *const fam[3][2] = {
		{ "gpreempt_trace_duration_seconds",
		  "Duration of traced KFD calls (entry to return), by op." },
		{ "gpreempt_trace_dbg_trap_duration_seconds",
		  "Duration of AMDKFD_IOC_DBG_TRAP calls, by debug-trap op." },
		{ "gpreempt_trace_phase_duration_seconds",
		  "Time a suspend/resume spent in a hardware step, by phase." },
	};
	double bounds[GP_MAX_SLOTS];
	int nb = tm_bounds(s->unit_ns, bounds), *idx;
	char lab[96], nb1[NAMES_NUM_LEN], nb2[NAMES_NUM_LEN];

	idx = calloc(s->nhist ? s->nhist : 1, sizeof(*idx));
	if (!idx) {
		b->oom = true;
		return;
	}
	for (int i = 0; i < s->nhist; i++)
		idx[i] = i;
	for (int i = 1; i < s->nhist; i++)	/* few keys: insertion sort */
		for (int j = i; j > 0 && key_cmp(&s->hkeys[idx[j]],
						 &s->hkeys[idx[j - 1]]) < 0; j--) {
			int t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int f = 0; f < 3; f++) {
		prom_family(b, fam[f][0], "histogram", fam[f][1]);
		for (int i = 0; i < s->nhist; i++) {
			const struct gp_hist_key *k = &s->hkeys[idx[i]];
			int kind = k->op == GP_OP_DBG_TRAP ? 1 :
				   (k->op == GP_OP_SUSPEND ||
				    k->op == GP_OP_RESUME) && k->sub ? 2 : 0;
			const char *op = names_or_num(gp_op_name(k->op), k->op,
						      nb1, sizeof(nb1));
			const char *sub = names_or_num(gp_hist_sub_name(k->op,
						k->sub), k->sub, nb2, sizeof(nb2));

			if (kind != f || (i && !key_cmp(k, &s->hkeys[idx[i - 1]])))
				continue;
			if (f == 0)
				prom_labels(lab, sizeof(lab), "op", op, NULL);
			else if (f == 1)
				prom_labels(lab, sizeof(lab), "dbg_op", sub, NULL);
			else
				prom_labels(lab, sizeof(lab), "op", op, "phase",
					    sub, NULL);
			hist_one(b, fam[f][0], lab, &s->hvals[idx[i]], bounds,
				 nb);
		}
	}
	free(idx);
}

/* One counter family with a sample per op: calls, or (failed) errors. */
static void op_counter(struct prom_buf *b, const char *name, const char *help,
		       const struct tm_snap *s, bool failed)
{
	char lab[64], nb[NAMES_NUM_LEN];

	prom_family(b, name, "counter", help);
	for (uint32_t op = 0; op < GP_OP_MAX; op++)
		prom_sample(b, name,
			    prom_labels(lab, sizeof(lab), "op", names_or_num(
				gp_op_name(op), op, nb, sizeof(nb)), NULL),
			    failed ? s->counts[op].failed : s->counts[op].count);
}

static void counts(struct prom_buf *b, const struct tm_snap *s)
{
	if (!s->have_counts)
		return;
	op_counter(b, "gpreempt_trace_calls_total",
		   "Traced KFD calls and events, by op.", s, false);
	op_counter(b, "gpreempt_trace_errors_total",
		   "Traced KFD calls that failed (returned < 0), by op.", s,
		   true);
}

static int row_cmp(const void *a, const void *b)
{
	const struct gp_queue_row *x = a, *y = b;

	if (x->k.gpu_id != y->k.gpu_id)
		return x->k.gpu_id < y->k.gpu_id ? -1 : 1;
	return x->k.pid < y->k.pid ? -1 : x->k.pid > y->k.pid;
}

/* Queues by (gpu_id, state): every state of every GPU seen, zeros too,
 * so a state's series does not vanish when its last queue leaves it. */
static void queues(struct prom_buf *b, const struct gp_queue_row *r, int n)
{
	char lab[64], gpu[16];

	prom_family(b, "gpreempt_queues", "gauge",
		    "KFD queues in the tracer's queue map, by GPU and state.");
	for (int i = 0; i < n;) {
		uint64_t by[4] = {0};
		int j = i;

		for (; j < n && r[j].k.gpu_id == r[i].k.gpu_id; j++)
			if (r[j].v.state < 4)
				by[r[j].v.state]++;
		snprintf(gpu, sizeof(gpu), "%u", r[i].k.gpu_id);
		for (uint32_t st = 0; st < 4; st++)
			prom_sample(b, "gpreempt_queues", prom_labels(lab,
				    sizeof(lab), "gpu_id", gpu, "state",
				    gp_qstate_name(st), NULL), by[st]);
		i = j;
	}
}

static int pid_cmp(const void *a, const void *b)
{
	const struct gp_queue_row *x = a, *y = b;

	return x->k.pid < y->k.pid ? -1 : x->k.pid > y->k.pid;
}

/* Per-process sums of the map's suspends/resumes columns (r by pid). */
static void per_pid(struct prom_buf *b, const struct gp_queue_row *r, int n)
{
	static const char *const name[2] = {
		"gpreempt_trace_process_queue_suspends",
		"gpreempt_trace_process_queue_resumes",
	};
	char lab[32], pid[16];
	int npid = 0, dropped = 0;

	for (int i = 0; i < n; i++)
		npid += !i || r[i].k.pid != r[i - 1].k.pid;
	if (npid > TM_MAX_PIDS)
		dropped = npid - TM_MAX_PIDS;
	for (int w = 0; w < 2; w++) {
		int seen = 0;

		prom_family(b, name[w], "gauge", w ? "Resumes counted on the "
			    "process's queues now in the queue map." :
			    "Suspensions counted on the process's queues now "
			    "in the queue map (a destroyed queue takes its "
			    "count with it).");
		for (int i = 0; i < n && seen < TM_MAX_PIDS; seen++) {
			uint64_t sum = 0;
			int j = i;

			for (; j < n && r[j].k.pid == r[i].k.pid; j++)
				sum += w ? r[j].v.resumes : r[j].v.suspends;
			snprintf(pid, sizeof(pid), "%u", r[i].k.pid);
			prom_sample(b, name[w], prom_labels(lab, sizeof(lab),
				    "pid", pid, NULL), sum);
			i = j;
		}
	}
	prom_family(b, "gpreempt_trace_process_series_dropped", "gauge",
		    "Processes left out of the per-process gauges (over "
		    "the series bound).");
	prom_sample(b, "gpreempt_trace_process_series_dropped", NULL, dropped);
}

void tm_render(const struct tm_snap *s, struct prom_buf *b)
{
	struct gp_queue_row *r = NULL;
	char lab[32];

	counts(b, s);
	hists(b, s);
	prom_family(b, "gpreempt_trace_events_lost_total", "counter",
		    "Events dropped because the ring buffer was full.");
	prom_sample(b, "gpreempt_trace_events_lost_total", NULL, s->lost);
	prom_family(b, "gpreempt_trace_map_full_total", "counter",
		    "Histogram samples (map=\"hists\") or queue rows "
		    "(map=\"queues\") not kept because the BPF map was full.");
	prom_sample(b, "gpreempt_trace_map_full_total", prom_labels(lab,
		    sizeof(lab), "map", "hists", NULL), s->hist_full);
	prom_sample(b, "gpreempt_trace_map_full_total", prom_labels(lab,
		    sizeof(lab), "map", "queues", NULL), s->queues_full);
	if (s->nrows) {
		r = malloc(s->nrows * sizeof(*r));
		if (!r) {
			b->oom = true;
			return;
		}
		memcpy(r, s->rows, s->nrows * sizeof(*r));
	}
	if (r)
		qsort(r, s->nrows, sizeof(*r), row_cmp);
	queues(b, r, s->nrows);
	if (r)
		qsort(r, s->nrows, sizeof(*r), pid_cmp);
	per_pid(b, r, s->nrows);
	free(r);
}
