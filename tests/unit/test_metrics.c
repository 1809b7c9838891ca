// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the daemon's metrics, counting and exposition (user/daemon/metrics.c).
 * `test_metrics --dump` prints a populated exposition for promtool
 * (tests/bats/metrics.bats).
 */
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "metrics.h"
#include "tap.h"

#define MS 1000000ULL
#define S 1000000000ULL

static void populate(struct gp_metrics *m)
{
	metrics_init(m, 1700000000.5);
	m->sessions_held = 2;
	metrics_on_request(m, MOP_SUSPEND);
	metrics_on_request(m, MOP_STATUS);
	metrics_on_suspend(m, 42, "python3", 3000, 5000, 10 * S);
	metrics_on_resume(m, 42, 2000, false, 12 * S);
	metrics_on_suspend(m, 42, "python3", 3000, 5000, 20 * S);
	metrics_on_suspend(m, 7, "tr\"ain", 1 * MS, 2 * MS, 21 * S);
	metrics_on_resume(m, 7, 0, true, 22 * S);
	metrics_on_error(m, GP_EXIT_TARGET);
	metrics_on_error(m, 99);
}

static char *render(const struct gp_metrics *m, uint64_t now)
{
	struct prom_buf b = {0};

	metrics_render(m, now, &b);
	return b.p;
}

static int has(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	if (!p)
		printf("# missing line: %s\n", line);
	return p != NULL;
}

TEST(hist_slots_are_le_powers_of_two_us)
{
	struct metrics_hist h = {0};

	metrics_hist_add(&h, 0);		/* <= 1 us */
	metrics_hist_add(&h, 1000);		/* <= 1 us */
	metrics_hist_add(&h, 1001);		/* <= 2 us */
	metrics_hist_add(&h, 3 * MS);		/* <= 4096 us */
	metrics_hist_add(&h, 3600 * S);		/* +Inf */
	CHECK(h.counts[0] == 2 && h.counts[1] == 1 && h.counts[12] == 1);
	CHECK(h.counts[METRICS_SLOTS] == 1);
	CHECK(h.sum_ns == 2001 + 3 * MS + 3600 * S);
}

TEST(counts_and_hold_time)
{
	struct gp_metrics m;
	char *t;

	populate(&m);
	CHECK(m.npid == 2);
	CHECK(m.pid[0].suspends == 2 && m.pid[0].resumes == 1);
	CHECK(m.pid[0].suspended_ns == 2 * S && m.pid[0].since_ns == 20 * S);
	CHECK(m.watchdog_resumes == 1);
	CHECK(m.errors[GP_EXIT_TARGET] == 1 && m.errors[GP_EXIT_FAILURE] == 1);
	t = render(&m, 25 * S);
	/* 2 s of the first hold + 5 s of the current one. */
	CHECK(has(t, "gpreempt_suspended_seconds_total{pid=\"42\",comm=\"python3\"} 7\n"));
	CHECK(has(t, "gpreempt_suspended_seconds_total{pid=\"7\",comm=\"tr\\\"ain\"} 1\n"));
	CHECK(has(t, "gpreempt_suspends_total{pid=\"42\",comm=\"python3\"} 2\n"));
	CHECK(has(t, "gpreempt_resumes_total{pid=\"7\",comm=\"tr\\\"ain\"} 1\n"));
	CHECK(has(t, "gpreempt_sessions_held 2\n"));
	CHECK(has(t, "gpreempt_processes_suspended 1\n"));
	CHECK(has(t, "gpreempt_requests_total{op=\"suspend\"} 1\n"));
	CHECK(has(t, "gpreempt_requests_total{op=\"attach\"} 0\n"));
	CHECK(has(t, "gpreempt_errors_total{cause=\"target_refused\"} 1\n"));
	CHECK(has(t, "gpreempt_errors_total{cause=\"runtime\"} 1\n"));
	CHECK(has(t, "gpreempt_errors_total{cause=\"no_kfd\"} 0\n"));
	CHECK(has(t, "gpreempt_watchdog_resumes_total 1\n"));
	CHECK(has(t, "gpreempt_start_time_seconds 1700000000.5\n"));
	/* Three suspends: two of 3 us, one of 1 ms (<= 1024 us). */
	CHECK(has(t, "gpreempt_suspend_duration_seconds_bucket{le=\"4e-06\"} 2\n"));
	CHECK(has(t, "gpreempt_suspend_duration_seconds_bucket{le=\"0.001024\"} 3\n"));
	CHECK(has(t, "gpreempt_suspend_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
	CHECK(has(t, "gpreempt_suspend_duration_seconds_count 3\n"));
	CHECK(has(t, "gpreempt_suspend_duration_seconds_sum 0.001006\n"));
	/* One resume ioctl: the watchdog's resume after exit made none. */
	CHECK(has(t, "gpreempt_resume_duration_seconds_count 1\n"));
	CHECK(has(t, "gpreempt_trigger_to_suspend_seconds_count 3\n"));
	free(t);
}

TEST(gone_stops_the_clock_without_a_resume)
{
	struct gp_metrics m;

	metrics_init(&m, 0);
	metrics_on_suspend(&m, 9, "x", 1, 1, 5 * S);
	metrics_on_gone(&m, 9, 8 * S);
	metrics_on_gone(&m, 10, 8 * S);		/* unknown: nothing */
	CHECK(m.npid == 1 && m.pid[0].resumes == 0);
	CHECK(m.pid[0].suspended_ns == 3 * S && m.pid[0].since_ns == 0);
	metrics_on_gone(&m, 9, 9 * S);		/* twice: no more time */
	CHECK(m.pid[0].suspended_ns == 3 * S);
}

TEST(pid_rows_are_bounded_and_held_ones_stay)
{
	struct gp_metrics *m = malloc(sizeof(*m));

	metrics_init(m, 0);
	/* pid 1000 stays held; every other row is resumed. */
	metrics_on_suspend(m, 1000, "held", 1, 1, 1);
	for (int i = 1; i < METRICS_MAX_PIDS; i++) {
		metrics_on_suspend(m, i, "x", 1, 1, 10 + i);
		metrics_on_resume(m, i, 1, false, 10 + i);
	}
	CHECK(m->npid == METRICS_MAX_PIDS);
	/* A new pid evicts the least recently active resumed one (pid 1). */
	metrics_on_suspend(m, 5000, "new", 1, 1, 100000);
	CHECK(m->npid == METRICS_MAX_PIDS);
	int seen1 = 0, seen1000 = 0, seen5000 = 0;
	for (int i = 0; i < m->npid; i++) {
		seen1 += m->pid[i].pid == 1;
		seen1000 += m->pid[i].pid == 1000;
		seen5000 += m->pid[i].pid == 5000;
	}
	CHECK(!seen1 && seen1000 && seen5000);
	free(m);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump")) {
		struct gp_metrics m;
		char *t;

		populate(&m);
		t = render(&m, 25 * S);
		fputs(t, stdout);
		free(t);
		return 0;
	}
	RUN(hist_slots_are_le_powers_of_two_us);
	RUN(counts_and_hold_time);
	RUN(gone_stops_the_clock_without_a_resume);
	RUN(pid_rows_are_bounded_and_held_ones_stay);
	return tap_done();
}
