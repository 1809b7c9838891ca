// SPDX-License-Identifier: GPL-2.0
/* L0: the arbitration policy as a pure state machine, injected clock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "hist.h"
#include "policy_harness.h"
#include "util.h"

static void setup(uint64_t resume_after, unsigned int share, uint64_t win,
		  uint64_t max_hold)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);
	c.resume_after_ns = resume_after;
	c.min_offline_share = share;
	c.window_ns = win;
	c.max_hold_ns = max_hold;
	gp_policy_init(&P, &c, T0);
	A.n = 0;
}

static void tick(uint64_t t) { gp_policy_tick(&P, T0 + t, &A); }
static int busy(uint64_t t, uint64_t src, int pid)
{
	return gp_policy_busy(&P, T0 + t, src, pid, &A);
}
static int idle(uint64_t t, uint64_t src, int pid)
{
	return gp_policy_idle(&P, T0 + t, src, pid, &A);
}
static void attach(uint64_t t, int pid)
{
	gp_policy_offline_attached(&P, T0 + t, pid, &A);
}
static uint64_t next(void)
{
	uint64_t d = gp_policy_next_deadline(&P);

	return d == GP_POLICY_NO_DEADLINE ? d : d - T0;
}

TEST(defaults_and_check)
{
	struct gp_policy_cfg c;
	char err[128] = "";

	gp_policy_cfg_default(&c);
	CHECK(c.resume_after_ns == 2 * MS);
	CHECK(c.min_offline_share == 0);
	CHECK(c.window_ns == NSEC_PER_SEC);
	CHECK(gp_policy_cfg_check(&c, err, sizeof(err)) == 0);
	c.min_offline_share = 101;
	CHECK(gp_policy_cfg_check(&c, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "--min-offline-share 101 is outside 0..100");
	c.min_offline_share = 20;
	c.window_ns = 0;
	CHECK(gp_policy_cfg_check(&c, err, sizeof(err)) == -EINVAL);
}

TEST(busy_suspends_every_offline)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	attach(0, 12);
	CHECK_STR(acts(), "");
	CHECK(next() == GP_POLICY_NO_DEADLINE);
	CHECK(busy(1 * MS, 1, 100) == 0);
	CHECK_STR(acts(), "S11:busy S12:busy");
	CHECK(P.st.busy_periods == 1 && P.st.suspends == 2);
	CHECK(gp_policy_online_busy(&P));
}

TEST(hysteresis_resume_after)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	acts();
	idle(5 * MS, 1, 100);
	CHECK_STR(acts(), "");			/* not yet */
	CHECK(next() == 7 * MS);
	tick(7 * MS - 1);
	CHECK_STR(acts(), "");
	tick(7 * MS);
	CHECK_STR(acts(), "R11:idle");
	CHECK(next() == GP_POLICY_NO_DEADLINE);
	CHECK(P.st.resumes == 1);
}

TEST(hysteresis_busy_again_cancels)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	idle(2 * MS, 1, 100);
	busy(3 * MS, 1, 100);			/* within 2 ms: no toggle */
	CHECK_STR(acts(), "S11:busy");
	CHECK(P.st.cancelled_resumes == 1);
	CHECK(P.st.busy_periods == 2);
	tick(10 * MS);
	CHECK_STR(acts(), "");
	idle(10 * MS, 1, 100);
	tick(12 * MS);
	CHECK_STR(acts(), "R11:idle");
}

TEST(late_tick_resumes_at_its_deadline)
{
	uint64_t s;

	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(0, 1, 100);
	idle(1 * MS, 1, 100);
	CHECK_STR(acts(), "S11:busy");
	tick(50 * MS);				/* timer late */
	CHECK_STR(acts(), "R11:idle");
	gp_policy_suspended_fraction(&P, 11, T0 + 50 * MS, &s);
	CHECK(s == 3 * MS);			/* counted to the deadline */
}

