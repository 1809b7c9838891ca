// SPDX-License-Identifier: GPL-2.0
/* The kit's report: text, NDJSON, plot data and a gnuplot script. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "l3an.h"

static void fmt_ms(char *b, size_t n, const double *s, size_t k, double p)
{
	if (!k)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2f", l3_pct(s, k, p));
}

static double loss_of(const struct l3_run *r, const struct l3_run *off)
{
	if (!r->have_thr || !off->have_thr || off->thr <= 0)
		return NAN;
	return 100.0 * (off->thr - r->thr) / off->thr;
}

static double span_s(const struct l3_run *r)
{
	return r->t1 > r->t0 ? (r->t1 - r->t0) / 1e9 : 0;
}

static void text_runs(FILE *f, const struct l3_run *runs)
{
	char a[16], b[16], c[16], t[16], l[16], g[16];

	fprintf(f, "%-13s %6s %7s %7s %7s %10s %6s %8s\n", "RUN", "REQS",
		"P50ms", "P99ms", "P999ms", "OFFLINE/s", "LOSS%", "TOGGLE/s");
	for (int i = 0; i < L3_NRUNS; i++) {
		const struct l3_run *r = &runs[i];
		double loss = loss_of(r, &runs[1]);

		if (!r->present)
			continue;
		fmt_ms(a, sizeof(a), r->lat_ms, r->nlat, 0.5);
		fmt_ms(b, sizeof(b), r->lat_ms, r->nlat, 0.99);
		fmt_ms(c, sizeof(c), r->lat_ms, r->nlat, 0.999);
		snprintf(t, sizeof(t), r->have_thr ? "%.1f" : "-", r->thr);
		snprintf(l, sizeof(l), isnan(loss) || i == 1 ? "-" : "%.1f",
			 loss);
		snprintf(g, sizeof(g), r->nsusp && span_s(r) > 0 ? "%.2f" : "-",
			 r->nsusp / (span_s(r) > 0 ? span_s(r) : 1));
		fprintf(f, "%-13s %6zu %7s %7s %7s %10s %6s %8s\n", r->name,
			r->nlat, a, b, c, t, l, g);
	}
}

static void text_ops(FILE *f, const struct l3_run *r)
{
	char a[16], b[16], m[16];
	const struct {
		const char *op;
		const double *ms;
		size_t n;
		const struct l3_phase *ph;
	} ops[2] = { { "suspend", r->susp_ms, r->nsusp, r->susp_ph },
		     { "resume", r->res_ms, r->nres, r->res_ph } };

	for (int k = 0; k < 2; k++) {
		if (!ops[k].n)
			continue;
		fmt_ms(a, sizeof(a), ops[k].ms, ops[k].n, 0.5);
		fmt_ms(b, sizeof(b), ops[k].ms, ops[k].n, 0.99);
		fmt_ms(m, sizeof(m), ops[k].ms, ops[k].n, 1.0);
		fprintf(f, "%-13s %-9s %6zu %8s %8s %8s\n", r->name, ops[k].op,
			ops[k].n, a, b, m);
		for (int i = 0; i < L3_MAX_PHASES && ops[k].ph[i].name[0]; i++) {
			const struct l3_phase *p = &ops[k].ph[i];

			fmt_ms(a, sizeof(a), p->ms, p->n, 0.5);
			fmt_ms(b, sizeof(b), p->ms, p->n, 0.99);
			fmt_ms(m, sizeof(m), p->ms, p->n, 1.0);
			fprintf(f, "%-13s  %-8s %6zu %8s %8s %8s\n", "",
				p->name, p->n, a, b, m);
		}
	}
}

static const char *vlabel(const struct l3_verdict *v, char *b, size_t n)
{
	if (!strcmp(v->name, "online_p99"))
		snprintf(b, n, "online p99 < %g ms", v->target);
	else if (!strcmp(v->name, "offline_loss"))
		snprintf(b, n, "offline loss < %g %%", v->target);
	else if (!strcmp(v->name, "suspend_p99"))
		snprintf(b, n, "suspend p99 < %g ms", v->target);
	else if (!strcmp(v->name, "resume_p99"))
		snprintf(b, n, "resume p99 < %g ms", v->target);
	else
		snprintf(b, n, ">= %g cycles, 0 failures", v->target);
	return b;
}

static void json_run(FILE *f, const struct l3_run *r, const struct l3_run *off)
{
	double loss = loss_of(r, off);

	fprintf(f, "{\"type\":\"run\",\"name\":\"%s\",\"requests\":%zu,"
		"\"request_errors\":%zu", r->name, r->nlat, r->req_errors);
	if (r->nlat)
		fprintf(f, ",\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f",
			l3_pct(r->lat_ms, r->nlat, 0.5),
			l3_pct(r->lat_ms, r->nlat, 0.99),
			l3_pct(r->lat_ms, r->nlat, 0.999));
	if (r->have_thr)
		fprintf(f, ",\"offline_iters_per_s\":%.3f", r->thr);
	if (!isnan(loss) && r != off)
		fprintf(f, ",\"offline_loss_pct\":%.3f", loss);
	fprintf(f, ",\"suspends\":%zu,\"resumes\":%zu,\"failures\":%zu",
		r->nsusp, r->nres, r->failures);
	if (span_s(r) > 0)
		fprintf(f, ",\"duration_s\":%.3f,\"toggles_per_s\":%.3f",
			span_s(r), r->nsusp / span_s(r));
	if (r->nsusp)
		fprintf(f, ",\"suspend_p50_ms\":%.3f,\"suspend_p99_ms\":%.3f",
			l3_pct(r->susp_ms, r->nsusp, 0.5),
			l3_pct(r->susp_ms, r->nsusp, 0.99));
	if (r->nres)
		fprintf(f, ",\"resume_p50_ms\":%.3f,\"resume_p99_ms\":%.3f",
			l3_pct(r->res_ms, r->nres, 0.5),
			l3_pct(r->res_ms, r->nres, 0.99));
	fprintf(f, ",\"bad_lines\":%zu}\n", r->bad_lines);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < L3_MAX_PHASES; i++) {
			const struct l3_phase *p = k ? &r->res_ph[i] :
						       &r->susp_ph[i];

			if (!p->name[0] || !p->n)
				continue;
			fprintf(f, "{\"type\":\"phase\",\"run\":\"%s\",\"op\":"
				"\"%s\",\"phase\":\"%s\",\"count\":%zu,"
				"\"p50_ms\":%.3f,\"p99_ms\":%.3f}\n", r->name,
				k ? "resume" : "suspend", p->name, p->n,
				l3_pct(p->ms, p->n, 0.5),
				l3_pct(p->ms, p->n, 0.99));
		}
}

static void json_verdict(FILE *f, const struct l3_verdict *v)
{
	fprintf(f, "{\"type\":\"verdict\",\"run\":\"%s\",\"name\":\"%s\",",
		v->run, v->name);
	if (isnan(v->value))
		fprintf(f, "\"value\":null,");
	else
		fprintf(f, "\"value\":%.3f,", v->value);
	fprintf(f, "\"target\":%g,\"result\":\"%s\"", v->target,
		l3_result_name(v->result));
	if (!strcmp(v->name, "cycles"))
		fprintf(f, ",\"failures\":%zu", v->failures);
	if (v->ideal >= 0)
		fprintf(f, ",\"ideal\":%g,\"ideal_result\":\"%s\"", v->ideal,
			l3_result_name(v->ideal_result));
	fprintf(f, "}\n");
}

static void write_cdf(const char *path, const char *what, const double *s,
		      size_t n)
{
	FILE *f;

	if (!n || !(f = fopen(path, "we")))
		return;
	fprintf(f, "# %s_ms fraction\n", what);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%.4f %.6f\n", s[k], (k + 1.0) / n);
	fclose(f);
}

/* One gnuplot "plot" of the CDF files NAME-SUFFIX.dat that exist. */
static void gp_cdf_plot(FILE *f, const struct l3_run *runs, int from,
			const char *png, const char *xlabel,
			const char *const *suffix, int nsuffix)
{
	int first = 1;

	for (int i = from; i < L3_NRUNS; i++)
		for (int k = 0; k < nsuffix; k++) {
			size_t n = !strcmp(suffix[k], "cdf") ? runs[i].nlat :
				   !strcmp(suffix[k], "suspend-cdf") ?
				   runs[i].nsusp : runs[i].nres;

			if (!runs[i].present || !n)
				continue;
			if (first)
				fprintf(f, "set output '%s'\nset logscale x\n"
					"set xlabel '%s'\nset ylabel 'fraction'\n"
					"set key bottom right\nplot ", png,
					xlabel);
			fprintf(f, "%s'%s-%s.dat' with lines title '%s%s%.*s'",
				first ? "" : ", ", runs[i].name, suffix[k],
				runs[i].name, k || nsuffix > 1 ? " " : "",
				nsuffix > 1 ? (int)strcspn(suffix[k], "-") : 0,
				suffix[k]);
			first = 0;
		}
	if (!first)
		fprintf(f, "\nunset logscale x\n");
}

