// SPDX-License-Identifier: GPL-2.0
/*
 * L0: an admin's resume of a process the arbiter holds (issue 24 item 4)
 * is accounted by the policy: it is recorded running (no longer reported
 * suspended), its suspended time stops, and the next busy edge suspends
 * it again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpolicy.h"
#include "tap.h"
#include "hist.h"
#include "policy_harness.h"
#include "util.h"

static void setup(void)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);
	c.resume_after_ns = 0;
	gp_policy_init(&P, &c, T0);
	A.n = 0;
}

TEST(released_is_running_and_suspended_at_next_busy)
{
	uint64_t s = 0;

	setup();
	gp_policy_offline_attached(&P, T0, 11, &A);
	gp_policy_busy(&P, T0 + 10 * MS, 1, 100, &A);
	CHECK_STR(acts(), "S11:busy");
	CHECK(gp_policy_offline_suspended(&P, 11));
	CHECK(gp_policy_offline_released(&P, T0 + 30 * MS, 11) == 0);
	CHECK_STR(acts(), "");
	CHECK(!gp_policy_offline_suspended(&P, 11));
	CHECK(P.off[0].resumes == 1);
	/* its suspension closed at the release: 20 ms, and no more */
	gp_policy_suspended_fraction(&P, 11, T0 + 50 * MS, &s);
	CHECK(s == 20 * MS);
	/* online idle: nothing to resume; busy again: suspended again */
	gp_policy_idle(&P, T0 + 60 * MS, 1, 100, &A);
	CHECK_STR(acts(), "");
	gp_policy_busy(&P, T0 + 70 * MS, 1, 100, &A);
	CHECK_STR(acts(), "S11:busy");
	CHECK(gp_policy_offline_suspended(&P, 11));
}

TEST(released_unknown_or_running)
{
	setup();
	CHECK(gp_policy_offline_released(&P, T0, 12) == -ENOENT);
	gp_policy_offline_attached(&P, T0, 11, &A);
	CHECK(gp_policy_offline_released(&P, T0 + MS, 11) == 0);
	CHECK(P.off[0].resumes == 0 && !P.off[0].suspended);
	CHECK_STR(acts(), "");
}

static struct gp_gactions ga;	/* large: not on the stack */

static int g_count(int pid, enum gp_pop op)
{
	int n = 0;

	for (int i = 0; i < ga.n; i++)
		n += ga.a[i].pid == pid && ga.a[i].op == op;
	return n;
}

/* The per-GPU policy (the default --scope gpu) accounts it the same way. */
TEST(per_gpu_released_is_running_and_suspended_at_next_busy)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;
	struct gp_qplace q = { .queue_id = 0, .gpu_id = 10001 };
	uint32_t g0 = 10001;

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE, 0);
	ga.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &ga));
	CHECK(!gp_gpolicy_queue(g, 0, 300, &q, &ga));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(gp_gpolicy_suspended_on(g, 300, g0) == 1);
	gp_gpolicy_released(g, 20 * MS, 300);
	CHECK(gp_gpolicy_suspended_on(g, 300, g0) == 0);
	/* idle: nothing to resume */
	ga.n = 0;
	CHECK(!gp_gpolicy_idle(g, 30 * MS, 1, 100, &g0, 1, &ga));
	gp_gpolicy_tick(g, 40 * MS, &ga);
	CHECK(g_count(300, GP_POP_RESUME) == 0);
	/* busy again: suspended again */
	ga.n = 0;
	CHECK(!gp_gpolicy_busy(g, 50 * MS, 1, 100, &g0, 1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(gp_gpolicy_suspended_on(g, 300, g0) == 1);
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(per_gpu_released_is_running_and_suspended_at_next_busy);
	RUN(released_is_running_and_suspended_at_next_busy);
	RUN(released_unknown_or_running);
	return tap_done();
}
