// SPDX-License-Identifier: GPL-2.0
/*
 * L0: gp_policy_reconfigure (the arbiter's part of SIGHUP), pure, with an
 * injected clock: holds are kept, new timings apply to the running linger
 * and suspension, a new share or window starts a fresh window.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "policy_harness.h"
#include "util.h"

static struct gp_policy_cfg cfg(uint64_t ra, unsigned int share, uint64_t win,
				uint64_t hold)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);
	c.resume_after_ns = ra;
	c.min_offline_share = share;
	c.window_ns = win;
	c.max_hold_ns = hold;
	return c;
}

static void setup(struct gp_policy_cfg c)
{
	gp_policy_init(&P, &c, T0);
	A.n = 0;
	gp_policy_offline_attached(&P, T0, 1, &A);
	CHECK_STR(acts(), "");
}

static void reconf(uint64_t t, struct gp_policy_cfg c)
{
	gp_policy_reconfigure(&P, T0 + t, &c, &A);
}

TEST(same_config_keeps_everything)
{
	setup(cfg(2 * MS, 0, 1000 * MS, 0));
	gp_policy_busy(&P, T0 + 1 * MS, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	reconf(5 * MS, cfg(2 * MS, 0, 1000 * MS, 0));
	CHECK_STR(acts(), "");
	CHECK(P.state == GP_PS_BUSY && P.off[0].suspended);
	CHECK(gp_policy_online_busy(&P));
	CHECK(P.st.suspends == 1 && P.st.resumes == 0);
}

TEST(longer_resume_after_applies_to_the_linger)
{
	setup(cfg(2 * MS, 0, 1000 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	gp_policy_idle(&P, T0 + 10 * MS, 7, 100, &A);
	reconf(11 * MS, cfg(5 * MS, 0, 1000 * MS, 0));
	CHECK_STR(acts(), "");
	gp_policy_tick(&P, T0 + 13 * MS, &A);	/* the old 2 ms would resume */
	CHECK_STR(acts(), "");
	CHECK(P.off[0].suspended);
	gp_policy_tick(&P, T0 + 15 * MS, &A);
	CHECK_STR(acts(), "R1:idle");
}

TEST(shorter_resume_after_already_past_resumes_at_once)
{
	setup(cfg(100 * MS, 0, 1000 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	gp_policy_idle(&P, T0 + 10 * MS, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	reconf(20 * MS, cfg(5 * MS, 0, 1000 * MS, 0));
	CHECK_STR(acts(), "R1:idle");
	CHECK(P.state == GP_PS_IDLE);
	/* suspended from 0 to 15 ms (idle at 10 + 5), not to 20 */
	CHECK(P.off[0].suspended_ns == 15 * MS);
}

TEST(new_share_starts_a_fresh_window)
{
	setup(cfg(2 * MS, 50, 100 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	gp_policy_tick(&P, T0 + 50 * MS, &A);
	CHECK_STR(acts(), "R1:budget");
	CHECK(P.state == GP_PS_BUDGET);
	/* 20%: a new window from 60 ms, online still busy: suspend again */
	reconf(60 * MS, cfg(2 * MS, 20, 100 * MS, 0));
	CHECK_STR(acts(), "S1:window");
	CHECK(P.win_start == T0 + 60 * MS && P.win_susp_ns == 0);
	gp_policy_tick(&P, T0 + 139 * MS, &A);
	CHECK_STR(acts(), "");
	gp_policy_tick(&P, T0 + 140 * MS, &A);
	CHECK_STR(acts(), "R1:budget");
	CHECK(P.st.budget_resumes == 2);
}

TEST(share_off_ends_a_budget_period)
{
	setup(cfg(2 * MS, 50, 100 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	gp_policy_tick(&P, T0 + 50 * MS, &A);
	CHECK_STR(acts(), "S1:busy R1:budget");
	reconf(55 * MS, cfg(2 * MS, 0, 100 * MS, 0));
	CHECK_STR(acts(), "S1:window");
	CHECK(P.state == GP_PS_BUSY);
}

TEST(shorter_max_hold_past_resumes_that_process)
{
	setup(cfg(2 * MS, 0, 1000 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	reconf(50 * MS, cfg(2 * MS, 0, 1000 * MS, 10 * MS));
	CHECK_STR(acts(), "R1:max-hold");
	CHECK(P.st.max_hold_resumes == 1 && P.off[0].held_out);
	CHECK(P.off[0].suspended_ns == 10 * MS);
}

TEST(busy_is_kept_across_a_reload)
{
	setup(cfg(2 * MS, 0, 1000 * MS, 0));
	gp_policy_busy(&P, T0, 7, 100, &A);
	gp_policy_busy(&P, T0, 7, 100, &A);
	CHECK_STR(acts(), "S1:busy");
	reconf(1 * MS, cfg(3 * MS, 10, 500 * MS, 0));
	CHECK_STR(acts(), "");	/* a new window; the suspension stays */
	CHECK(P.off[0].suspended && P.off[0].suspends == 1);
	gp_policy_idle(&P, T0 + 2 * MS, 7, 100, &A);
	CHECK(gp_policy_online_busy(&P));	/* busy twice, idle once */
	gp_policy_idle(&P, T0 + 3 * MS, 7, 100, &A);
	gp_policy_tick(&P, T0 + 6 * MS, &A);
	CHECK_STR(acts(), "R1:idle");
}

int main(void)
{
	RUN(same_config_keeps_everything);
	RUN(longer_resume_after_applies_to_the_linger);
	RUN(shorter_resume_after_already_past_resumes_at_once);
	RUN(new_share_starts_a_fresh_window);
	RUN(share_off_ends_a_budget_period);
	RUN(shorter_max_hold_past_resumes_that_process);
	RUN(busy_is_kept_across_a_reload);
	return tap_done();
}
