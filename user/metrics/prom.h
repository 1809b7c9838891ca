/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition format 0.0.4 writer (pure: appends to a
 * growable buffer; no I/O). Names follow Prometheus conventions: the
 * caller passes full names ("gpreempt_suspends_total"); units are base
 * units (seconds) named in the suffix.
 *
 *	struct prom_buf b = {0};
 *	prom_family(&b, "gpreempt_sessions_held", "gauge", "Targets attached.");
 *	prom_sample(&b, "gpreempt_sessions_held", NULL, 3);
 *	prom_labels(lab, sizeof(lab), "pid", "42", "comm", "python3", NULL);
 *	prom_sample(&b, "gpreempt_suspends_total", lab, 7);
 *	... send b.p, b.len; prom_free(&b);
 *
 * Histograms are classic cumulative ones (_bucket{le=...}, _sum, _count)
 * with bounds in seconds: Prometheus' native (sparse) histograms exist
 * only in the protobuf format, which this writer does not speak.
 */
#ifndef GP_PROM_H
#define GP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prom_buf {
	char *p;
	size_t len, cap;
	bool oom;		/* an append failed: the text is incomplete */
};

/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram). */
void prom_family(struct prom_buf *b, const char *name, const char *type,
		 const char *help);
/* name{labels} value; labels is "" / NULL or from prom_labels(). */
void prom_sample(struct prom_buf *b, const char *name, const char *labels,
		 double v);
/*
 * Format label pairs (key, value, key, value, ..., NULL) as
 * k1="v1",k2="v2" with values escaped (\\, \", \n). Returns buf, or NULL
 * (and buf "") if it does not fit.
 */
char *prom_labels(char *buf, size_t len, ...) __attribute__((sentinel));
/*
 * A histogram's samples: counts[i] observations <= bounds[i] (not yet
 * cumulative; this adds them up), counts[n] above the last bound (+Inf).
 * sum in the bounds' unit (seconds).
 */
void prom_histogram(struct prom_buf *b, const char *name, const char *labels,
		    const double *bounds, const uint64_t *counts, int n,
		    double sum);
void prom_free(struct prom_buf *b);

/* A log2-ns histogram (hist.h's gp_hist) as a classic one in seconds. */
struct gp_hist;
void metrics_render_log2(struct prom_buf *b, const char *name,
			 const char *help, const struct gp_hist *h);

#endif