TEST(resume_after_zero_is_immediate)
{
	setup(0, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	idle(2 * MS, 1, 100);
	CHECK_STR(acts(), "S11:busy R11:idle");
}

TEST(busy_counts_per_source)
{
	setup(0, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	busy(2 * MS, 1, 100);			/* twice on one connection */
	busy(2 * MS, 2, 100);			/* and another connection */
	CHECK_STR(acts(), "S11:busy");
	CHECK(P.st.busy_periods == 1);
	idle(3 * MS, 1, 100);
	idle(3 * MS, 2, 100);
	CHECK_STR(acts(), "");			/* one busy left on 1 */
	CHECK(idle(3 * MS, 2, 100) == -EALREADY);	/* 2 has none */
	CHECK(idle(4 * MS, 1, 100) == 0);
	CHECK_STR(acts(), "R11:idle");
	CHECK(idle(5 * MS, 1, 100) == -EALREADY);	/* changes nothing */
	CHECK_STR(acts(), "");
	CHECK(!gp_policy_online_busy(&P));
}

TEST(connection_close_ends_its_busy)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 7, 100);
	busy(1 * MS, 7, 100);
	busy(1 * MS, 7, 101);
	busy(1 * MS, 8, 101);
	acts();
	gp_policy_source_closed(&P, T0 + 2 * MS, 7, &A);
	CHECK(gp_policy_online_busy(&P));	/* 8 still busy */
	gp_policy_source_closed(&P, T0 + 3 * MS, 8, &A);
	CHECK(!gp_policy_online_busy(&P));
	tick(5 * MS);				/* hysteresis still applies */
	CHECK_STR(acts(), "R11:idle");
	gp_policy_source_closed(&P, T0 + 6 * MS, 9, &A);	/* unknown */
	CHECK_STR(acts(), "");
}

TEST(online_exit_while_busy_is_idle)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	busy(1 * MS, 2, 100);
	acts();
	gp_policy_online_gone(&P, T0 + 4 * MS, 100, &A);
	CHECK(!gp_policy_online_busy(&P));
	tick(6 * MS);
	CHECK_STR(acts(), "R11:idle");
}

TEST(offline_exit_while_suspended)
{
	uint64_t s;

	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	attach(0, 12);
	busy(1 * MS, 1, 100);
	acts();
	gp_policy_offline_gone(&P, T0 + 3 * MS, 11, &A);
	CHECK_STR(acts(), "R11:detach");	/* the daemon ignores ESRCH */
	CHECK(P.n_off == 1);
	CHECK(gp_policy_suspended_fraction(&P, 11, T0, &s) < 0);
	idle(4 * MS, 1, 100);
	tick(6 * MS);
	CHECK_STR(acts(), "R12:idle");
}

TEST(offline_attached_while_busy_is_suspended)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(1 * MS, 1, 100);
	acts();
	attach(2 * MS, 13);
	CHECK_STR(acts(), "S13:attached");
	CHECK(gp_policy_offline_attached(&P, T0 + 2 * MS, 13, &A) == -EEXIST);
	idle(3 * MS, 1, 100);
	attach(4 * MS, 14);			/* lingering: left running */
	CHECK_STR(acts(), "");
	tick(5 * MS);
	CHECK_STR(acts(), "R11:idle R13:idle");
}

TEST(budget_resumes_for_rest_of_window)
{
	/* 20% of 100 ms: suspended at most 80 ms of each window. */
	setup(2 * MS, 20, 100 * MS, 0);
	attach(0, 11);
	busy(10 * MS, 1, 100);
	CHECK_STR(acts(), "S11:busy");
	CHECK(next() == 90 * MS);
	tick(90 * MS);
	CHECK_STR(acts(), "R11:budget");
	CHECK(P.st.budget_resumes == 1);
	CHECK(P.state == GP_PS_BUDGET);
	CHECK(next() == 100 * MS);		/* the window's end */
	tick(100 * MS);
	CHECK_STR(acts(), "S11:window");
	CHECK(next() == 180 * MS);
	tick(180 * MS);
	CHECK_STR(acts(), "R11:budget");
	tick(200 * MS);
	CHECK_STR(acts(), "S11:window");
	CHECK(P.st.budget_resumes == 2);
}

