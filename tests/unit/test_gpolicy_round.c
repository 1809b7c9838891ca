// SPDX-License-Identifier: GPL-2.0
/*
 * L0: one backend call per process and direction per decision round
 * (gp_gpolicy_coalesce, user/policy/gpolicy_round.c; issue 32 point 4).
 * The per-GPU machines decide one GPU at a time, so a busy naming two
 * GPUs yields one SUSPEND per GPU for a process with queues on both; the
 * executor merges them into one call naming the union of queue ids, and
 * the policy's counters then count the calls made.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpolicy.h"
#include "tap.h"

#define MS 1000000ULL

static struct gp_gactions acts;	/* 64 KiB: not on the stack */

static void queue(struct gp_gpolicy *g, int pid, uint32_t qid, uint32_t gpu)
{
	struct gp_qplace q = { .queue_id = qid, .gpu_id = gpu };

	CHECK(!gp_gpolicy_queue(g, 0, pid, &q, &acts));
}

static bool has_id(const struct gp_gaction *a, uint32_t id)
{
	for (int i = 0; i < a->nids; i++)
		if (a->ids[i] == id)
			return true;
	return false;
}

/* Process 300: queue 1 on GPU 10001, 2 on 10002, 3 on 10003 (--gang
 * none); 301: queue 7 on 10003. */
static struct gp_gpolicy *three_gpus(void)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;

	gp_policy_cfg_default(&c);	/* resume_after 2 ms */
	c.min_offline_share = 0;
	g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE, 0);
	acts.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 0, &acts));
	queue(g, 300, 1, 10001);
	queue(g, 300, 2, 10002);
	queue(g, 300, 3, 10003);
	queue(g, 301, 7, 10003);
	CHECK(acts.n == 0);
	return g;
}

/* The scenario of issue 32 point 4: busy naming 10002,10003. */
TEST(busy_on_two_gpus_is_one_suspend_per_process)
{
	struct gp_gpolicy *g = three_gpus();
	uint32_t gpus[] = { 10002, 10003 };
	const struct gp_gproc *p;
	struct gp_gaction *a;

	acts.n = 0;
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, gpus, 2, &acts));
	CHECK(acts.n >= 2);	/* one per GPU's machine, before merging */
	gp_gpolicy_coalesce(g, &acts);
	/* 300: one SUSPEND naming 2 and 3; 301: its own, naming 7 */
	CHECK(acts.n == 2);
	a = &acts.a[0];
	CHECK(a->pid == 300 && a->op == GP_POP_SUSPEND && !a->all);
	CHECK(a->nids == 2 && has_id(a, 2) && has_id(a, 3));
	CHECK(acts.n < 2 || (acts.a[1].pid == 301 && acts.a[1].nids == 1 &&
			     acts.a[1].ids[0] == 7));
	/* the counters count calls: 300 one suspend, the node two */
	p = gp_gpolicy_proc(g, 300);
	CHECK(p && p->suspend_ioctls == 1 && p->nq == 3);
	CHECK(g->suspend_ioctls == 2 && g->queues_named == 3);

	/* idle on both, past resume_after: one RESUME naming 2 and 3 */
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, gpus, 2, &acts));
	gp_gpolicy_tick(g, 40 * MS, &acts);
	gp_gpolicy_coalesce(g, &acts);
	CHECK(acts.n == 2);
	a = &acts.a[0];
	CHECK(a->pid == 300 && a->op == GP_POP_RESUME && a->nids == 2 &&
	      has_id(a, 2) && has_id(a, 3));
	CHECK(p && p->resume_ioctls == 1);
	gp_gpolicy_free(g);
}

/* A RESUME between two SUSPENDs of one process keeps them apart: merging
 * would move the second before the resume. Other pids' actions between
 * do not. */
TEST(order_of_one_process_kept)
{
	struct gp_gpolicy *g = three_gpus();
	struct gp_gaction s1 = { .op = GP_POP_SUSPEND, .pid = 300, .nids = 1,
				 .ids = { 1 } },
			  o = { .op = GP_POP_SUSPEND, .pid = 301, .nids = 1,
				.ids = { 7 } },
			  r = { .op = GP_POP_RESUME, .pid = 300, .nids = 1,
				.ids = { 1 } },
			  s2 = { .op = GP_POP_SUSPEND, .pid = 300, .nids = 1,
				 .ids = { 2 } },
			  s3 = { .op = GP_POP_SUSPEND, .pid = 300, .nids = 1,
				 .ids = { 2 }, .all = true };

	acts.n = 0;
	acts.a[acts.n++] = s1;
	acts.a[acts.n++] = o;
	acts.a[acts.n++] = r;
	acts.a[acts.n++] = s2;
	acts.a[acts.n++] = s3;
	gp_gpolicy_coalesce(g, &acts);
	/* s1 | o | r | s2+s3 (all, ids {2} once) */
	CHECK(acts.n == 4);
	CHECK(acts.a[0].pid == 300 && acts.a[0].op == GP_POP_SUSPEND &&
	      acts.a[0].nids == 1);
	CHECK(acts.a[1].pid == 301);
	CHECK(acts.a[2].op == GP_POP_RESUME);
	CHECK(acts.a[3].op == GP_POP_SUSPEND && acts.a[3].all &&
	      acts.a[3].nids == 1 && acts.a[3].ids[0] == 2);
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(busy_on_two_gpus_is_one_suspend_per_process);
	RUN(order_of_one_process_kept);
	return tap_done();
}