static int plots(const char *dir, const struct l3_run *runs)
{
	static const char *const lat[] = { "cdf" };
	static const char *const ops[] = { "suspend-cdf", "resume-cdf" };
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plots", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	for (int i = 0; i < L3_NRUNS; i++) {
		const struct l3_run *r = &runs[i];
		uint64_t t0 = r->t0;

		if (!r->present)
			continue;
		snprintf(path, sizeof(path), "%s/plots/%s-cdf.dat", dir, r->name);
		write_cdf(path, "latency", r->lat_ms, r->nlat);
		snprintf(path, sizeof(path), "%s/plots/%s-suspend-cdf.dat", dir,
			 r->name);
		write_cdf(path, "suspend", r->susp_ms, r->nsusp);
		snprintf(path, sizeof(path), "%s/plots/%s-resume-cdf.dat", dir,
			 r->name);
		write_cdf(path, "resume", r->res_ms, r->nres);
		snprintf(path, sizeof(path), "%s/plots/%s-timeline.dat", dir,
			 r->name);
		if (!(r->nbusy || r->nsi) || !(f = fopen(path, "we")))
			continue;
		/* gnuplot "with vectors": x, y, dx, dy; y 1 = online busy,
		 * y 0 = offline suspended */
		fprintf(f, "# start_s lane length_s 0 (lane 1 online busy, "
			"0 offline suspended)\n");
		for (size_t k = 0; k < r->nbusy; k++)
			fprintf(f, "%.6f 1 %.6f 0\n", (r->busy[k].a - t0) / 1e9,
				(r->busy[k].b - r->busy[k].a) / 1e9);
		for (size_t k = 0; k < r->nsi; k++)
			fprintf(f, "%.6f 0 %.6f 0\n", (r->susp[k].a - t0) / 1e9,
				(r->susp[k].b - r->susp[k].a) / 1e9);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/plots/plots.gp", dir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "# gnuplot plots.gp (from this folder)\n"
		"set terminal pngcairo size 1000,600\n");
	gp_cdf_plot(f, runs, 0, "latency-cdf.png",
		    "online request latency (ms)", lat, 1);
	gp_cdf_plot(f, runs, 3, "suspend-resume-cdf.png",
		    "suspend / resume latency (ms)", ops, 2);
	for (int i = 3; i < L3_NRUNS; i++)
		if (runs[i].present && (runs[i].nbusy || runs[i].nsi))
			fprintf(f, "set output 'timeline-%s.png'\n"
				"set xlabel 'time (s)'\nset ylabel ''\n"
				"set ytics ('offline suspended' 0, "
				"'online busy' 1)\nset yrange [-0.5:1.5]\n"
				"plot '%s-timeline.dat' using 1:2:3:4 with "
				"vectors nohead lw 8 title '%s'\n",
				runs[i].name, runs[i].name, runs[i].name);
	fclose(f);
	return 0;
}