TEST(budget_counts_across_busy_periods_in_window)
{
	setup(0, 50, 100 * MS, 0);
	attach(0, 11);
	busy(0, 1, 100);
	idle(30 * MS, 1, 100);			/* 30 ms used */
	busy(40 * MS, 1, 100);
	CHECK_STR(acts(), "S11:busy R11:idle S11:busy");
	CHECK(next() == 60 * MS);		/* 20 ms left of 50 */
	tick(60 * MS);
	CHECK_STR(acts(), "R11:budget");
	idle(70 * MS, 1, 100);
	busy(80 * MS, 1, 100);			/* spent: stays running */
	CHECK_STR(acts(), "");
	CHECK(P.state == GP_PS_BUDGET);
	tick(100 * MS);
	CHECK_STR(acts(), "S11:window");
}

TEST(budget_window_boundary_resets_mid_suspension)
{
	/* Suspension straddling a boundary: each window counts its part. */
	setup(0, 50, 100 * MS, 0);
	attach(0, 11);
	busy(80 * MS, 1, 100);
	CHECK_STR(acts(), "S11:busy");
	tick(100 * MS);				/* 20 ms in window 0 */
	CHECK_STR(acts(), "");
	CHECK(P.win_susp_ns == 0);
	CHECK(next() == 150 * MS);		/* 50 ms of window 1 */
	tick(150 * MS);
	CHECK_STR(acts(), "R11:budget");
}

TEST(budget_long_idle_then_busy)
{
	setup(0, 20, 100 * MS, 0);
	attach(0, 11);
	busy(0, 1, 100);
	tick(80 * MS);
	CHECK_STR(acts(), "S11:busy R11:budget");
	idle(85 * MS, 1, 100);
	busy(100 * NSEC_PER_SEC + 10 * MS, 1, 100);	/* 1000 windows on */
	CHECK_STR(acts(), "S11:busy");
	CHECK(P.win_start == T0 + 100 * NSEC_PER_SEC);
	CHECK(next() == 100 * NSEC_PER_SEC + 90 * MS);
}

TEST(share_100_never_suspends)
{
	setup(2 * MS, 100, 100 * MS, 0);
	attach(0, 11);
	busy(0, 1, 100);
	CHECK_STR(acts(), "");
	CHECK(P.state == GP_PS_BUDGET);
	tick(100 * MS);
	CHECK_STR(acts(), "");
}

TEST(max_hold_bounds_one_suspension)
{
	/* max-hold 30 ms < window 100 ms, no share. */
	setup(2 * MS, 0, 100 * MS, 30 * MS);
	attach(0, 11);
	attach(0, 12);
	busy(10 * MS, 1, 100);
	acts();
	attach(20 * MS, 13);			/* its hold starts later */
	CHECK_STR(acts(), "S13:attached");
	CHECK(next() == 40 * MS);
	tick(40 * MS);
	CHECK_STR(acts(), "R11:max-hold R12:max-hold");
	CHECK(next() == 50 * MS);
	tick(50 * MS);
	CHECK_STR(acts(), "R13:max-hold");
	CHECK(P.st.max_hold_resumes == 3);
	CHECK(next() == 100 * MS);		/* held out until the window */
	tick(100 * MS);
	CHECK_STR(acts(), "S11:window S12:window S13:window");
	idle(110 * MS, 1, 100);
	tick(112 * MS);
	CHECK_STR(acts(), "R11:idle R12:idle R13:idle");
}

TEST(max_hold_before_budget)
{
	/* 50% budget is 50 ms, max-hold 20 ms fires first; both counted
	 * apart. */
	setup(0, 50, 100 * MS, 20 * MS);
	attach(0, 11);
	busy(0, 1, 100);
	tick(20 * MS);
	CHECK_STR(acts(), "S11:busy R11:max-hold");
	CHECK(P.st.budget_resumes == 0);
	tick(100 * MS);
	CHECK_STR(acts(), "S11:window");
}

TEST(failed_suspend_is_running_and_retried_next_window)
{
	setup(0, 0, 100 * MS, 0);
	attach(0, 11);
	busy(0, 1, 100);
	CHECK_STR(acts(), "S11:busy");
	gp_policy_failed(&P, T0 + 1 * MS, 11, GP_POP_SUSPEND);
	CHECK(P.st.failures == 1 && P.off[0].failures == 1);
	CHECK(!P.off[0].suspended);
	CHECK(next() == 100 * MS);
	tick(100 * MS);
	CHECK_STR(acts(), "S11:window");
	idle(110 * MS, 1, 100);
	CHECK_STR(acts(), "R11:idle");
}

