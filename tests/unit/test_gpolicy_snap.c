// SPDX-License-Identifier: GPL-2.0
/*
 * L0: a held process's GET_QUEUE_SNAPSHOT feeds the per-GPU policy's
 * placement (gp_gpolicy_snapshot, user/policy/gpolicy_snap.c). The
 * snapshot is a FIXTURE: struct kfd_queue_snapshot_entry rows in the
 * kernel's uapi layout (linux/kfd_ioctl.h), decoded by
 * gp_qplace_from_snapshot as the daemon does with its session's buffer;
 * no GPU here makes a real one with queues (the VM's ROCr processes have
 * none).
 */
#include <errno.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#include "gpolicy.h"
#include "tap.h"

#define MS 1000000ULL
#define G0 10001
#define G1 10002

static struct gp_gactions acts;

/* Decodes entries as the daemon does; feeds them. */
static int feed(struct gp_gpolicy *g, uint64_t t, int pid,
		const struct kfd_queue_snapshot_entry *e, int n)
{
	struct gp_qplace q[GP_GP_MAX_QUEUES];
	int k = gp_qplace_from_snapshot(e, n, n, sizeof(*e), q,
					GP_GP_MAX_QUEUES);

	CHECK(k == n);
	return gp_gpolicy_snapshot(g, t, pid, q, k, &acts);
}

static bool ids_are(const struct gp_gaction *a, enum gp_pop op, int n,
		    const uint32_t *ids)
{
	if (a->op != op || a->all || a->nids != n)
		return false;
	for (int i = 0; i < n; i++)
		if (a->ids[i] != ids[i])
			return false;
	return true;
}

TEST(snapshot_places_and_refreshes)
{
	struct kfd_queue_snapshot_entry s1[3] = {
		{ .queue_id = 0, .gpu_id = G0, .queue_type = 0 },
		{ .queue_id = 1, .gpu_id = G1, .queue_type = 0 },
		{ .queue_id = 2, .gpu_id = G1, .queue_type = 2 },
	}, s2[3] = {
		{ .queue_id = 0, .gpu_id = G0 },
		{ .queue_id = 2, .gpu_id = G1 },
		{ .queue_id = 3, .gpu_id = G0 },	/* new; 1 not listed */
	};
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;
	const struct gp_gproc *p;
	uint32_t g0 = G0, q0[] = { 0 }, q3[] = { 3 }, q03[] = { 0, 3 };

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE, 0);
	CHECK(feed(g, 0, 300, s1, 3) == -ENOENT);
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	/* the snapshot at attach: placed on G0 and G1 */
	CHECK(!feed(g, 0, 300, s1, 3));
	p = gp_gpolicy_proc(g, 300);
	CHECK(p && p->nq == 3 && p->q[2].type == 2 &&
	      p->q[0].origin == GP_QP_SNAPSHOT);
	CHECK(acts.n == 0);
	/* busy on G0: one ioctl naming queue 0 only (not held whole) */
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 1 && ids_are(&acts.a[0], GP_POP_SUSPEND, 1, q0));
	CHECK(acts.a[0].cause == GP_CAUSE_BUSY);
	/* the next snapshot: 3 is new on the held GPU; 1 is not listed
	 * and stays (only the tracer's destroy removes) */
	acts.n = 0;
	CHECK(!feed(g, 11 * MS, 300, s2, 3));
	CHECK(acts.n == 1 && ids_are(&acts.a[0], GP_POP_SUSPEND, 1, q3));
	p = gp_gpolicy_proc(g, 300);
	CHECK(p->nq == 4 && gp_gpolicy_suspended_on(g, 300, G0) == 2 &&
	      gp_gpolicy_suspended_on(g, 300, G1) == 0);
	/* idle: resumed by exactly the two ids */
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, &g0, 1, &acts));
	gp_gpolicy_tick(g, 23 * MS, &acts);
	CHECK(acts.n == 1 && ids_are(&acts.a[0], GP_POP_RESUME, 2, q03));
	gp_gpolicy_free(g);
}

/* Held whole before its placement was known: the snapshot taken before
 * the suspend makes it exact. */
TEST(snapshot_of_unplaced_held_process)
{
	struct kfd_queue_snapshot_entry s[2] = {
		{ .queue_id = 4, .gpu_id = G1 },
		{ .queue_id = 5, .gpu_id = G1 },
	};
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;
	uint32_t g0 = G0;

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, GP_SCOPE_GPU, GP_GANG_NONE, 0);
	acts.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, 0, &acts));
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 1 && acts.a[0].all);
	/* on G1 only: online on G0 does not need it: resumed */
	acts.n = 0;
	CHECK(!feed(g, 11 * MS, 300, s, 2));
	CHECK(acts.n == 1 && acts.a[0].op == GP_POP_RESUME && acts.a[0].all);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 0);
	gp_gpolicy_free(g);
}

int main(void)
{
	RUN(snapshot_places_and_refreshes);
	RUN(snapshot_of_unplaced_held_process);
	return tap_done();
}
