// SPDX-License-Identifier: GPL-2.0
/* The co-location kit's analysis: raw NDJSON -> summary (see l3an.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "l3an.h"

const char *const l3_run_names[L3_NRUNS] = {
	"online-alone", "offline-alone", "both-plain", "both-notify",
	"both-queues",
};

void l3_opts_default(struct l3_opts *o)
{
	o->min_cycles = 100;
	o->online_ms = 50;
	o->online_ideal_ms = 10;
	o->loss_pct = 20;
	o->loss_ideal_pct = 5;
	o->op_ms = 10;
}

double l3_pct(const double *s, size_t n, double p)
{
	size_t k = (size_t)(p * n);

	if (k < p * n)	/* ceil without libm */
		k++;

	return s[k ? k - 1 : 0];
}

enum l3_result l3_lt(double value, double thr, bool have)
{
	if (!have || isnan(value))
		return L3_NA;
	return value < thr ? L3_PASS : L3_FAIL;
}

const char *l3_result_name(enum l3_result r)
{
	return r == L3_PASS ? "PASS" : r == L3_FAIL ? "FAIL" : "n/a";
}

/* Start of the value of "key": in a flat object, or NULL. */
static const char *jval(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

int l3_json_u64(const char *line, const char *key, uint64_t *v)
{
	const char *p = jval(line, key);
	char *end;

	if (!p || *p < '0' || *p > '9')
		return -1;
	*v = strtoull(p, &end, 10);
	return end == p ? -1 : 0;
}

int l3_json_str(const char *line, const char *key, char *buf, size_t len)
{
	const char *p = jval(line, key);
	size_t n = 0;

	if (!p || *p != '"' || !len)
		return -1;
	for (p++; *p && *p != '"' && n + 1 < len; p++)
		buf[n++] = *p == '\\' && p[1] ? *++p : *p;
	buf[n] = 0;
	return 0;
}

#define PUSH(arr, n, cap, val)						\
	({								\
		int _r = 0;						\
		if ((n) == (cap)) {					\
			size_t _c = (cap) ? 2 * (cap) : 64;		\
			void *_p = realloc((arr), _c * sizeof(*(arr)));	\
			if (_p) {					\
				(arr) = _p;				\
				(cap) = _c;				\
			} else {					\
				_r = -ENOMEM;				\
			}						\
		}							\
		if (!_r)						\
			(arr)[(n)++] = (val);				\
		_r;							\
	})

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void sort_d(double *a, size_t n)
{
	if (n)	/* qsort(NULL, 0) is undefined */
		qsort(a, n, sizeof(*a), cmp_d);
}

static void seen(struct l3_run *r, uint64_t t)
{
	if (!t)
		return;
	if (!r->t0 || t < r->t0)
		r->t0 = t;
	if (t > r->t1)
		r->t1 = t;
}

static FILE *open_in(const char *dir, const char *name, const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/runs/%s/%s", dir, name, file);
	return fopen(path, "re");
}

static int load_online(struct l3_run *r, FILE *f)
{
	char line[2048], err[64];
	uint64_t a, s, e;

	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "\"type\":\"request\""))
			continue;
		if (l3_json_u64(line, "arrival_ns", &a) ||
		    l3_json_u64(line, "start_ns", &s) ||
		    l3_json_u64(line, "end_ns", &e) || e < a || e < s) {
			r->bad_lines++;
			continue;
		}
		if (!l3_json_str(line, "error", err, sizeof(err))) {
			r->req_errors++;
			r->failures++;
			continue;
		}
		seen(r, a);
		seen(r, e);
		if (PUSH(r->lat_ms, r->nlat, r->latcap, (e - a) / 1e6) ||
		    PUSH(r->busy, r->nbusy, r->busycap,
			 ((struct l3_ivl){ s, e })))
			return -ENOMEM;
	}
	sort_d(r->lat_ms, r->nlat);
	return 0;
}

