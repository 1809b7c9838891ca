// SPDX-License-Identifier: GPL-2.0
/*
 * Per-GPU against node scope (bench/run.sh part gpus; host, no GPU): N
 * offline processes (1, 8, 64) spread over 8 GPUs with the placement of
 * tests/unit/fixtures/topo (6 queues each on GPU 10001 + i % 8), one
 * online server on GPU 10001. Each round is one busy -> idle -> resume
 * cycle through the per-GPU policy (user/policy/gpolicy.c), at --scope
 * gpu and node. Per scope it prints
 *	BENCH gpus N SCOPE NS_PER_BUSY SUSPEND_IOCTLS QUEUES GPUS
 * NS_PER_BUSY: the policy's time from the busy to the last SUSPEND
 * decided (median of the rounds; the ioctls themselves are measured in
 * the VM by part arbiter); SUSPEND_IOCTLS and QUEUES: per toggle; GPUS:
 * GPUs whose runlist a toggle re-runs (those holding a named queue:
 * suspend_queues() in kfd_device_queue_manager.c). Then
 *	BENCH gpus-ratio N IOCTLS GPUS TIME
 * = node / gpu for each, measured in the same run.
 *	gpu-scope [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpolicy.h"

#define NGPU 8
#define QPP 6
#define MS 1000000ULL

static struct gp_gactions acts;

static unsigned long long mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a,
			   y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

struct res {
	unsigned long long ns;
	double ioctls, queues, gpus;
};

static void run(int n, enum gp_scope scope, int rounds, struct res *r)
{
	struct gp_policy_cfg c;
	struct gp_gpolicy *g;
	unsigned long long *t = calloc(rounds, sizeof(*t)), sus = 0, q = 0;
	unsigned long long gpus = 0;
	uint32_t online = 10001;
	uint64_t now = 0;

	gp_policy_cfg_default(&c);
	g = gp_gpolicy_new(&c, scope, GP_GANG_NONE, 0);
	for (int p = 0; p < n; p++) {
		gp_gpolicy_offline_attached(g, 0, 1000 + p, 0, &acts);
		for (int k = 0; k < QPP; k++) {
			struct gp_qplace pl = { .queue_id = k,
						.gpu_id = 10001 + p % NGPU };

			gp_gpolicy_queue(g, 0, 1000 + p, &pl, &acts);
		}
	}
	for (int i = 0; i < rounds; i++) {
		unsigned long long t0;
		bool on[NGPU] = { 0 };

		acts.n = 0;
		now += 10 * MS;
		t0 = mono();
		gp_gpolicy_busy(g, now, 1, 1, &online, 1, &acts);
		t[i] = mono() - t0;
		for (int a = 0; a < acts.n; a++) {
			const struct gp_gproc *p =
				gp_gpolicy_proc(g, acts.a[a].pid);

			sus += acts.a[a].op == GP_POP_SUSPEND;
			q += acts.a[a].nids;
			/* every queue of p is on one GPU in this placement */
			if (p && p->nq)
				on[(p->q[0].gpu_id - 10001) % NGPU] = true;
		}
		for (int k = 0; k < NGPU; k++)
			gpus += on[k];
		now += MS;
		gp_gpolicy_idle(g, now, 1, 1, &online, 1, &acts);
		now += 5 * MS;
		gp_gpolicy_tick(g, now, &acts);
	}
	qsort(t, rounds, sizeof(*t), cmp);
	r->ns = t[rounds / 2];
	r->ioctls = (double)sus / rounds;
	r->queues = (double)q / rounds;
	r->gpus = (double)gpus / rounds;
	printf("BENCH gpus %d %s %llu %.1f %.1f %.1f\n", n,
	       gp_scope_name(scope), r->ns, r->ioctls, r->queues, r->gpus);
	free(t);
	gp_gpolicy_free(g);
}

int main(int argc, char **argv)
{
	static const int ns[] = { 1, 8, 64 };
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;

	if (rounds < 1)
		return 2;
	for (unsigned int i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct res gpu, node;

		run(ns[i], GP_SCOPE_GPU, rounds, &gpu);
		run(ns[i], GP_SCOPE_NODE, rounds, &node);
		printf("BENCH gpus-ratio %d %.2f %.2f %.2f\n", ns[i],
		       gpu.ioctls ? node.ioctls / gpu.ioctls : 0,
		       gpu.gpus ? node.gpus / gpu.gpus : 0,
		       gpu.ns ? (double)node.ns / gpu.ns : 0);
	}
	return 0;
}
