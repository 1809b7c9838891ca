// SPDX-License-Identifier: GPL-2.0
/*
 * L0: per-GPU arbitration (user/policy/gpolicy.c) of an offline process
 * whose queues are not known yet (no create captured, no sysfs row, no
 * snapshot): it may be on any GPU, so it is held whole while online is
 * busy on any GPU, and its first known queue moves it to exact placement.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpolicy.h"
#include "tap.h"

#define MS 1000000ULL
#define G0 10001
#define G1 10002
#define G2 10003

static struct gp_gactions acts;

static struct gp_gpolicy *mk(enum gp_gang gang)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);	/* resume_after 2 ms, no budget */
	acts.n = 0;
	return gp_gpolicy_new(&c, GP_SCOPE_GPU, gang, 0);
}

static void queue(struct gp_gpolicy *g, uint64_t t, int pid, uint32_t qid,
		  uint32_t gpu)
{
	struct gp_qplace q = { .queue_id = qid, .gpu_id = gpu };

	CHECK(!gp_gpolicy_queue(g, t, pid, &q, &acts));
}

static int count(int pid, enum gp_pop op)
{
	int n = 0;

	for (int i = 0; i < acts.n; i++)
		n += acts.a[i].pid == pid && acts.a[i].op == op;
	return n;
}

static const struct gp_gaction *find(int pid, enum gp_pop op)
{
	for (int i = 0; i < acts.n; i++)
		if (acts.a[i].pid == pid && acts.a[i].op == op)
			return &acts.a[i];
	return NULL;
}

/* Held whole on a busy GPU it may be on; placed off it: resumed. */
TEST(unplaced_held_whole_then_placed_elsewhere)
{
	struct gp_gpolicy *g = mk(GP_GANG_NONE);
	uint32_t g0 = G0;
	const struct gp_gaction *a;

	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 0, &acts));
	queue(g, 0, 301, 0, G1);	/* 301 is known to be on G1 only */
	CHECK(acts.n == 0);
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	/* 300: one SUSPEND of every queue; 301 (on G1) untouched */
	CHECK(acts.n == 1);
	a = find(300, GP_POP_SUSPEND);
	CHECK(a && a->all && a->nids == 0 && a->cause == GP_CAUSE_BUSY);
	CHECK(count(301, GP_POP_SUSPEND) == 0);
	/* its first queue is on G1, where online is not: resumed, all */
	acts.n = 0;
	queue(g, 11 * MS, 300, 4, G1);
	CHECK(acts.n == 1);
	a = find(300, GP_POP_RESUME);
	CHECK(a && a->all);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 0);
	/* now exact: G0's busy periods leave it alone */
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, &g0, 1, &acts));
	gp_gpolicy_tick(g, 30 * MS, &acts);
	CHECK(!gp_gpolicy_busy(g, 40 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 0);
	gp_gpolicy_free(g);
}

/* Placed on the busy GPU while held whole: RESUME all, SUSPEND its id. */
TEST(unplaced_placed_on_busy_gpu)
{
	struct gp_gpolicy *g = mk(GP_GANG_NONE);
	uint32_t g0 = G0, q5[] = { 5 };
	const struct gp_gaction *a;

	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 1 && find(300, GP_POP_SUSPEND)->all);
	acts.n = 0;
	queue(g, 11 * MS, 300, 5, G0);
	CHECK(acts.n == 2);
	CHECK(acts.a[0].op == GP_POP_RESUME && acts.a[0].all);
	a = &acts.a[1];
	CHECK(a->op == GP_POP_SUSPEND && !a->all && a->nids == 1 &&
	      a->ids[0] == q5[0]);
	CHECK(gp_gpolicy_suspended_on(g, 300, G0) == 1);
	/* idle: resumed by id, after resume_after */
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, &g0, 1, &acts));
	gp_gpolicy_tick(g, 23 * MS, &acts);
	CHECK(acts.n == 1);
	a = find(300, GP_POP_RESUME);
	CHECK(a && !a->all && a->nids == 1 && a->ids[0] == 5);
	gp_gpolicy_free(g);
}

/* A GPU first seen after the attach: its machine holds the process too;
 * a busy naming no GPU with none known holds it on "no GPU known yet". */
TEST(unplaced_new_gpu_and_no_gpu)
{
	struct gp_gpolicy *g = mk(GP_GANG_NONE);
	uint32_t g2 = G2;

	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, NULL, -1, &acts));
	CHECK(acts.n == 1 && find(300, GP_POP_SUSPEND)->all);
	CHECK(gp_gpolicy_slot(g, GP_GP_NODE) != NULL);
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, NULL, -1, &acts));
	gp_gpolicy_tick(g, 23 * MS, &acts);
	CHECK(acts.n == 1 && find(300, GP_POP_RESUME)->all);
	acts.n = 0;
	CHECK(!gp_gpolicy_busy(g, 30 * MS, 2, 200, &g2, 1, &acts));
	CHECK(acts.n == 1 && find(300, GP_POP_SUSPEND)->all &&
	      find(300, GP_POP_SUSPEND)->cause == GP_CAUSE_BUSY);
	gp_gpolicy_free(g);
}

/* A gang none of whose members has a known queue: held whole, as one. */
TEST(unplaced_gang)
{
	struct gp_gpolicy *g = mk(GP_GANG_CGROUP);
	uint32_t g1 = G1;

	CHECK(!gp_gpolicy_offline_attached(g, 0, 400, 77, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 401, 77, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, 0, &acts));
	queue(g, 0, 301, 0, G0);
	acts.n = 0;
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g1, 1, &acts));
	CHECK(acts.n == 2 && find(400, GP_POP_SUSPEND)->all &&
	      find(401, GP_POP_SUSPEND)->all && !count(301, GP_POP_SUSPEND));
	/* a member's queue on G0 places the gang: off G1, resumed */
	acts.n = 0;
	queue(g, 11 * MS, 400, 1, G0);
	CHECK(count(400, GP_POP_RESUME) == 1 && count(401, GP_POP_RESUME) == 1);
	CHECK(!count(400, GP_POP_SUSPEND) && !count(401, GP_POP_SUSPEND));
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(unplaced_held_whole_then_placed_elsewhere);
	RUN(unplaced_placed_on_busy_gpu);
	RUN(unplaced_new_gpu_and_no_gpu);
	RUN(unplaced_gang);
	return tap_done();
}