static int load_offline(struct l3_run *r, FILE *f)
{
	char line[1024];
	uint64_t t, it;
	bool first = true;

	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "\"type\":\"progress\""))
			continue;
		if (l3_json_u64(line, "t_ns", &t) ||
		    l3_json_u64(line, "iters", &it)) {
			r->bad_lines++;
			continue;
		}
		seen(r, t);
		if (first) {
			r->pt0 = t;
			r->it0 = it;
			first = false;
		}
		r->pt1 = t;
		r->it1 = it;
	}
	if (!first && r->pt1 > r->pt0 && r->it1 >= r->it0) {
		r->have_thr = true;
		r->thr = (r->it1 - r->it0) / ((r->pt1 - r->pt0) / 1e9);
	}
	return 0;
}

static int phase_add(struct l3_phase *ph, const char *name, double ms)
{
	int i;

	for (i = 0; i < L3_MAX_PHASES && ph[i].name[0]; i++)
		if (!strcmp(ph[i].name, name))
			break;
	if (i == L3_MAX_PHASES)
		return 0;
	snprintf(ph[i].name, sizeof(ph[i].name), "%s", name);
	return PUSH(ph[i].ms, ph[i].n, ph[i].cap, ms);
}

struct tev {
	char op[16], dbg_op[32];
	uint64_t end, dur, pid;
	int64_t ret;
	uint64_t asked, done;
};

static int load_trace(struct l3_run *r, FILE *f)
{
	struct tev *ev = NULL, e;
	size_t n = 0, cap = 0, i, j;
	char line[4096], rets[32];
	uint64_t open_susp[64][2];	/* target pid, suspended since */
	size_t nopen = 0, k;
	bool have_dbg = false;
	int err = 0;

	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "\"type\":\"event\""))
			continue;
		memset(&e, 0, sizeof(e));
		if (l3_json_str(line, "op", e.op, sizeof(e.op)) ||
		    l3_json_u64(line, "ts_boot_ns", &e.end) ||
		    l3_json_u64(line, "duration_ns", &e.dur)) {
			r->bad_lines++;
			continue;
		}
		l3_json_str(line, "dbg_op", e.dbg_op, sizeof(e.dbg_op));
		if (l3_json_u64(line, "target_pid", &e.pid))
			e.pid = 0;
		l3_json_u64(line, "queues_asked", &e.asked);
		l3_json_u64(line, "queues_done", &e.done);
		e.ret = 0;
		if (jval(line, "ret") &&
		    sscanf(jval(line, "ret"), "%31[-0-9]", rets) == 1)
			e.ret = strtoll(rets, NULL, 10);
		have_dbg |= !strcmp(e.op, "dbg_trap") &&
			    strstr(e.dbg_op, "_queues");
		if (PUSH(ev, n, cap, e)) {
			free(ev);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n && !err; i++) {
		struct tev *s = &ev[i];
		bool susp = !strcmp(s->op, "suspend");

		if (!susp && strcmp(s->op, "resume"))
			continue;
		if (s->ret < 0 || s->done < s->asked)
			r->failures++;
		seen(r, s->end);
		/* offline suspended: from this suspend to its resume */
		for (k = 0; k < nopen && open_susp[k][0] != s->pid; k++)
			;
		if (susp && k == nopen && nopen < 64) {
			open_susp[nopen][0] = s->pid;
			open_susp[nopen++][1] = s->end;
		} else if (!susp && k < nopen) {
			err = PUSH(r->susp, r->nsi, r->sicap,
				   ((struct l3_ivl){ open_susp[k][1],
						     s->end - s->dur }));
			open_susp[k][0] = open_susp[--nopen][0];
			open_susp[k][1] = open_susp[nopen][1];
		}
		/* phases: what ran inside this op */
		err = err ?: phase_add(susp ? r->susp_ph : r->res_ph, "kernel",
				       s->dur / 1e6);
		for (j = 0; j < n && !err; j++) {
			struct tev *p = &ev[j];

			if (p == s || p->end > s->end ||
			    p->end - p->dur < s->end - s->dur ||
			    (p->pid && s->pid && p->pid != s->pid))
				continue;
			if (!strncmp(p->op, "hw_", 3) || !strncmp(p->op, "mes_", 4))
				err = phase_add(susp ? r->susp_ph : r->res_ph,
						p->op, p->dur / 1e6);
		}
		if (!have_dbg && !err)
			err = susp ? PUSH(r->susp_ms, r->nsusp, r->suspcap,
					  s->dur / 1e6) :
				     PUSH(r->res_ms, r->nres, r->rescap,
					  s->dur / 1e6);
	}
	/* the ioctl a caller waits for, when the tracer saw it */
	for (i = 0; have_dbg && i < n && !err; i++) {
		if (strcmp(ev[i].op, "dbg_trap"))
			continue;
		if (!strcmp(ev[i].dbg_op, "suspend_queues"))
			err = PUSH(r->susp_ms, r->nsusp, r->suspcap,
				   ev[i].dur / 1e6);
		else if (!strcmp(ev[i].dbg_op, "resume_queues"))
			err = PUSH(r->res_ms, r->nres, r->rescap,
				   ev[i].dur / 1e6);
		if (!strcmp(ev[i].dbg_op, "suspend_queues") ||
		    !strcmp(ev[i].dbg_op, "resume_queues"))
			r->failures += ev[i].ret < 0;
	}
	sort_d(r->susp_ms, r->nsusp);
	sort_d(r->res_ms, r->nres);
	for (i = 0; i < L3_MAX_PHASES; i++) {
		sort_d(r->susp_ph[i].ms, r->susp_ph[i].n);
		sort_d(r->res_ph[i].ms, r->res_ph[i].n);
	}
	free(ev);
	return err;
}

