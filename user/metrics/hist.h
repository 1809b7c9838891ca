/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 latency histograms, printed the way libbpf-tools' print_log2_hist
 * does (header "<unit> : count    distribution", rows
 * "low -> high : count |****|", 40-star bars, trailing empty slots
 * trimmed), plus an NDJSON form.
 *
 * Units. Slot i of struct gp_hist counts durations d with
 * floor(log2(d / U)) == i (slot 0 also holds 0), U = gp_unit_ns(unit).
 * Like libbpf-tools, the BPF side divides before bucketing: the loader
 * sets the rodata gp_hist_unit_ns = gp_unit_ns(-m/-u) before load
 * (bpf/logic.bpf.h) and passes the same unit here in gp_out_opts.unit;
 * the rows are labelled with it. Why not bucket ns and convert here: 1 us
 * is no power of two of 1 ns, so ns slots straddle every us slot boundary
 * and no shift or merge of ns slots gives true us rows. sum_ns is always
 * ns; count is exact in any unit.
 *
 * NDJSON, one object per histogram:
 *   {"type":"hist","op":"suspend","sub":0,"title":"suspend latency",
 *    "unit":"usecs","unit_ns":1000,"count":N,"sum_ns":N,
 *    "buckets":[{"low":0,"high":1,"count":N},...]}
 * low/high are in "unit", inclusive, like the text rows; buckets are the
 * non-empty slots only. For dbg_trap, "sub" is the debug-trap op
 * ("dbg_op":"suspend_queues" is added) and there is one object per op.
 */
#ifndef GP_HIST_H
#define GP_HIST_H

#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "gpreempt.h"
#include "names.h"
#include "outopts.h"

/* Count ns in a user-space struct gp_hist with ns slots (unit 1 ns), as
 * the BPF side buckets: slot i holds [2^i, 2^(i+1)), slot 0 also 0. */
void gp_hist_add(struct gp_hist *h, uint64_t ns);
/* The rows print_log2_hist prints for slot i: low -> high (inclusive). */
void gp_hist_bounds(unsigned int slot, uint64_t *low, uint64_t *high);

/* Text rows, exactly print_log2_hist(vals, n, label). */
void gp_print_log2_hist(FILE *f, const __u64 *vals, int n,
			const char *label);

/*
 * Title for one histogram key: "create latency", "dbg_trap
 * suspend_queues latency"; with pids (from -p) "... (pid 12, 34)".
 * Returns buf.
 */
char *gp_hist_title(char *buf, size_t len, const struct gp_hist_key *k,
		    const int *pids, int npids);

/*
 * One histogram. Text: a blank line, "<title>:", the rows, a blank line,
 * "avg = A <unit>, total: T <unit>, count: N" (funclatency's summary).
 * JSON: one object.
 */
void gp_hist_print(FILE *f, const struct gp_hist_key *k,
		   const struct gp_hist *h, const struct gp_out_opts *o,
		   const int *pids, int npids);

/*
 * The non-empty histograms of gp_hists (a per-CPU array indexed by
 * gp_hist_idx), each summed over the CPUs, ordered by op then sub.
 * Returns how many (*keys, *vals: malloc'd, the caller frees), or -errno.
 */
int gp_hists_read(int map_fd, struct gp_hist_key **keys,
		  struct gp_hist **vals);

/*
 * Every histogram of the map (fd of gp_hists), ordered by op then sub.
 * Returns the number printed, or -errno. Histograms with count 0 are
 * skipped. In text mode, nothing at all prints "No latencies recorded."
 */
int gp_hists_print(FILE *f, int map_fd, const struct gp_out_opts *o);
int gp_hists_print_pids(FILE *f, int map_fd, const struct gp_out_opts *o,
			const int *pids, int npids);

#endif
