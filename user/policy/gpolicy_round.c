// SPDX-License-Identifier: GPL-2.0
/*
 * One backend call per process and direction per decision round
 * (gpolicy.h, gp_gpolicy_coalesce). Each KFD SUSPEND_QUEUES or
 * RESUME_QUEUES re-runs the runlist of the devices it touches, so a
 * process spanning N GPUs that a busy on all N suspends should get one
 * ioctl, not N: the per-GPU machines decide one GPU at a time and emit
 * one action each (gpolicy.c, gpg_sync_proc), which this merges.
 */
#include "gpolicy.h"

/* Adds b's ids to a's (no duplicates); false when they would not fit. */
static bool merge_ids(struct gp_gaction *a, const struct gp_gaction *b,
		      int *dups)
{
	struct gp_gaction m = *a;

	*dups = 0;
	for (int i = 0; i < b->nids; i++) {
		int j;

		for (j = 0; j < m.nids && m.ids[j] != b->ids[i]; j++)
			;
		if (j < m.nids) {
			(*dups)++;
			continue;
		}
		if (m.nids == GP_GP_MAX_QUEUES)
			return false;
		m.ids[m.nids++] = b->ids[i];
	}
	m.all = a->all || b->all;
	*a = m;
	return true;
}

int gp_gpolicy_coalesce(struct gp_gpolicy *g, struct gp_gactions *acts)
{
	int n = 0, merged = 0;

	for (int i = 0; i < acts->n; i++) {
		struct gp_gaction *x = &acts->a[i], *last = NULL;
		struct gp_gproc *p;
		int dups;

		for (int k = n - 1; k >= 0; k--)
			if (acts->a[k].pid == x->pid) {
				last = &acts->a[k];
				break;
			}
		if (!last || last->op != x->op || !merge_ids(last, x, &dups)) {
			if (n != i)
				acts->a[n] = *x;
			n++;
			continue;
		}
		/* the first action's cause stands (the call's log line) */
		merged++;
		g->queues_named -= dups;
		p = NULL;
		for (int k = 0; k < g->nproc; k++)
			if (g->proc[k].pid == x->pid)
				p = &g->proc[k];
		if (x->op == GP_POP_SUSPEND) {
			g->suspend_ioctls--;
			if (p && p->suspend_ioctls)
				p->suspend_ioctls--;
		} else {
			g->resume_ioctls--;
			if (p && p->resume_ioctls)
				p->resume_ioctls--;
		}
	}
	acts->n = n;
	return merged;
}