int l3_load_run(const char *dir, const char *name, struct l3_run *r)
{
	static const char *const files[] = { "online.ndjson",
		"offline.ndjson", "trace.ndjson" };
	char path[4096];
	struct stat st;
	int err = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(path, sizeof(path), "%s/runs/%s", dir, name);
	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	r->present = true;
	for (int i = 0; i < 3 && !err; i++) {
		FILE *f = open_in(dir, name, files[i]);

		if (!f)
			continue;
		err = i == 0 ? load_online(r, f) : i == 1 ?
		      load_offline(r, f) : load_trace(r, f);
		fclose(f);
	}
	return err;
}

void l3_run_free(struct l3_run *r)
{
	free(r->lat_ms);
	free(r->busy);
	free(r->susp_ms);
	free(r->res_ms);
	free(r->susp);
	for (int i = 0; i < L3_MAX_PHASES; i++) {
		free(r->susp_ph[i].ms);
		free(r->res_ph[i].ms);
	}
	memset(r, 0, sizeof(*r));
}

int l3_verdicts(const struct l3_run *r, const struct l3_run *off,
		const struct l3_opts *o, struct l3_verdict *v)
{
	double loss = NAN, p99 = NAN, s99 = NAN, r99 = NAN;
	size_t cycles = r->nsusp < r->nres ? r->nsusp : r->nres;
	bool ok_cycles;

	if (r->nlat)
		p99 = l3_pct(r->lat_ms, r->nlat, 0.99);
	if (r->have_thr && off && off->have_thr && off->thr > 0)
		loss = 100.0 * (off->thr - r->thr) / off->thr;
	if (r->nsusp)
		s99 = l3_pct(r->susp_ms, r->nsusp, 0.99);
	if (r->nres)
		r99 = l3_pct(r->res_ms, r->nres, 0.99);
	v[0] = (struct l3_verdict){ r->name, "online_p99", p99, o->online_ms,
		o->online_ideal_ms, l3_lt(p99, o->online_ms, r->nlat),
		l3_lt(p99, o->online_ideal_ms, r->nlat), 0 };
	v[1] = (struct l3_verdict){ r->name, "offline_loss", loss, o->loss_pct,
		o->loss_ideal_pct, l3_lt(loss, o->loss_pct, !isnan(loss)),
		l3_lt(loss, o->loss_ideal_pct, !isnan(loss)), 0 };
	v[2] = (struct l3_verdict){ r->name, "suspend_p99", s99, o->op_ms, -1,
		l3_lt(s99, o->op_ms, r->nsusp), L3_NA, 0 };
	v[3] = (struct l3_verdict){ r->name, "resume_p99", r99, o->op_ms, -1,
		l3_lt(r99, o->op_ms, r->nres), L3_NA, 0 };
	ok_cycles = cycles >= o->min_cycles && !r->failures;
	v[4] = (struct l3_verdict){ r->name, "cycles", (double)cycles,
		o->min_cycles, -1, !r->nsusp && !r->failures ? L3_NA :
		ok_cycles ? L3_PASS : L3_FAIL, L3_NA, r->failures };
	return 5;
}
