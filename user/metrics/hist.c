// SPDX-License-Identifier: GPL-2.0
/* Log2 latency histograms: libbpf-tools' text layout, and NDJSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hist.h"
#include "json.h"

#define STARS 40

void gp_hist_bounds(unsigned int slot, uint64_t *low, uint64_t *high)
{
	/* Slot 0 holds 0 and 1; slot i >= 1 holds [2^i, 2^(i+1) - 1]. */
	*high = (2ULL << slot) - 1;
	*low = slot ? 1ULL << slot : 0;
}

static void bar(FILE *f, uint64_t val, uint64_t max, int width)
{
	uint64_t n = (val < max ? val : max) * width / max;
	int i;

	for (i = 0; i < width; i++)
		fputc(i < (int)n ? '*' : ' ', f);
	if (val > max)
		fputc('+', f);
}

void gp_print_log2_hist(FILE *f, const __u64 *vals, int n,
			const char *label)
{
	int last = -1, i, w, stars;
	uint64_t max = 0, low, high;

	for (i = 0; i < n; i++) {
		if (vals[i])
			last = i;
		if (vals[i] > max)
			max = vals[i];
	}
	if (last < 0)
		return;
	/* Past 32 rows the columns widen and the bar halves. */
	w = last <= 32 ? 10 : 20;
	stars = last <= 32 ? STARS : STARS / 2;
	fprintf(f, "%*s%-*s : count    distribution\n", last <= 32 ? 5 : 15,
		"", last <= 32 ? 19 : 29, label);
	for (i = 0; i <= last; i++) {
		gp_hist_bounds(i, &low, &high);
		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8llu |", w, low,
			w, high, (unsigned long long)vals[i]);
		bar(f, vals[i], max, stars);
		fputs("|\n", f);
	}
}

static const char *op_str(__u32 op, char *buf, size_t len)
{
	return names_or_num(gp_op_name(op), op, buf, len);
}

/* Keys with a sub-key: per debug-trap op, per phase of a suspend. */
static bool has_sub(const struct gp_hist_key *k)
{
	return k->op == GP_OP_DBG_TRAP ||
	       ((k->op == GP_OP_SUSPEND || k->op == GP_OP_RESUME) && k->sub);
}

char *gp_hist_title(char *buf, size_t len, const struct gp_hist_key *k,
		    const int *pids, int npids)
{
	char opb[16], subb[16];
	const char *sub = NULL;
	size_t off;
	int i;

	if (has_sub(k))
		sub = names_or_num(gp_hist_sub_name(k->op, k->sub), k->sub,
				     subb, sizeof(subb));
	/* "dbg_trap suspend_queues latency", "suspend phase hw_fence ..." */
	off = snprintf(buf, len, "%s%s%s latency", op_str(k->op, opb,
			sizeof(opb)), !sub ? "" : k->op == GP_OP_DBG_TRAP ?
			" " : " phase ", sub ? sub : "");
	for (i = 0; i < npids && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%d",
				i ? ", " : " (pid ", pids[i]);
	if (npids && off < len)
		snprintf(buf + off, len - off, ")");
	return buf;
}

static void hist_text(FILE *f, const struct gp_hist_key *k,
		      const struct gp_hist *h, const struct gp_out_opts *o,
		      const char *title)
{
	uint64_t u = gp_unit_ns(o->unit);
	const char *label = gp_unit_label(o->unit);

	/* A blank line before each: they follow the map or another one. */
	fprintf(f, "\n%s:\n", title);
	gp_print_log2_hist(f, h->slots, GP_MAX_SLOTS, label);
	/* funclatency's summary line, in the same unit. */
	fprintf(f, "\navg = %llu %s, total: %llu %s, count: %llu\n",
		(unsigned long long)(h->count ? h->sum_ns / h->count / u : 0),
		label, (unsigned long long)(h->sum_ns / u), label,
		(unsigned long long)h->count);
}

