// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the arbiter's Prometheus families (user/arbiter/metrics_policy.c),
 * rendered from a policy driven with an injected clock.
 * `test_metrics_policy --dump` prints the exposition for promtool
 * (tests/bats/metrics.bats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "metrics_policy.h"
#include "tap.h"
#include "util.h"

#define MS NSEC_PER_MSEC
#define T0 (1000 * NSEC_PER_SEC)

static struct gp_policy P;
static struct gp_pactions A;

static const char *comm(void *ctx, int pid)
{
	(void)ctx;
	return pid == 11 ? "train\"11" : "train12";
}

/* Two offline processes, one busy period of online, a budget resume at
 * 50 ms of a 100 ms window with share 50%; rendered at 60 ms. */
static char *scenario(void)
{
	struct gp_policy_cfg c;
	struct prom_buf b = {0};

	gp_policy_cfg_default(&c);
	c.min_offline_share = 50;
	c.window_ns = 100 * MS;
	gp_policy_init(&P, &c, T0);
	gp_policy_offline_attached(&P, T0, 11, &A);
	gp_policy_offline_attached(&P, T0, 12, &A);
	gp_policy_busy(&P, T0, 1, 100, &A);
	gp_policy_tick(&P, T0 + 50 * MS, &A);
	A.n = 0;
	gp_hist_add(&P.st.trigger_to_suspend, 3000);	/* 3 us */
	gp_hist_add(&P.st.suspend_ioctl, 500);
	gp_hist_add(&P.st.suspend_ioctl, 1500);
	gp_hist_add(&P.st.resume_ioctl, 5 * NSEC_PER_SEC);
	metrics_render_policy(&P, T0 + 60 * MS, comm, NULL, &b);
	return b.p;
}

static int has(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	if (!p)
		printf("# missing line: %s\n", line);
	return p != NULL;
}

TEST(counters_and_gauges)
{
	char *t = scenario();

	CHECK(has(t, "# TYPE gpreempt_policy_busy_periods_total counter\n"));
	CHECK(has(t, "\ngpreempt_policy_busy_periods_total 1\n"));
	CHECK(has(t, "\ngpreempt_policy_suspends_total 2\n"));
	CHECK(has(t, "\ngpreempt_policy_resumes_total 2\n"));
	CHECK(has(t, "\ngpreempt_policy_budget_resumes_total 1\n"));
	CHECK(has(t, "\ngpreempt_policy_max_hold_resumes_total 0\n"));
	CHECK(has(t, "\ngpreempt_policy_cancelled_resumes_total 0\n"));
	CHECK(has(t, "\ngpreempt_policy_failures_total 0\n"));
	CHECK(has(t, "\ngpreempt_policy_online_busy 1\n"));
	CHECK(has(t, "\ngpreempt_policy_offline_processes 2\n"));
	CHECK(has(t, "\ngpreempt_policy_offline_suspended 0\n"));
	free(t);
}

TEST(per_offline_process_seconds_and_fraction)
{
	char *t = scenario();

	CHECK(has(t, "# TYPE gpreempt_policy_offline_suspended_seconds_total counter\n"));
	CHECK(has(t, "gpreempt_policy_offline_suspended_seconds_total{pid=\"11\",comm=\"train\\\"11\"} 0.05\n"));
	CHECK(has(t, "gpreempt_policy_offline_suspended_seconds_total{pid=\"12\",comm=\"train12\"} 0.05\n"));
	/* 50 of 60 ms */
	CHECK(has(t, "# TYPE gpreempt_policy_offline_suspended_ratio gauge\n"));
	CHECK(has(t, "gpreempt_policy_offline_suspended_ratio{pid=\"12\",comm=\"train12\"} 0.8333333333333334\n"));
	free(t);
}

TEST(histograms_in_seconds_from_the_log2_slots)
{
	char *t = scenario();

	CHECK(has(t, "# TYPE gpreempt_policy_suspend_duration_seconds histogram\n"));
	/* 500 ns: the first bucket, < 1.024 us; 1500 ns: [1024, 2048) */
	CHECK(has(t, "gpreempt_policy_suspend_duration_seconds_bucket{le=\"1.024e-06\"} 1\n"));
	CHECK(has(t, "gpreempt_policy_suspend_duration_seconds_bucket{le=\"2.048e-06\"} 2\n"));
	CHECK(has(t, "gpreempt_policy_suspend_duration_seconds_count 2\n"));
	CHECK(has(t, "gpreempt_policy_suspend_duration_seconds_sum 2e-06\n"));
	CHECK(has(t, "gpreempt_policy_trigger_to_suspend_seconds_bucket{le=\"2.048e-06\"} 0\n"));
	CHECK(has(t, "gpreempt_policy_trigger_to_suspend_seconds_bucket{le=\"4.096e-06\"} 1\n"));
	/* 5 s is past the last slot: only +Inf has it */
	CHECK(has(t, "gpreempt_policy_resume_duration_seconds_bucket{le=\"2.147483648\"} 0\n"));
	CHECK(has(t, "gpreempt_policy_resume_duration_seconds_bucket{le=\"+Inf\"} 1\n"));
	CHECK(has(t, "gpreempt_policy_resume_duration_seconds_sum 5\n"));
	free(t);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump")) {
		char *t = scenario();

		fputs(t, stdout);
		free(t);
		return 0;
	}
	RUN(counters_and_gauges);
	RUN(per_offline_process_seconds_and_fraction);
	RUN(histograms_in_seconds_from_the_log2_slots);
	return tap_done();
}
