/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-trace's Prometheus endpoint (--metrics ADDR): what the
 * tracer's BPF maps hold, as text exposition (metrics/prom.h), served from
 * the tracer's own poll loop by metrics/metrics_http.h. Same maps in event
 * and summary mode (per-op counts, histograms and the queue map are kept
 * in the kernel either way), so both serve the same families:
 *
 *   gpreempt_trace_calls_total{op}            counter  traced calls per op
 *   gpreempt_trace_errors_total{op}           counter  of them, failed (ret < 0)
 *   gpreempt_trace_duration_seconds{op}       histogram entry..return per op
 *   gpreempt_trace_dbg_trap_duration_seconds{dbg_op} histogram per debug-trap op
 *   gpreempt_trace_phase_duration_seconds{op,phase}  histogram HW steps of a
 *                                                    suspend/resume
 *   gpreempt_trace_events_lost_total          counter  ring buffer full
 *   gpreempt_trace_map_full_total{map}        counter  samples/rows not kept
 *   gpreempt_queues{gpu_id,state}             gauge    queues in the map
 *   gpreempt_trace_process_queue_suspends{pid} gauge   suspensions counted
 *   gpreempt_trace_process_queue_resumes{pid}  gauge   on its queues now mapped
 *
 * Histogram buckets. BPF buckets floor(log2(d / U)) with U the tracer's
 * unit (-u: 1 us, -m: 1 ms; bpf/maps.bpf.h gp_hist_add), so slot i holds
 * d < 2^(i+1) U: its bound is le = 2^(i+1) U in seconds (2 us .. 67 s
 * with -u, 2 ms .. 65.5 s with -m); slots past TM_MAX_BOUND_NS go to
 * +Inf. The bucket set is fixed for a run, as Prometheus wants; _sum is
 * exact (BPF sums ns).
 *
 * The per-process gauges sum the suspends/resumes columns of the queue
 * map: a destroyed queue takes its count with it, so they can go down
 * (not counters). At most TM_MAX_PIDS processes (lowest pids first);
 * gpreempt_trace_process_series_dropped says how many did not fit.
 * `gpu_id` is KFD's gpu_id (topology nodes/N/gpu_id), the label name
 * AMD's device metrics exporter uses.
 */
#ifndef GP_TRACE_METRICS_H
#define GP_TRACE_METRICS_H

#include <stdint.h>
#include <linux/types.h>
#include "gpreempt.h"
#include "metrics_http.h"
#include "prom.h"
#include "queues.h"

#define TM_MAX_PIDS 256
#define TM_MAX_BOUND_NS (100ULL * 1000000000ULL)

struct gp_probe;

/* What the tracer's maps held at one scrape (gp_probe_* readers). */
struct tm_snap {
	uint64_t unit_ns;			/* histogram unit U */
	bool have_counts;
	struct gp_count counts[GP_OP_MAX];
	const struct gp_hist_key *hkeys;	/* may repeat a key */
	const struct gp_hist *hvals;
	int nhist;
	const struct gp_queue_row *rows;	/* any order */
	int nrows;
	uint64_t lost, hist_full, queues_full;
};

/* The exposition of s (pure). */
void tm_render(const struct tm_snap *s, struct prom_buf *b);
/* The bucket bounds in seconds for unit_ns; returns how many (<=
 * GP_MAX_SLOTS - 1). Slot i < n counts toward bound i; the rest +Inf. */
int tm_bounds(uint64_t unit_ns, double *bounds);

/* The endpoint inside gpreempt-trace's loop. */
struct tm_server {
	struct mhttp http;
	struct gp_probe *probe;
	uint64_t unit_ns;
};

/* Listen on addr (after the probes attached). 0 or -1 with e. */
int tm_listen(struct tm_server *s, const char *addr, struct gp_probe *p,
	      uint64_t unit_ns, struct gp_err *e);
/*
 * The loop's wait with the endpoint on: poll the probe's ring fd (if it
 * has one) and the HTTP sockets for up to timeout_ms, serve HTTP, then
 * read the ring without blocking (when it has one). Returns what
 * gp_probe_poll returns (events, or -errno), 0 in summary mode.
 */
int tm_wait(struct tm_server *s, int timeout_ms);
void tm_close(struct tm_server *s);

#endif
