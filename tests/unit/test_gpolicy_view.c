// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the node-wide numbers are derived from the per-GPU policy
 * (gp_gpolicy_node_view, user/policy/gpolicy_view.c), the one decision
 * maker, not from a second policy.c machine run beside it:
 * - gpu scope: a busy on one GPU counts the one suspend it made, and only
 *   the process it held shows suspended; the busy sources come from the
 *   node machine that owns them;
 * - node scope: the view equals what policy.c alone counts (today's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpolicy.h"
#include "tap.h"

#define MS 1000000ULL
#define G0 10001
#define G1 10002

static struct gp_gactions acts;
static struct gp_pactions pacts;
static struct gp_policy src, old, view;

static struct gp_policy_cfg cfg(void)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);	/* resume_after 2 ms */
	return c;
}

static void queue(struct gp_gpolicy *g, int pid, uint32_t qid, uint32_t gpu)
{
	struct gp_qplace q = { .queue_id = qid, .gpu_id = gpu };

	CHECK(!gp_gpolicy_queue(g, 0, pid, &q, &acts));
}

static const struct gp_poffline *off(const struct gp_policy *p, int pid)
{
	for (int i = 0; i < p->n_off; i++)
		if (p->off[i].pid == pid)
			return &p->off[i];
	return NULL;
}

TEST(gpu_scope_counts_what_was_done)
{
	struct gp_policy_cfg c = cfg();
	struct gp_gpolicy *g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE,
					      0);
	uint32_t g0 = G0;

	/* the daemon's node machine: busy sources only, no offline */
	gp_policy_init(&src, &c, 0);
	/* the old node view: policy.c with every offline process */
	gp_policy_init(&old, &c, 0);
	CHECK(!gp_policy_offline_attached(&old, 0, 300, &pacts));
	CHECK(!gp_policy_offline_attached(&old, 0, 301, &pacts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 0, &acts));
	queue(g, 300, 0, G0);
	queue(g, 301, 0, G1);
	acts.n = pacts.n = 0;

	CHECK(!gp_policy_busy(&src, 10 * MS, 1, 100, &pacts));
	CHECK(pacts.n == 0);	/* no member: it never decides */
	CHECK(!gp_policy_busy(&old, 10 * MS, 1, 100, &pacts));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 1 && acts.a[0].pid == 300);

	gp_gpolicy_node_view(g, &src, 15 * MS, &view);
	/* the old view counted a suspend of 301 that never happened */
	CHECK(old.st.suspends == 2);
	CHECK(view.st.suspends == 1 && view.st.resumes == 0);
	CHECK(view.state == GP_PS_BUSY && gp_policy_online_busy(&view));
	CHECK(view.st.busy_periods == 1);
	CHECK(view.n_off == 2);
	CHECK(off(&view, 300) && off(&view, 300)->suspended);
	CHECK(off(&view, 301) && !off(&view, 301)->suspended);
	{
		uint64_t s300 = 0, s301 = 0;

		gp_policy_suspended_fraction(&view, 300, 15 * MS, &s300);
		gp_policy_suspended_fraction(&view, 301, 15 * MS, &s301);
		CHECK(s300 == 5 * MS && s301 == 0);
	}
	/* idle, resumed after 2 ms: one resume, nothing held */
	CHECK(!gp_policy_idle(&src, 20 * MS, 1, 100, &pacts));
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, &g0, 1, &acts));
	gp_gpolicy_tick(g, 25 * MS, &acts);
	gp_gpolicy_node_view(g, &src, 30 * MS, &view);
	CHECK(view.st.suspends == 1 && view.st.resumes == 1);
	CHECK(view.state == GP_PS_IDLE && !gp_policy_online_busy(&view));
	CHECK(!off(&view, 300)->suspended);
	{
		uint64_t s = 0;

		gp_policy_suspended_fraction(&view, 300, 30 * MS, &s);
		CHECK(s == 12 * MS);	/* 10 ms to 22 ms */
	}
	gp_gpolicy_free(g);
}

TEST(node_scope_view_is_today)
{
	struct gp_policy_cfg c = cfg();
	struct gp_gpolicy *g;
	uint64_t a = 0, b = 0;

	c.min_offline_share = 50;
	c.window_ns = 100 * MS;
	g = gp_gpolicy_new(&c, GP_SCOPE_NODE, GP_GANG_NONE, 0);
	gp_policy_init(&src, &c, 0);
	gp_policy_init(&old, &c, 0);
	for (int pid = 300; pid < 303; pid++) {
		CHECK(!gp_policy_offline_attached(&old, 0, pid, &pacts));
		CHECK(!gp_gpolicy_offline_attached(g, 0, pid, 0, &acts));
	}
	/* busy 10..170 ms, 50% of 100 ms windows: held 10-60 (budget),
	 * 100-150 (window, budget), idle at 170: 2 x 3 suspends, resumes */
	gp_policy_busy(&src, 10 * MS, 1, 100, &pacts);
	gp_policy_busy(&old, 10 * MS, 1, 100, &pacts);
	gp_gpolicy_busy(g, 10 * MS, 1, 100, NULL, -1, &acts);
	gp_policy_tick(&old, 150 * MS, &pacts);
	gp_gpolicy_tick(g, 150 * MS, &acts);
	gp_policy_idle(&src, 170 * MS, 1, 100, &pacts);
	gp_policy_idle(&old, 170 * MS, 1, 100, &pacts);
	gp_gpolicy_idle(g, 170 * MS, 1, 100, NULL, -1, &acts);
	gp_policy_tick(&old, 200 * MS, &pacts);
	gp_gpolicy_tick(g, 200 * MS, &acts);
	gp_gpolicy_node_view(g, &src, 200 * MS, &view);
	CHECK(old.st.suspends == 6 && old.st.resumes == 6);
	CHECK(old.st.budget_resumes == 2);
	CHECK(view.st.suspends == old.st.suspends);
	CHECK(view.st.resumes == old.st.resumes);
	CHECK(view.st.budget_resumes == old.st.budget_resumes);
	CHECK(view.state == old.state && view.n_off == old.n_off);
	for (int pid = 300; pid < 303; pid++) {
		gp_policy_suspended_fraction(&old, pid, 200 * MS, &a);
		gp_policy_suspended_fraction(&view, pid, 200 * MS, &b);
		CHECK(a == b && a > 0);
		CHECK(off(&view, pid)->suspended == off(&old, pid)->suspended);
	}
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(gpu_scope_counts_what_was_done);
	RUN(node_scope_view_is_today);
	return tap_done();
}