static void hist_json(FILE *f, const struct gp_hist_key *k,
		      const struct gp_hist *h, const struct gp_out_opts *o,
		      const char *title)
{
	char opb[16], subb[16];
	uint64_t low, high;
	const char *sub;
	struct json j;
	int i;

	json_begin(&j, f);
	json_str(&j, "type", "hist");
	json_str(&j, "op", op_str(k->op, opb, sizeof(opb)));
	json_u64(&j, "sub", k->sub);
	if (has_sub(k)) {
		sub = names_or_num(gp_hist_sub_name(k->op, k->sub), k->sub,
				     subb, sizeof(subb));
		json_str(&j, k->op == GP_OP_DBG_TRAP ? "dbg_op" : "phase",
			 sub);
	}
	json_str(&j, "title", title);
	json_str(&j, "unit", gp_unit_label(o->unit));
	json_u64(&j, "unit_ns", gp_unit_ns(o->unit));
	json_u64(&j, "count", h->count);
	json_u64(&j, "sum_ns", h->sum_ns);
	json_arr_open(&j, "buckets");
	for (i = 0; i < GP_MAX_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		gp_hist_bounds(i, &low, &high);
		json_obj_open(&j, NULL);
		json_u64(&j, "low", low);
		json_u64(&j, "high", high);
		json_u64(&j, "count", h->slots[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_end(&j);
}

void gp_hist_print(FILE *f, const struct gp_hist_key *k,
		   const struct gp_hist *h, const struct gp_out_opts *o,
		   const int *pids, int npids)
{
	char title[256];

	gp_hist_title(title, sizeof(title), k, pids, npids);
	if (o->json)
		hist_json(f, k, h, o, title);
	else
		hist_text(f, k, h, o, title);
}

/*
 * One lookup per entry, not gp_map_dump(): its buffers are sized for a
 * hash walk (twice max_entries), and per-CPU values are 272 bytes a CPU,
 * ~37 MB at each read on a 256-CPU host, where this needs 70 KB.
 */
int gp_hists_read(int map_fd, struct gp_hist_key **keys,
		  struct gp_hist **vals)
{
	int ncpu = libbpf_num_possible_cpus(), n = 0, err = 0;
	struct gp_hist *cpu;
	__u32 idx;

	*keys = NULL;
	*vals = NULL;
	if (ncpu < 1)
		return ncpu < 0 ? ncpu : -EINVAL;
	cpu = calloc(ncpu, sizeof(*cpu));	/* 8-byte multiple: no pad */
	*keys = calloc(GP_HIST_ENTRIES, sizeof(**keys));
	*vals = calloc(GP_HIST_ENTRIES, sizeof(**vals));
	if (!cpu || !*keys || !*vals) {
		err = -ENOMEM;
		goto out;
	}
	for (idx = 0; idx < GP_HIST_ENTRIES; idx++) {
		struct gp_hist *sum = &(*vals)[n];

		if (bpf_map_lookup_elem(map_fd, &idx, cpu)) {
			if (errno != ENOENT)	/* ENOENT: a smaller map */
				err = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++) {
			for (int s = 0; s < GP_MAX_SLOTS; s++)
				sum->slots[s] += cpu[c].slots[s];
			sum->count += cpu[c].count;
			sum->sum_ns += cpu[c].sum_ns;
		}
		if (sum->count)
			(*keys)[n++] = gp_hist_key_of(idx);
	}
out:
	free(cpu);
	if (err) {
		free(*keys);
		free(*vals);
		*keys = NULL;
		*vals = NULL;
		return err;
	}
	return n;
}

int gp_hists_print_pids(FILE *f, int map_fd, const struct gp_out_opts *o,
			const int *pids, int npids)
{
	struct gp_hist_key *keys;
	struct gp_hist *vals;
	int n = gp_hists_read(map_fd, &keys, &vals);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		gp_hist_print(f, &keys[i], &vals[i], o, pids, npids);
	free(keys);
	free(vals);
	if (!n && !o->json)
		fprintf(f, "No latencies recorded.\n");
	return n;
}

int gp_hists_print(FILE *f, int map_fd, const struct gp_out_opts *o)
{
	return gp_hists_print_pids(f, map_fd, o, NULL, 0);
}

void gp_hist_add(struct gp_hist *h, uint64_t ns)
{
	unsigned int slot = 0;
	uint64_t v = ns;

	/* Slot i holds [2^i, 2^(i+1)), slot 0 also 0 (hist.h). */
	while (v > 1 && slot < GP_MAX_SLOTS - 1) {
		v >>= 1;
		slot++;
	}
	h->slots[slot]++;
	h->count++;
	h->sum_ns += ns;
}
