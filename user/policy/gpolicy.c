// SPDX-License-Identifier: GPL-2.0
/*
 * Per-GPU arbitration (see gpolicy.h). Each GPU's machine is policy.c,
 * unchanged; its offline members are units (a process, or a gang). The
 * machines' actions are replayed in order onto a shadow of which unit
 * each machine holds suspended, and after each one the unit's processes
 * get what changed for them: one RESUME and/or one SUSPEND naming exactly
 * the queue ids whose wanted state flipped.
 * This file: the machines, the shadow and the edges; offline membership
 * and placement are gpolicy_units.c's.
 */
#include <errno.h>
#include <stdlib.h>

#include "gpolicy.h"
#include "gpolicy_int.h"

struct gp_gpolicy *gp_gpolicy_new(const struct gp_policy_cfg *c,
				  enum gp_scope scope, enum gp_gang gang,
				  uint64_t now)
{
	struct gp_gpolicy_priv *p = calloc(1, sizeof(*p));
	struct gp_gpolicy *g;

	if (!p)
		return NULL;
	g = &p->pub;
	g->cfg = *c;
	g->scope = scope;
	g->gang = gang;
	g->now = now;
	if (scope == GP_SCOPE_NODE) {
		/* One machine from the start: today's window origin. */
		g->slot[0] = calloc(1, sizeof(*g->slot[0]));
		if (!g->slot[0]) {
			free(p);
			return NULL;
		}
		g->slot[0]->gpu_id = GP_GP_NODE;
		gp_policy_init(&g->slot[0]->p, c, now);
		g->nslot = 1;
	}
	return g;
}

void gp_gpolicy_free(struct gp_gpolicy *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nslot; i++)
		free(g->slot[i]);
	free(priv(g));
}

static int slot_idx(struct gp_gpolicy *g, uint32_t gpu, bool create)
{
	struct gp_gslot *s;
	int i;

	if (g->scope == GP_SCOPE_NODE)
		return 0;
	for (i = 0; i < g->nslot; i++)
		if (g->slot[i]->gpu_id == gpu)
			return i;
	if (!create || g->nslot == GP_GP_MAX_GPUS)
		return -ENOSPC;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->gpu_id = gpu;
	gp_policy_init(&s->p, &g->cfg, g->now);
	g->slot[g->nslot] = s;
	return g->nslot++;
}

/* Makes unit u a member of slot s's machine (once). */
int gpg_attach(struct gp_gpolicy *g, int s, int u, struct gp_gactions *out)
{
	struct shadow *sh = &priv(g)->sh[s];
	int r;

	if (sh->attached & (1ull << u))
		return 0;
	r = gp_policy_offline_attached(&g->slot[s]->p, g->now, g->unit[u].id,
				       &g->tmp);
	if (!r)
		sh->attached |= 1ull << u;
	gpg_collect(g, s, out);
	return r;
}

/* Slot of gpu, made if new; a new GPU's machine takes every unit not
 * placed yet (it may be on that GPU too). */
int gpg_slot_get(struct gp_gpolicy *g, uint32_t gpu, struct gp_gactions *out)
{
	int n = g->nslot, s = slot_idx(g, gpu, true);

	if (s < 0 || g->scope != GP_SCOPE_GPU || s < n)
		return s;
	for (int u = 0; u < GP_GP_MAX_PROCS; u++)
		if (priv(g)->unit_used[u] && !g->unit[u].placed)
			gpg_attach(g, s, u, out);
	return s;
}

static int unit_by_id(const struct gp_gpolicy *g, int id)
{
	for (int i = 0; i < GP_GP_MAX_PROCS; i++)
		if (priv(g)->unit_used[i] && g->unit[i].id == id)
			return i;
	return -1;
}

struct gp_gproc *gpg_proc_of(struct gp_gpolicy *g, int pid)
{
	for (int i = 0; i < g->nproc; i++)
		if (g->proc[i].pid == pid)
			return &g->proc[i];
	return NULL;
}

/* Held as one: node scope, a gang, or a unit with no queue placed yet
 * (it may be on any GPU; a lone placed process gets subsets). */
static bool whole(const struct gp_gpolicy *g, int u)
{
	return g->scope == GP_SCOPE_NODE || g->unit[u].key ||
	       !g->unit[u].placed;
}

