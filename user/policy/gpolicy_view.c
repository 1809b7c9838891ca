// SPDX-License-Identifier: GPL-2.0
/*
 * The node view of the per-GPU policy (gpolicy.h): the numbers the
 * `arbiter` line of `policy`, the gpreempt_policy_* metrics and the
 * reload's held count show, derived from the one policy that decides.
 * The node machine (policy.c, the daemon's a->pol) only keeps the busy
 * sources (counting, scope=pid, a closed connection's busy, busy-max);
 * it has no offline member, so it never decides anything.
 */
#include <string.h>

#include "gpolicy.h"

/* Busiest first: a GPU holding offline says more than one lingering. */
static int rank(enum gp_pstate s)
{
	switch (s) {
	case GP_PS_BUSY:
		return 3;
	case GP_PS_BUDGET:
		return 2;
	case GP_PS_LINGER:
		return 1;
	default:
		return 0;
	}
}

/* pid's unit on one machine, or NULL. */
static const struct gp_poffline *member(const struct gp_policy *m, int id)
{
	for (int i = 0; i < m->n_off; i++)
		if (m->off[i].pid == id)
			return &m->off[i];
	return NULL;
}

static void view_proc(const struct gp_gpolicy *g, const struct gp_gproc *p,
		      uint64_t now, struct gp_poffline *o)
{
	int id = g->unit[p->unit].id;
	uint64_t best = 0;

	memset(o, 0, sizeof(*o));
	o->pid = p->pid;
	o->attached_at = now;
	o->suspends = p->suspend_ioctls;
	o->resumes = p->resume_ioctls;
	o->suspended = p->whole;
	for (int i = 0; i < p->nq; i++)
		o->suspended |= p->q[i].suspended;
	/* Its suspended time: the longest over its GPUs' machines (the
	 * stretches of one process on several GPUs overlap). */
	for (int s = 0; s < g->nslot; s++) {
		const struct gp_poffline *m = member(&g->slot[s]->p, id);
		uint64_t t;

		if (!m)
			continue;
		if (m->attached_at < o->attached_at)
			o->attached_at = m->attached_at;
		o->failures += m->failures;
		t = m->suspended_ns + (m->suspended && now > m->since ?
				       now - m->since : 0);
		if (t > best) {
			best = t;
			o->suspended_ns = m->suspended_ns;
			o->since = m->since;
		}
	}
	/* The open stretch counts only while the process is held. */
	if (!o->suspended) {
		o->suspended_ns = best;
		o->since = now;
	}
}

void gp_gpolicy_node_view(const struct gp_gpolicy *g,
			  const struct gp_policy *sources, uint64_t now,
			  struct gp_policy *v)
{
	struct gp_policy_stats *st = &v->st;

	*v = *sources;
	v->now = now;
	v->state = GP_PS_IDLE;
	st->suspends = g->suspend_ioctls;
	st->resumes = g->resume_ioctls;
	st->budget_resumes = st->max_hold_resumes = 0;
	st->cancelled_resumes = st->failures = 0;
	for (int s = 0; s < g->nslot; s++) {
		const struct gp_policy *m = &g->slot[s]->p;

		if (rank(m->state) > rank(v->state))
			v->state = m->state;
		st->budget_resumes += m->st.budget_resumes;
		st->max_hold_resumes += m->st.max_hold_resumes;
		st->cancelled_resumes += m->st.cancelled_resumes;
		st->failures += m->st.failures;
	}
	v->n_off = 0;
	for (int i = 0; i < g->nproc && v->n_off < GP_POLICY_MAX_OFFLINE; i++)
		view_proc(g, &g->proc[i], now, &v->off[v->n_off++]);
}
