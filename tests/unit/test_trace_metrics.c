// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-trace's Prometheus families (user/trace/trace_metrics.c).
 * L0: tm_render, the function a scrape calls, from a snapshot of the
 * maps built here (counts, log2 histograms in the tracer's unit, queue
 * rows), and the bucket bounds per unit. L1 host-only: that rendering
 * served over real loopback TCP by metrics/metrics_http.c (the tracer's
 * endpoint minus the BPF map reads, which need a loaded probe: covered
 * in the VM, tests/vm/26-trace-metrics.sh).
 * `test_trace_metrics --dump` prints the exposition for promtool
 * (tests/bats/metrics.bats).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trace_metrics.h"
#include "util.h"

#define US 1000ULL

static struct gp_hist_key K[5];
static struct gp_hist H[5];
static struct gp_queue_row R[5];

static struct tm_snap scenario(void)
{
	struct tm_snap s = { .unit_ns = US, .have_counts = true };

	memset(H, 0, sizeof(H));
	s.counts[GP_OP_CREATE] = (struct gp_count){ 3, 1 };
	s.counts[GP_OP_SUSPEND] = (struct gp_count){ 2, 0 };
	/* create: 1 call < 2 us (slot 0), 2 in [8, 16) us (slot 3) */
	K[0] = (struct gp_hist_key){ GP_OP_CREATE, 0 };
	H[0].slots[0] = 1;
	H[0].slots[3] = 2;
	H[0].count = 3;
	H[0].sum_ns = 1500 + 9000 + 10000;
	/* the per-key map walk may repeat a key: rendered once */
	K[1] = K[0];
	H[1] = H[0];
	/* dbg_trap suspend_queues (6): one past the last bound (slot 31) */
	K[2] = (struct gp_hist_key){ GP_OP_DBG_TRAP, 6 };
	H[2].slots[GP_MAX_SLOTS - 1] = 1;
	H[2].count = 1;
	H[2].sum_ns = 3000ULL * 1000000000ULL;
	/* suspend, whole and its fence phase */
	K[3] = (struct gp_hist_key){ GP_OP_SUSPEND, 0 };
	H[3].slots[1] = 2;
	H[3].count = 2;
	H[3].sum_ns = 5000;
	K[4] = (struct gp_hist_key){ GP_OP_SUSPEND,
				     GP_PHASE_SUB(GP_PHASE_FENCE) };
	H[4].slots[0] = 2;
	H[4].count = 2;
	H[4].sum_ns = 800;
	s.hkeys = K;
	s.hvals = H;
	s.nhist = 5;
	/* gpu 200: pid 12's evicted queue; gpu 100: pid 11's two, one
	 * suspended (3 + 1 suspends, 2 resumes) and pid 12's active one */
	R[0] = (struct gp_queue_row){ .k = { .pid = 12, .gpu_id = 200, .queue_id = 1 },
		.v = { .state = GP_QS_EVICTED } };
	R[1] = (struct gp_queue_row){ .k = { .pid = 11, .gpu_id = 100, .queue_id = 1 },
		.v = { .state = GP_QS_SUSPENDED, .suspends = 3, .resumes = 2 } };
	R[2] = (struct gp_queue_row){ .k = { .pid = 11, .gpu_id = 100, .queue_id = 2 },
		.v = { .state = GP_QS_ACTIVE, .suspends = 1 } };
	R[3] = (struct gp_queue_row){ .k = { .pid = 12, .gpu_id = 100, .queue_id = 2 },
		.v = { .state = GP_QS_ACTIVE } };
	s.rows = R;
	s.nrows = 4;
	s.lost = 7;
	s.queues_full = 1;
	return s;
}

static char *text(const struct tm_snap *s)
{
	struct prom_buf b = {0};

	tm_render(s, &b);
	return b.oom ? NULL : b.p;
}

static int has(const char *t, const char *line)
{
	const char *p = t ? strstr(t, line) : NULL;

	if (!p)
		printf("# missing line: %s\n", line);
	return p != NULL;
}

static int count(const char *t, const char *s)
{
	int n = 0;

	for (const char *p = t; (p = strstr(p, s)); p++)
		n++;
	return n;
}

