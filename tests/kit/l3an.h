/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The co-location kit's analysis (scripts/l3-colocate.sh writes the raw
 * data, tests/kit/l3-analyze.c is the program, this is its logic so the
 * L0 test tests/unit/test_snapshot_l3.c can check it on fixture data).
 *
 * Input: DIR/runs/NAME/ for NAME in online-alone, offline-alone,
 * both-plain, both-notify, both-queues (any may be missing), each with
 *   online.ndjson   {"type":"request","id":N,"arrival_ns":N,
 *                    "start_ns":N,"end_ns":N[,"error":".."]}
 *                   (CLOCK_BOOTTIME; open loop: latency = end - arrival)
 *   offline.ndjson  {"type":"progress","t_ns":N,"iters":N}
 *   trace.ndjson    gpreempt-trace -j events (user/trace/output.h)
 * Output: a text summary (under 80 columns), NDJSON ("run", "phase",
 * "verdict" objects), and plot data under DIR/plots/.
 *
 * Verdicts compare with "<" (a value equal to the threshold fails):
 *   online_p99    p99 online latency < 50 ms (ideal < 10 ms)
 *   offline_loss  1 - throughput / offline-alone's < 20 % (ideal < 5 %)
 *   suspend_p99   p99 suspend latency < 10 ms (the DBG_TRAP
 *                 SUSPEND_QUEUES ioctl when traced, else the kernel's
 *                 suspend_queues)
 *   resume_p99    the same for resume < 10 ms
 *   cycles        suspend+resume pairs >= min_cycles with no failure
 * A verdict with no data is "n/a", never a pass.
 */
#ifndef GP_L3AN_H
#define GP_L3AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define L3_NRUNS 5
extern const char *const l3_run_names[L3_NRUNS];

enum l3_result { L3_NA = 0, L3_PASS, L3_FAIL };

struct l3_ivl {
	uint64_t a, b;		/* boot ns */
};

struct l3_phase {
	char name[16];		/* "kernel", "hw_unmap", "hw_fence", ... */
	double *ms;
	size_t n, cap;
};

#define L3_MAX_PHASES 8

struct l3_run {
	char name[32];
	bool present;
	uint64_t t0, t1;	/* first / last timestamp seen */
	double *lat_ms;		/* sorted */
	size_t nlat, latcap;
	size_t req_errors;
	struct l3_ivl *busy;	/* online requests start..end */
	size_t nbusy, busycap;
	bool have_thr;
	double thr;		/* offline iterations per second */
	uint64_t it0, it1, pt0, pt1;
	double *susp_ms, *res_ms; /* sorted */
	size_t nsusp, suspcap, nres, rescap;
	struct l3_ivl *susp;	/* offline suspended intervals */
	size_t nsi, sicap;
	struct l3_phase susp_ph[L3_MAX_PHASES], res_ph[L3_MAX_PHASES];
	size_t failures;	/* failed suspend/resume + request errors */
	size_t bad_lines;
};

struct l3_verdict {
	const char *run;
	const char *name;	/* online_p99, ... */
	double value;
	double target, ideal;	/* ideal < 0: none */
	enum l3_result result, ideal_result;
	size_t failures;	/* cycles only */
};

struct l3_opts {
	unsigned int min_cycles;	/* default 100 */
	double online_ms, online_ideal_ms;	/* 50, 10 */
	double loss_pct, loss_ideal_pct;	/* 20, 5 */
	double op_ms;				/* 10 */
};

void l3_opts_default(struct l3_opts *o);

/* Nearest-rank percentile of a sorted array (p in (0, 1]); n > 0. */
double l3_pct(const double *sorted, size_t n, double p);
/* value < thr: pass; have false: n/a. */
enum l3_result l3_lt(double value, double thr, bool have);
const char *l3_result_name(enum l3_result r);

/* One JSON number or string field of a flat NDJSON line. 0 or -1. */
int l3_json_u64(const char *line, const char *key, uint64_t *v);
int l3_json_str(const char *line, const char *key, char *buf, size_t len);

/* Load DIR/runs/NAME (absent: r->present false). 0 or -errno. */
int l3_load_run(const char *dir, const char *name, struct l3_run *r);
void l3_run_free(struct l3_run *r);

/* Verdicts for one run with gpreempt, against offline-alone. Fills up
 * to 5 entries of v; returns the count. */
int l3_verdicts(const struct l3_run *run, const struct l3_run *offline_alone,
		const struct l3_opts *o, struct l3_verdict *v);

/*
 * The whole analysis of DIR: text to txt, NDJSON to json (either may be
 * NULL), plot data to DIR/plots/ (when write_plots). Returns 0 when
 * every verdict of every run with gpreempt passed, 1 when one failed,
 * 2 when there was nothing to judge, -errno on an I/O error.
 */
int l3_analyze(const char *dir, const struct l3_opts *o, FILE *txt,
	       FILE *json, bool write_plots);

#endif
