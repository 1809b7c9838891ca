// SPDX-License-Identifier: GPL-2.0
/* Prometheus text exposition writer (see prom.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom.h"
#include "text.h"

static void append(struct prom_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void append(struct prom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

/* Integers (counters) print without an exponent, other values as the
 * shortest round-tripping %g, as Prometheus' own Go client does. */
static void value(struct prom_buf *b, double v)
{
	if (isnan(v))
		append(b, "NaN");
	else if (isinf(v))
		append(b, v > 0 ? "+Inf" : "-Inf");
	else if (v == (double)(int64_t)v && (v < 0 ? -v : v) < 1e15)
		append(b, "%lld", (long long)v);
	else {
		/* The shortest %g that reads back as v (1e-06, not
		 * 9.9999999999999995e-07). */
		char t[32];

		for (int prec = 6; prec <= 17; prec++) {
			snprintf(t, sizeof(t), "%.*g", prec, v);
			if (strtod(t, NULL) == v)
				break;
		}
		append(b, "%s", t);
	}
}

void prom_family(struct prom_buf *b, const char *name, const char *type,
		 const char *help)
{
	/* HELP escapes only \ and newline. */
	append(b, "# HELP %s ", name);
	for (const char *h = help; *h; h++) {
		if (*h == '\\')
			append(b, "\\\\");
		else if (*h == '\n')
			append(b, "\\n");
		else
			append(b, "%c", *h);
	}
	append(b, "\n# TYPE %s %s\n", name, type);
}

void prom_sample(struct prom_buf *b, const char *name, const char *labels,
		 double v)
{
	if (labels && *labels)
		append(b, "%s{%s} ", name, labels);
	else
		append(b, "%s ", name);
	value(b, v);
	append(b, "\n");
}

/*
 * One label value's next character, escaped: \\, \", \n as the format
 * says; a byte that is not UTF-8 (a comm is any bytes) or a control
 * character as the text \xNN (its backslash escaped), so the
 * exposition stays valid UTF-8 for every scrape. Bytes of s consumed.
 */
static size_t label_char(const char *s, char *out, size_t *olen)
{
	unsigned char c = *s;
	size_t n = gp_utf8_len(s);

	if (c == '\\' || c == '"' || c == '\n') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c;
		*olen = 2;
		return 1;
	}
	if (!n || c < 0x20 || c == 0x7f) {
		*olen = snprintf(out, 8, "\\\\x%02x", c);
		return 1;
	}
	memcpy(out, s, n);
	*olen = n;
	return n;
}

char *prom_labels(char *buf, size_t len, ...)
{
	const char *k, *v;
	size_t o = 0;
	va_list ap;

	if (!len)
		return NULL;
	buf[0] = '\0';
	va_start(ap, len);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		int n = snprintf(buf + o, len - o, "%s%s=\"", o ? "," : "", k);
		if (n < 0 || (size_t)n >= len - o)
			goto full;
		o += n;
		while (v && *v) {
			char out[8];
			size_t need;

			v += label_char(v, out, &need);
			if (o + need >= len)
				goto full;
			memcpy(buf + o, out, need);
			o += need;
		}
		if (o + 1 >= len)
			goto full;
		buf[o++] = '"';
		buf[o] = '\0';
	}
	va_end(ap);
	return buf;
full:
	va_end(ap);
	buf[0] = '\0';
	return NULL;
}

void prom_histogram(struct prom_buf *b, const char *name, const char *labels,
		    const double *bounds, const uint64_t *counts, int n,
		    double sum)
{
	const char *sep = labels && *labels ? "," : "";
	uint64_t cum = 0;

	if (!labels)
		labels = "";
	for (int i = 0; i <= n; i++) {
		cum += counts[i];
		append(b, "%s_bucket{%s%sle=\"", name, labels, sep);
		if (i < n)
			value(b, bounds[i]);
		else
			append(b, "+Inf");
		append(b, "\"} %llu\n", (unsigned long long)cum);
	}
	append(b, "%s_sum%s%s%s ", name, *labels ? "{" : "", labels,
	       *labels ? "}" : "");
	value(b, sum);
	append(b, "\n%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels,
	       *labels ? "}" : "", (unsigned long long)cum);
}

void prom_free(struct prom_buf *b)
{
	free(b->p);
	*b = (struct prom_buf){0};
}

/* gp_hist's slots are log2 in ns (slot k: [2^k, 2^(k+1)) ns, slot 0
 * also 0). Below 1.024 us is one bucket; the last slot, +Inf. */
#define LOG2_FIRST_SLOT 9

/* A gp_hist as a classic histogram, bounds 2^(k+1) ns in seconds. */
void metrics_render_log2(struct prom_buf *b, const char *name,
			 const char *help, const struct gp_hist *h)
{
	enum { N = GP_MAX_SLOTS - 1 - LOG2_FIRST_SLOT };
	double bounds[N];
	uint64_t counts[N + 1] = {0};
	int k;

	for (k = 0; k < N; k++)
		bounds[k] = (double)(1ULL << (LOG2_FIRST_SLOT + 1 + k)) / 1e9;
	for (k = 0; k <= LOG2_FIRST_SLOT; k++)
		counts[0] += h->slots[k];
	for (k = LOG2_FIRST_SLOT + 1; k < GP_MAX_SLOTS - 1; k++)
		counts[k - LOG2_FIRST_SLOT] = h->slots[k];
	counts[N] = h->slots[GP_MAX_SLOTS - 1];
	prom_family(b, name, "histogram", help);
	prom_histogram(b, name, NULL, bounds, counts, N, h->sum_ns / 1e9);
}