TEST(calls_and_errors_per_op)
{
	struct tm_snap s = scenario();
	char *t = text(&s);

	CHECK(has(t, "# TYPE gpreempt_trace_calls_total counter\n"));
	CHECK(has(t, "\ngpreempt_trace_calls_total{op=\"create\"} 3\n"));
	CHECK(has(t, "\ngpreempt_trace_calls_total{op=\"suspend\"} 2\n"));
	/* every op, zeros too: a series does not appear mid-run */
	CHECK(has(t, "\ngpreempt_trace_calls_total{op=\"exit\"} 0\n"));
	CHECK(count(t, "\ngpreempt_trace_calls_total{") == GP_OP_MAX);
	CHECK(has(t, "\ngpreempt_trace_errors_total{op=\"create\"} 1\n"));
	CHECK(has(t, "\ngpreempt_trace_events_lost_total 7\n"));
	CHECK(has(t, "\ngpreempt_trace_map_full_total{map=\"hists\"} 0\n"));
	CHECK(has(t, "\ngpreempt_trace_map_full_total{map=\"queues\"} 1\n"));
	free(t);
}

TEST(histograms_in_seconds_from_the_unit_slots)
{
	struct tm_snap s = scenario();
	char *t = text(&s);

	CHECK(has(t, "# TYPE gpreempt_trace_duration_seconds histogram\n"));
	/* slot i holds d < 2^(i+1) us: slot 0 -> le 2 us, slot 3 -> 16 us */
	CHECK(has(t, "gpreempt_trace_duration_seconds_bucket{op=\"create\",le=\"2e-06\"} 1\n"));
	CHECK(has(t, "gpreempt_trace_duration_seconds_bucket{op=\"create\",le=\"8e-06\"} 1\n"));
	CHECK(has(t, "gpreempt_trace_duration_seconds_bucket{op=\"create\",le=\"1.6e-05\"} 3\n"));
	CHECK(has(t, "gpreempt_trace_duration_seconds_bucket{op=\"create\",le=\"+Inf\"} 3\n"));
	CHECK(has(t, "gpreempt_trace_duration_seconds_sum{op=\"create\"} 2.05e-05\n"));
	CHECK(has(t, "gpreempt_trace_duration_seconds_count{op=\"create\"} 3\n"));
	CHECK(count(t, "gpreempt_trace_duration_seconds_count{op=\"create\"}") == 1);
	CHECK(has(t, "gpreempt_trace_duration_seconds_bucket{op=\"suspend\",le=\"4e-06\"} 2\n"));
	/* the last slot has no upper bound: only +Inf */
	CHECK(has(t, "gpreempt_trace_dbg_trap_duration_seconds_bucket{dbg_op=\"suspend_queues\",le=\"67.108864\"} 0\n"));
	CHECK(has(t, "gpreempt_trace_dbg_trap_duration_seconds_bucket{dbg_op=\"suspend_queues\",le=\"+Inf\"} 1\n"));
	CHECK(has(t, "gpreempt_trace_dbg_trap_duration_seconds_sum{dbg_op=\"suspend_queues\"} 3000\n"));
	CHECK(has(t, "gpreempt_trace_phase_duration_seconds_bucket{op=\"suspend\",phase=\"hw_fence\",le=\"2e-06\"} 2\n"));
	/* phases are not in the whole-op family */
	CHECK(count(t, "gpreempt_trace_duration_seconds_count{op=\"suspend\"}") == 1);
	free(t);
}

TEST(bounds_follow_the_unit)
{
	double b[GP_MAX_SLOTS];
	int n;

	n = tm_bounds(US, b);
	CHECK(n == 26 && b[0] == 2e-6 && b[25] == 67.108864);
	n = tm_bounds(1000 * US, b);
	CHECK(n == 16 && b[0] == 0.002 && b[15] == 65.536);
	n = tm_bounds(1, b);	/* ns: every slot but the clamped last */
	CHECK(n == GP_MAX_SLOTS - 1 && b[0] == 2e-9);
}

