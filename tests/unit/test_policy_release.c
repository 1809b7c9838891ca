// SPDX-License-Identifier: GPL-2.0
/*
 * L0: an admin's resume of a process the arbiter holds (issue 24 item 4)
 * is accounted by the policy: it is recorded running (no longer reported
 * suspended), its suspended time stops, and the next busy edge suspends
 * it again: a window boundary inside the same busy period does not
 * (issue 24: the arbiter logs "running until online's next busy").
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

/* Windows pass inside one busy: the released process stays running and
 * its running time counts toward offline's share; the next edge (idle,
 * then busy) suspends it again. */
TEST(released_runs_past_window_until_next_edge)
{
	uint64_t s = 0;

	setup();	/* window 1 s */
	gp_policy_offline_attached(&P, T0, 11, &A);
	gp_policy_offline_attached(&P, T0, 12, &A);
	gp_policy_busy(&P, T0 + 10 * MS, 1, 100, &A);
	CHECK_STR(acts(), "S11:busy S12:busy");
	CHECK(gp_policy_offline_released(&P, T0 + 100 * MS, 11) == 0);
	/* three window boundaries, online busy all along */
	gp_policy_tick(&P, T0 + 3500 * MS, &A);
	CHECK_STR(acts(), "");
	CHECK(!gp_policy_offline_suspended(&P, 11));
	CHECK(gp_policy_offline_suspended(&P, 12));
	gp_policy_suspended_fraction(&P, 11, T0 + 3500 * MS, &s);
	CHECK(s == 90 * MS);
	/* the other process, resumed at idle, is suspended at the next busy
	 * edge; so is the released one */
	gp_policy_idle(&P, T0 + 3600 * MS, 1, 100, &A);
	CHECK_STR(acts(), "R12:idle");
	gp_policy_busy(&P, T0 + 3700 * MS, 1, 100, &A);
	CHECK_STR(acts(), "S11:busy S12:busy");
	CHECK(gp_policy_offline_suspended(&P, 11));
}

/* A busy renewed by a second source is no edge: still running. */
TEST(released_second_source_busy_is_no_edge)
{
	setup();
	gp_policy_offline_attached(&P, T0, 11, &A);
	gp_policy_busy(&P, T0 + 10 * MS, 1, 100, &A);
	CHECK_STR(acts(), "S11:busy");
	gp_policy_offline_released(&P, T0 + 20 * MS, 11);
	gp_policy_busy(&P, T0 + 30 * MS, 2, 101, &A);
	gp_policy_idle(&P, T0 + 40 * MS, 1, 100, &A);
	gp_policy_tick(&P, T0 + 1500 * MS, &A);
	CHECK_STR(acts(), "");
	CHECK(!gp_policy_offline_suspended(&P, 11));
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

/* --scope gpu: windows on its GPU's machine leave it running; a busy
 * edge on its GPU suspends it again. */
TEST(per_gpu_released_runs_past_window)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;
	struct gp_qplace q = { .queue_id = 0, .gpu_id = 10001 };
	uint32_t g0 = 10001;

	gp_policy_cfg_default(&c);	/* window 1 s */
	g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE, 0);
	ga.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &ga));
	CHECK(!gp_gpolicy_queue(g, 0, 300, &q, &ga));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &ga));
	gp_gpolicy_released(g, 20 * MS, 300);
	ga.n = 0;
	gp_gpolicy_tick(g, 3500 * MS, &ga);
	CHECK(g_count(300, GP_POP_SUSPEND) == 0);
	CHECK(gp_gpolicy_suspended_on(g, 300, g0) == 0);
	CHECK(!gp_gpolicy_idle(g, 3600 * MS, 1, 100, &g0, 1, &ga));
	CHECK(!gp_gpolicy_busy(g, 3700 * MS, 1, 100, &g0, 1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(gp_gpolicy_suspended_on(g, 300, g0) == 1);
	gp_gpolicy_free(g);
}

/* --scope node: the same on the node's one machine. */
TEST(node_released_runs_past_window)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, GP_SCOPE_NODE, GP_GANG_NONE, 0);
	ga.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &ga));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	gp_gpolicy_released(g, 20 * MS, 300);
	ga.n = 0;
	gp_gpolicy_tick(g, 2500 * MS, &ga);
	CHECK(g_count(300, GP_POP_SUSPEND) == 0);
	CHECK(!gp_gpolicy_proc(g, 300)->whole);
	CHECK(!gp_gpolicy_idle(g, 2600 * MS, 1, 100, NULL, -1, &ga));
	CHECK(!gp_gpolicy_busy(g, 2700 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(gp_gpolicy_proc(g, 300)->whole);
	gp_gpolicy_free(g);
}

/* A gang of two, one member resumed by an admin: the gang stays held
 * (its other rank is suspended), so online's idle resumes that rank; the
 * resumed one was running already and gets no action. */
TEST(gang_member_released_rest_resumed_at_idle)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;

	gp_policy_cfg_default(&c);
	c.resume_after_ns = 0;
	g = gp_gpolicy_new(&c, GP_SCOPE_NODE, GP_GANG_PGID, 0);
	ga.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 77, &ga));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 77, &ga));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(g_count(301, GP_POP_SUSPEND) == 1);
	gp_gpolicy_released(g, 20 * MS, 300);
	CHECK(!gp_gpolicy_proc(g, 300)->whole);
	CHECK(gp_gpolicy_proc(g, 301)->whole);
	ga.n = 0;
	CHECK(!gp_gpolicy_idle(g, 30 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(301, GP_POP_RESUME) == 1);
	CHECK(g_count(300, GP_POP_RESUME) == 0);
	CHECK(!gp_gpolicy_proc(g, 301)->whole);
	ga.n = 0;
	CHECK(!gp_gpolicy_busy(g, 40 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(g_count(301, GP_POP_SUSPEND) == 1);
	gp_gpolicy_free(g);
}

/* Both ranks resumed by an admin: the gang is released, and runs past
 * window boundaries until online's next busy edge. */
TEST(gang_all_released_runs_past_window)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, GP_SCOPE_NODE, GP_GANG_PGID, 0);
	ga.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 77, &ga));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 77, &ga));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, NULL, -1, &ga));
	gp_gpolicy_released(g, 20 * MS, 300);
	gp_gpolicy_released(g, 30 * MS, 301);
	ga.n = 0;
	gp_gpolicy_tick(g, 2500 * MS, &ga);
	CHECK(ga.n == 0);
	CHECK(!gp_gpolicy_idle(g, 2600 * MS, 1, 100, NULL, -1, &ga));
	gp_gpolicy_tick(g, 2700 * MS, &ga);
	CHECK(ga.n == 0);
	CHECK(!gp_gpolicy_busy(g, 2800 * MS, 1, 100, NULL, -1, &ga));
	CHECK(g_count(300, GP_POP_SUSPEND) == 1);
	CHECK(g_count(301, GP_POP_SUSPEND) == 1);
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(per_gpu_released_is_running_and_suspended_at_next_busy);
	RUN(released_is_running_and_suspended_at_next_busy);
	RUN(released_unknown_or_running);
	RUN(released_runs_past_window_until_next_edge);
	RUN(released_second_source_busy_is_no_edge);
	RUN(per_gpu_released_runs_past_window);
	RUN(node_released_runs_past_window);
	RUN(gang_member_released_rest_resumed_at_idle);
	RUN(gang_all_released_runs_past_window);
	return tap_done();
}
