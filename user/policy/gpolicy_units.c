// SPDX-License-Identifier: GPL-2.0
/*
 * Per-GPU arbitration (see gpolicy.h): offline membership and placement.
 * A process joins a unit (itself, or its gang), the unit joins the
 * machine of every GPU it has a queue on (every machine while it has
 * none), and leaves them as its queues are placed or it goes. The
 * machines and the shadow are gpolicy.c's.
 */
#include <errno.h>
#include <string.h>

#include "gpolicy.h"
#include "gpolicy_int.h"

static int unit_for(struct gp_gpolicy *g, int pid, uint64_t key)
{
	struct gp_gpolicy_priv *p = priv(g);
	int i, free_i = -1;

	if (g->gang == GP_GANG_NONE)
		key = 0;
	for (i = 0; i < GP_GP_MAX_PROCS; i++) {
		if (!p->unit_used[i]) {
			if (free_i < 0)
				free_i = i;
			continue;
		}
		if (key && g->unit[i].key == key)
			return i;
	}
	if (free_i < 0)
		return -ENOSPC;
	p->unit_used[free_i] = true;
	/* A lone process is named by its pid (node scope then emits what
	 * the single-GPU arbiter did); a gang by a negative handle. */
	g->unit[free_i] = (struct gp_gunit){
		.id = key ? -(++g->next_gang) : pid, .key = key,
	};
	g->nunit++;
	return free_i;
}

int gp_gpolicy_offline_attached(struct gp_gpolicy *g, uint64_t now, int pid,
				uint64_t gang_key, struct gp_gactions *out)
{
	struct gp_gproc *p;
	int u, r = 0;

	gpg_tick_all(g, now, out);
	if (gpg_proc_of(g, pid))
		return -EEXIST;
	if (g->nproc == GP_GP_MAX_PROCS)
		return -ENOSPC;
	u = unit_for(g, pid, gang_key);
	if (u < 0)
		return u;
	p = &g->proc[g->nproc++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->unit = u;
	g->unit[u].members++;
	if (g->scope == GP_SCOPE_NODE)
		r = gpg_attach(g, 0, u, out);
	else if (!g->unit[u].placed)	/* may be on any GPU: on each */
		for (int s = 0; s < g->nslot; s++)
			gpg_attach(g, s, u, out);
	/* A gang already held: its new member joins the suspension. */
	gpg_sync_proc(g, p, out);
	return r;
}

/* Unit u leaves slot s's machine (which resumes it there if held). */
static void leave_slot(struct gp_gpolicy *g, int s, int u,
		       struct gp_gactions *out)
{
	struct shadow *sh = &priv(g)->sh[s];

	if (!(sh->attached & (1ull << u)))
		return;
	gp_policy_offline_gone(&g->slot[s]->p, g->now, g->unit[u].id,
			       &g->tmp);
	gpg_collect(g, s, out);
	sh->attached &= ~(1ull << u);
	sh->held &= ~(1ull << u);
}

static bool unit_has_queue_on(const struct gp_gpolicy *g, int u,
			      uint32_t gpu)
{
	for (int i = 0; i < g->nproc; i++)
		for (int k = 0; g->proc[i].unit == u && k < g->proc[i].nq; k++)
			if (g->proc[i].q[k].gpu_id == gpu)
				return true;
	return false;
}

/* u's first queue is known: it leaves the GPUs it has none on. */
static void place_unit(struct gp_gpolicy *g, int u, struct gp_gactions *out)
{
	g->unit[u].placed = true;
	for (int s = 0; s < g->nslot; s++)
		if (!unit_has_queue_on(g, u, g->slot[s]->gpu_id))
			leave_slot(g, s, u, out);
}

int gp_gpolicy_queue(struct gp_gpolicy *g, uint64_t now, int pid,
		     const struct gp_qplace *q, struct gp_gactions *out)
{
	struct gp_gproc *p;
	int i, s;

	gpg_tick_all(g, now, out);
	p = gpg_proc_of(g, pid);
	if (!p)
		return -ENOENT;
	for (i = 0; i < p->nq && p->q[i].queue_id != q->queue_id; i++)
		;
	if (i == p->nq) {
		if (p->nq == GP_GP_MAX_QUEUES)
			return -ENOSPC;
		p->q[p->nq++] = *q;
		p->q[i].suspended = false;
	} else {
		/* A queue id is the process's: the newest report wins. */
		p->q[i].gpu_id = q->gpu_id;
		p->q[i].type = q->type;
	}
	if (g->scope == GP_SCOPE_GPU) {
		if (!g->unit[p->unit].placed)
			place_unit(g, p->unit, out);
		s = gpg_slot_get(g, q->gpu_id, out);
		if (s < 0)
			return s;
		gpg_attach(g, s, p->unit, out);
	}
	/* A queue created on a GPU where its process is held: suspend it. */
	gpg_sync_proc(g, p, out);
	return 0;
}

void gp_gpolicy_queue_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			   uint32_t queue_id, struct gp_gactions *out)
{
	struct gp_gproc *p;

	gpg_tick_all(g, now, out);
	p = gpg_proc_of(g, pid);
	if (!p)
		return;
	for (int i = 0; i < p->nq; i++)
		if (p->q[i].queue_id == queue_id) {
			p->q[i] = p->q[--p->nq];
			break;
		}
}