static bool unit_held_anywhere(const struct gp_gpolicy *g, int u)
{
	for (int s = 0; s < g->nslot; s++)
		if (priv(g)->sh[s].held & (1ull << u))
			return true;
	return false;
}

static bool queue_wanted(struct gp_gpolicy *g, const struct gp_gproc *p,
			 const struct gp_qplace *q)
{
	int s;

	if (whole(g, p->unit))
		return unit_held_anywhere(g, p->unit);
	s = slot_idx(g, q->gpu_id, false);
	return s >= 0 && (priv(g)->sh[s].held & (1ull << p->unit));
}

void gpg_push(struct gp_gpolicy *g, struct gp_gactions *out,
	      struct gp_gaction *a)
{
	if (a->op == GP_POP_SUSPEND)
		g->suspend_ioctls++;
	else
		g->resume_ioctls++;
	g->queues_named += a->nids;
	if (out->n < GP_GP_MAX_ACTIONS)
		out->a[out->n++] = *a;
}

/* Emits what changed for one process: RESUME first, then SUSPEND. */
void gpg_sync_proc(struct gp_gpolicy *g, struct gp_gproc *p,
		   struct gp_gactions *out)
{
	struct gp_gaction r = { .op = GP_POP_RESUME, .pid = p->pid },
			  s = { .op = GP_POP_SUSPEND, .pid = p->pid };
	bool w_unit = whole(g, p->unit);
	bool want_whole = w_unit && unit_held_anywhere(g, p->unit);

	/* Leaving a whole suspension (unheld, or its queues now placed):
	 * RESUME all first, since queues not known were suspended too; the
	 * loop then suspends the placed ones still wanted, by id. */
	if (p->whole && !want_whole) {
		r.all = true;
		for (int i = 0; i < p->nq; i++)
			if (p->q[i].suspended) {
				r.ids[r.nids++] = p->q[i].queue_id;
				p->q[i].suspended = false;
			}
		p->whole = false;
	}
	for (int i = 0; i < p->nq; i++) {
		struct gp_qplace *q = &p->q[i];
		bool w = queue_wanted(g, p, q);

		if (w && !q->suspended)
			s.ids[s.nids++] = q->queue_id;
		else if (!w && q->suspended)
			r.ids[r.nids++] = q->queue_id;
		q->suspended = w;
	}
	/* Whole-process suspensions also name queues not known yet. */
	if (want_whole && !p->whole) {
		s.all = true;
		p->whole = true;
	}
	r.cause = g->unit[p->unit].acted ? g->unit[p->unit].cause :
					   GP_CAUSE_DETACH;
	s.cause = g->unit[p->unit].acted ? g->unit[p->unit].cause :
					   GP_CAUSE_ATTACHED;
	if (r.nids || r.all) {
		p->resume_ioctls++;
		gpg_push(g, out, &r);
	}
	if (s.nids || s.all) {
		p->suspend_ioctls++;
		gpg_push(g, out, &s);
	}
}

static void sync_unit(struct gp_gpolicy *g, int u, struct gp_gactions *out)
{
	for (int i = 0; i < g->nproc; i++)
		if (g->proc[i].unit == u)
			gpg_sync_proc(g, &g->proc[i], out);
}

/* Replays slot s's scratch actions onto the shadow, in order. */
void gpg_collect(struct gp_gpolicy *g, int s, struct gp_gactions *out)
{
	struct shadow *sh = &priv(g)->sh[s];

	for (int i = 0; i < g->tmp.n; i++) {
		const struct gp_paction *a = &g->tmp.a[i];
		int u = unit_by_id(g, a->pid);

		if (u < 0)
			continue;
		if (a->op == GP_POP_SUSPEND)
			sh->held |= 1ull << u;
		else
			sh->held &= ~(1ull << u);
		g->unit[u].acted = true;
		g->unit[u].cause = a->cause;
		sync_unit(g, u, out);
		g->unit[u].acted = false;
	}
	g->tmp.n = 0;
}

void gpg_tick_all(struct gp_gpolicy *g, uint64_t now, struct gp_gactions *out)
{
	if (now > g->now)
		g->now = now;
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_tick(&g->slot[s]->p, g->now, &g->tmp);
		gpg_collect(g, s, out);
	}
}