TEST(suspended_fraction)
{
	uint64_t s;
	double f;

	setup(0, 0, NSEC_PER_SEC, 0);
	attach(0, 11);
	busy(10 * MS, 1, 100);
	idle(30 * MS, 1, 100);
	busy(60 * MS, 1, 100);
	f = gp_policy_suspended_fraction(&P, 11, T0 + 100 * MS, &s);
	CHECK(s == 60 * MS);
	CHECK(f > 0.599 && f < 0.601);
}

TEST(hist_add_log2)
{
	struct gp_hist h = { 0 };

	gp_hist_add(&h, 0);
	gp_hist_add(&h, 1);
	gp_hist_add(&h, 3);
	gp_hist_add(&h, 1024);
	gp_hist_add(&h, UINT64_MAX / 2);
	CHECK(h.slots[0] == 2 && h.slots[1] == 1 && h.slots[10] == 1);
	CHECK(h.slots[GP_MAX_SLOTS - 1] == 1);
	CHECK(h.count == 5);
}

TEST(busy_expires_unless_renewed_or_confirmed)
{
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	CHECK(P.cfg.busy_max_ns == GP_POLICY_BUSY_MAX_NS);
	P.cfg.busy_max_ns = 5 * NSEC_PER_SEC;
	attach(0, 100);
	CHECK(busy(0, 1, 7) == 0);
	CHECK(P.off[0].suspended);
	CHECK(next() == 5 * NSEC_PER_SEC);
	/* renewed by another busy at 4 s: the bound moves to 9 s */
	CHECK(busy(4 * NSEC_PER_SEC, 1, 7) == 0);
	tick(8 * NSEC_PER_SEC);
	CHECK(gp_policy_online_busy(&P) && P.off[0].suspended);
	/* confirmed by activity (queue progress) at 8 s: to 13 s */
	gp_policy_activity(&P, T0 + 8 * NSEC_PER_SEC, 7, &A);
	tick(12 * NSEC_PER_SEC);
	CHECK(gp_policy_online_busy(&P));
	/* then nothing: it ends whole (count 2), offline resumes */
	tick(13 * NSEC_PER_SEC + 3 * MS);
	CHECK(!gp_policy_online_busy(&P));
	CHECK(P.st.busy_expired == 1);
	CHECK(!P.off[0].suspended);
	CHECK(idle(14 * NSEC_PER_SEC, 1, 7) == -EALREADY);
	/* 0: never */
	setup(2 * MS, 0, NSEC_PER_SEC, 0);
	P.cfg.busy_max_ns = 0;
	CHECK(busy(0, 1, 7) == 0);
	tick(3600 * NSEC_PER_SEC);
	CHECK(gp_policy_online_busy(&P));
}

int main(void)
{
	RUN(busy_expires_unless_renewed_or_confirmed);
	RUN(defaults_and_check);
	RUN(busy_suspends_every_offline);
	RUN(hysteresis_resume_after);
	RUN(hysteresis_busy_again_cancels);
	RUN(late_tick_resumes_at_its_deadline);
	RUN(resume_after_zero_is_immediate);
	RUN(busy_counts_per_source);
	RUN(connection_close_ends_its_busy);
	RUN(online_exit_while_busy_is_idle);
	RUN(offline_exit_while_suspended);
	RUN(offline_attached_while_busy_is_suspended);
	RUN(budget_resumes_for_rest_of_window);
	RUN(budget_counts_across_busy_periods_in_window);
	RUN(budget_window_boundary_resets_mid_suspension);
	RUN(budget_long_idle_then_busy);
	RUN(share_100_never_suspends);
	RUN(max_hold_bounds_one_suspension);
	RUN(max_hold_before_budget);
	RUN(failed_suspend_is_running_and_retried_next_window);
	RUN(suspended_fraction);
	RUN(hist_add_log2);
	return tap_done();
}