int l3_analyze(const char *dir, const struct l3_opts *o, FILE *txt,
	       FILE *json, bool write_plots)
{
	struct l3_run runs[L3_NRUNS];
	struct l3_verdict v[5];
	char lab[48], val[32];
	int i, k, n, err = 0, judged = 0, failed = 0;

	for (i = 0; i < L3_NRUNS && !err; i++)
		err = l3_load_run(dir, l3_run_names[i], &runs[i]);
	for (; i < L3_NRUNS; i++)
		memset(&runs[i], 0, sizeof(runs[i]));
	if (err)
		goto out;
	if (txt) {
		text_runs(txt, runs);
		fprintf(txt, "\n%-13s %-9s %6s %8s %8s %8s\n", "SUSPEND/RESUME",
			"(ms)", "N", "P50", "P99", "MAX");
		for (i = 0; i < L3_NRUNS; i++)
			if (runs[i].present)
				text_ops(txt, &runs[i]);
	}
	for (i = 0; json && i < L3_NRUNS; i++)
		if (runs[i].present)
			json_run(json, &runs[i], &runs[1]);
	for (i = 3; i < L3_NRUNS; i++) {	/* the runs with gpreempt */
		if (!runs[i].present)
			continue;
		n = l3_verdicts(&runs[i], &runs[1], o, v);
		if (txt)
			fprintf(txt, "\nVERDICTS %s\n", runs[i].name);
		for (k = 0; k < n; k++) {
			judged += v[k].result != L3_NA;
			failed += v[k].result == L3_FAIL;
			if (json)
				json_verdict(json, &v[k]);
			if (!txt)
				continue;
			snprintf(val, sizeof(val), isnan(v[k].value) ? "-" :
				 k == 4 ? "%.0f" : "%.2f", v[k].value);
			fprintf(txt, "  %-28s %10s  %-4s", vlabel(&v[k], lab,
				sizeof(lab)), val, l3_result_name(v[k].result));
			if (v[k].ideal >= 0)
				fprintf(txt, "  (ideal < %g: %s)", v[k].ideal,
					l3_result_name(v[k].ideal_result));
			if (k == 4 && v[k].failures)
				fprintf(txt, "  (%zu failed)", v[k].failures);
			fprintf(txt, "\n");
		}
	}
	if (write_plots)
		err = plots(dir, runs);
out:
	for (i = 0; i < L3_NRUNS; i++)
		l3_run_free(&runs[i]);
	if (err)
		return err;
	return failed ? 1 : judged ? 0 : 2;
}