TEST(queues_by_gpu_and_state_and_per_process)
{
	struct tm_snap s = scenario();
	char *t = text(&s);

	CHECK(has(t, "# TYPE gpreempt_queues gauge\n"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"100\",state=\"active\"} 2\n"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"100\",state=\"suspended\"} 1\n"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"100\",state=\"evicted\"} 0\n"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"200\",state=\"evicted\"} 1\n"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"200\",state=\"evicted_suspended\"} 0\n"));
	CHECK(has(t, "\ngpreempt_trace_process_queue_suspends{pid=\"11\"} 4\n"));
	CHECK(has(t, "\ngpreempt_trace_process_queue_resumes{pid=\"11\"} 2\n"));
	CHECK(has(t, "\ngpreempt_trace_process_queue_suspends{pid=\"12\"} 0\n"));
	CHECK(has(t, "\ngpreempt_trace_process_series_dropped 0\n"));
	/* the caller's rows are not reordered */
	CHECK(R[0].k.pid == 12 && R[0].k.gpu_id == 200);
	free(t);
}

TEST(per_process_series_are_bounded)
{
	struct tm_snap s = { .unit_ns = US };
	struct gp_queue_row *r = calloc(TM_MAX_PIDS + 44, sizeof(*r));
	char *t;

	for (int i = 0; i < TM_MAX_PIDS + 44; i++)
		r[i].k = (struct gp_queue_key){ .pid = 1000 + i, .gpu_id = 1,
						.queue_id = 1 };
	s.rows = r;
	s.nrows = TM_MAX_PIDS + 44;
	t = text(&s);
	CHECK(count(t, "\ngpreempt_trace_process_queue_suspends{") ==
	      TM_MAX_PIDS);
	CHECK(has(t, "\ngpreempt_trace_process_series_dropped 44\n"));
	/* no counts map read: no calls family, the rest still renders */
	CHECK(!strstr(t, "gpreempt_trace_calls_total"));
	CHECK(has(t, "\ngpreempt_queues{gpu_id=\"1\",state=\"active\"} 300\n"));
	free(t);
	free(r);
}

static void render(void *ctx, struct prom_buf *b)
{
	tm_render(ctx, b);
}

/* L1: a scrape over loopback through metrics_http, one thread. */
TEST(served_over_loopback)
{
	struct tm_snap s = scenario();
	struct mhttp h;
	struct gp_err e = {};
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct pollfd p[1 + MHTTP_MAX_CONN];
	char buf[65536];
	size_t got = 0;
	int fd, n;

	char addr[32];
	int k;

	/* a free port (the parser refuses port 0, as an operator's would) */
	for (k = 0; k < 20; k++) {
		snprintf(addr, sizeof(addr), "127.0.0.1:%d",
			 20000 + (getpid() * 11 + k * 137) % 30000);
		if (!mhttp_listen(&h, addr, &e))
			break;
	}
	CHECK(k < 20);
	CHECK(!getsockname(h.lfd, (struct sockaddr *)&a, &alen));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(!connect(fd, (struct sockaddr *)&a, sizeof(a)));
	CHECK(write(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 35) == 35);
	for (int round = 0; round < 50; round++) {
		n = mhttp_pollfds(&h, p);
		poll(p, n, 20);
		mhttp_service(&h, p, n, monotonic_ns(), render, &s);
		struct pollfd c = { fd, POLLIN, 0 };
		if (poll(&c, 1, 0) == 1) {
			ssize_t r = read(fd, buf + got, sizeof(buf) - 1 - got);

			if (r <= 0)
				break;
			got += r;
		}
	}
	buf[got] = '\0';
	CHECK(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	CHECK(has(buf, "Content-Type: text/plain; version=0.0.4"));
	CHECK(has(buf, "\ngpreempt_trace_calls_total{op=\"create\"} 3\n"));
	CHECK(has(buf, "\ngpreempt_queues{gpu_id=\"200\",state=\"evicted\"} 1\n"));
	CHECK(h.scrapes == 1);
	close(fd);
	mhttp_close(&h);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump")) {
		struct tm_snap s = scenario();
		char *t = text(&s);

		fputs(t ? t : "", stdout);
		free(t);
		return t ? 0 : 1;
	}
	RUN(calls_and_errors_per_op);
	RUN(histograms_in_seconds_from_the_unit_slots);
	RUN(bounds_follow_the_unit);
	RUN(queues_by_gpu_and_state_and_per_process);
	RUN(per_process_series_are_bounded);
	RUN(served_over_loopback);
	return tap_done();
}