static void detach_unit(struct gp_gpolicy *g, int u, struct gp_gactions *out)
{
	struct gp_gpolicy_priv *pv = priv(g);

	for (int s = 0; s < g->nslot; s++)
		leave_slot(g, s, u, out);
	pv->unit_used[u] = false;
	g->nunit--;
}

void gp_gpolicy_offline_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			     struct gp_gactions *out)
{
	struct gp_gproc *p;
	int u;

	gpg_tick_all(g, now, out);
	p = gpg_proc_of(g, pid);
	if (!p)
		return;
	u = p->unit;
	if (--g->unit[u].members == 0) {
		/* The machines resume it (cause detach) on their way out. */
		detach_unit(g, u, out);
	} else {
		struct gp_gaction r = { .op = GP_POP_RESUME, .pid = pid,
					.cause = GP_CAUSE_DETACH,
					.all = p->whole };

		for (int i = 0; i < p->nq; i++)
			if (p->q[i].suspended)
				r.ids[r.nids++] = p->q[i].queue_id;
		if (r.nids || r.all)
			gpg_push(g, out, &r);
	}
	*p = g->proc[--g->nproc];
}

/* The process runs everywhere now: none of its queues, nor the whole of
 * it, is suspended. NULL when pid is not attached. */
static struct gp_gproc *runs_everywhere(struct gp_gpolicy *g, int pid)
{
	struct gp_gproc *p = gpg_proc_of(g, pid);

	if (!p)
		return NULL;
	for (int i = 0; i < p->nq; i++)
		p->q[i].suspended = false;
	p->whole = false;
	return p;
}

static bool slot_holds(const struct gp_gpolicy *g, int s,
		       const struct gp_gproc *p)
{
	return priv(g)->sh[s].held & (1ull << p->unit);
}

/* Slot s stops holding p's unit when p was its only member. */
static void slot_unhold(struct gp_gpolicy *g, int s, const struct gp_gproc *p)
{
	if (g->unit[p->unit].members == 1)
		priv(g)->sh[s].held &= ~(1ull << p->unit);
}

void gp_gpolicy_failed(struct gp_gpolicy *g, uint64_t now, int pid,
		       enum gp_pop op)
{
	/* a failed resume ends the session, which resumes it in the kernel */
	struct gp_gproc *p = runs_everywhere(g, pid);

	for (int s = 0; p && s < g->nslot; s++) {
		if (op == GP_POP_SUSPEND && !slot_holds(g, s, p))
			continue;
		gp_policy_failed(&g->slot[s]->p, now, g->unit[p->unit].id, op);
		if (op == GP_POP_SUSPEND)
			slot_unhold(g, s, p);
	}
}

/* Another process of p's unit (a gang) is still suspended somewhere. */
static bool unit_still_held(const struct gp_gpolicy *g,
			    const struct gp_gproc *p)
{
	for (int i = 0; i < g->nproc; i++) {
		const struct gp_gproc *o = &g->proc[i];

		if (o == p || o->unit != p->unit)
			continue;
		if (o->whole)
			return true;
		for (int k = 0; k < o->nq; k++)
			if (o->q[k].suspended)
				return true;
	}
	return false;
}

void gp_gpolicy_released(struct gp_gpolicy *g, uint64_t now, int pid)
{
	struct gp_gproc *p = runs_everywhere(g, pid);

	/* A gang with a rank still suspended stays held, so that online's
	 * idle resumes that rank; this one runs until the gang's next
	 * action. The last one released releases the unit. */
	if (!p || unit_still_held(g, p))
		return;
	for (int s = 0; s < g->nslot; s++) {
		if (!slot_holds(g, s, p))
			continue;
		gp_policy_offline_released(&g->slot[s]->p, now,
					   g->unit[p->unit].id);
		priv(g)->sh[s].held &= ~(1ull << p->unit);
	}
}

const struct gp_gslot *gp_gpolicy_slot(const struct gp_gpolicy *g,
				       uint32_t gpu_id)
{
	for (int i = 0; i < g->nslot; i++)
		if (g->slot[i]->gpu_id == gpu_id)
			return g->slot[i];
	return NULL;
}

const struct gp_gproc *gp_gpolicy_proc(const struct gp_gpolicy *g, int pid)
{
	return gpg_proc_of((struct gp_gpolicy *)g, pid);
}

int gp_gpolicy_suspended_on(const struct gp_gpolicy *g, int pid,
			    uint32_t gpu_id)
{
	const struct gp_gproc *p = gp_gpolicy_proc(g, pid);
	int n = 0;

	for (int i = 0; p && i < p->nq; i++)
		n += p->q[i].gpu_id == gpu_id && p->q[i].suspended;
	return n;
}