void gp_gpolicy_tick(struct gp_gpolicy *g, uint64_t now,
		     struct gp_gactions *out)
{
	gpg_tick_all(g, now, out);
}

uint64_t gp_gpolicy_next_deadline(const struct gp_gpolicy *g)
{
	uint64_t d = GP_POLICY_NO_DEADLINE;

	for (int s = 0; s < g->nslot; s++) {
		uint64_t x = gp_policy_next_deadline(&g->slot[s]->p);

		if (x < d)
			d = x;
	}
	return d;
}

/* Slots named by gpus (ngpus < 0: all), deduplicated, into idx. */
static int slots_of(struct gp_gpolicy *g, const uint32_t *gpus, int ngpus,
		    bool create, int *idx, struct gp_gactions *out)
{
	int n = 0;

	/* No GPU known: the machine of "no GPU known yet" (gpu_id 0), so
	 * processes not placed yet are held on a busy without a GPU. */
	if (g->scope == GP_SCOPE_GPU && ngpus < 0 && !g->nslot && create) {
		int s = gpg_slot_get(g, GP_GP_NODE, out);

		if (s < 0)
			return s;
	}
	if (g->scope == GP_SCOPE_NODE || ngpus < 0) {
		for (int s = 0; s < g->nslot; s++)
			idx[n++] = s;
		return n;
	}
	for (int i = 0; i < ngpus; i++) {
		int s = create ? gpg_slot_get(g, gpus[i], out) :
				 slot_idx(g, gpus[i], false), j;

		if (s < 0) {
			if (create)
				return s;
			continue;
		}
		for (j = 0; j < n && idx[j] != s; j++)
			;
		if (j == n)
			idx[n++] = s;
	}
	return n;
}

/* Busy or idle of (src, pid) on gpus, on each of their machines. */
static int edge(struct gp_gpolicy *g, uint64_t now, uint64_t src, int pid,
		const uint32_t *gpus, int ngpus, bool busy,
		struct gp_gactions *out)
{
	int idx[GP_GP_MAX_GPUS], n, r = 0, done = 0;

	gpg_tick_all(g, now, out);
	/* busy creates the machine of a GPU seen first; idle never does */
	n = slots_of(g, gpus, ngpus, busy, idx, out);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct gp_policy *p = &g->slot[idx[i]]->p;
		int e = busy ? gp_policy_busy(p, g->now, src, pid, &g->tmp) :
			       gp_policy_idle(p, g->now, src, pid, &g->tmp);

		if (e)
			r = e;
		else
			done++;
		gpg_collect(g, idx[i], out);
	}
	if (!busy)	/* an idle some machine took is an idle */
		return done ? 0 : -EALREADY;
	return r;
}

int gp_gpolicy_busy(struct gp_gpolicy *g, uint64_t now, uint64_t src,
		    int pid, const uint32_t *gpus, int ngpus,
		    struct gp_gactions *out)
{
	return edge(g, now, src, pid, gpus, ngpus, true, out);
}

int gp_gpolicy_idle(struct gp_gpolicy *g, uint64_t now, uint64_t src,
		    int pid, const uint32_t *gpus, int ngpus,
		    struct gp_gactions *out)
{
	return edge(g, now, src, pid, gpus, ngpus, false, out);
}

void gp_gpolicy_reconfigure(struct gp_gpolicy *g, uint64_t now,
			    const struct gp_policy_cfg *c,
			    struct gp_gactions *out)
{
	gpg_tick_all(g, now, out);
	g->cfg = *c;	/* machines made later start with it too */
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_reconfigure(&g->slot[s]->p, g->now, c, &g->tmp);
		gpg_collect(g, s, out);
	}
}

void gp_gpolicy_source_closed(struct gp_gpolicy *g, uint64_t now,
			      uint64_t src, struct gp_gactions *out)
{
	gpg_tick_all(g, now, out);
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_source_closed(&g->slot[s]->p, g->now, src, &g->tmp);
		gpg_collect(g, s, out);
	}
}

void gp_gpolicy_online_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			    struct gp_gactions *out)
{
	gpg_tick_all(g, now, out);
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_online_gone(&g->slot[s]->p, g->now, pid, &g->tmp);
		gpg_collect(g, s, out);
	}
}
