// SPDX-License-Identifier: GPL-2.0
/*
 * Per-GPU arbitration (see gpolicy.h). Each GPU's machine is policy.c,
 * unchanged; its offline members are units (a process, or a gang). The
 * machines' actions are replayed in order onto a shadow of which unit
 * each machine holds suspended, and after each one the unit's processes
 * get what changed for them: one RESUME and/or one SUSPEND naming exactly
 * the queue ids whose wanted state flipped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpolicy.h"

/* Per slot: units attached, and units the machine holds suspended. */
struct shadow {
	uint64_t attached, held;
};

struct gp_gpolicy_priv {
	struct gp_gpolicy pub;
	struct shadow sh[GP_GP_MAX_GPUS];
	bool unit_used[GP_GP_MAX_PROCS];
};

static struct gp_gpolicy_priv *priv(const struct gp_gpolicy *g)
{
	return (struct gp_gpolicy_priv *)g;
}

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

static int attach(struct gp_gpolicy *g, int s, int u,
		  struct gp_gactions *out);

/* Slot of gpu, made if new; a new GPU's machine takes every unit not
 * placed yet (it may be on that GPU too). */
static int slot_get(struct gp_gpolicy *g, uint32_t gpu,
		    struct gp_gactions *out)
{
	int n = g->nslot, s = slot_idx(g, gpu, true);

	if (s < 0 || g->scope != GP_SCOPE_GPU || s < n)
		return s;
	for (int u = 0; u < GP_GP_MAX_PROCS; u++)
		if (priv(g)->unit_used[u] && !g->unit[u].placed)
			attach(g, s, u, out);
	return s;
}

static int unit_by_id(const struct gp_gpolicy *g, int id)
{
	for (int i = 0; i < GP_GP_MAX_PROCS; i++)
		if (priv(g)->unit_used[i] && g->unit[i].id == id)
			return i;
	return -1;
}

static struct gp_gproc *proc_of(struct gp_gpolicy *g, int pid)
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

static void push(struct gp_gpolicy *g, struct gp_gactions *out,
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
static void sync_proc(struct gp_gpolicy *g, struct gp_gproc *p,
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
		push(g, out, &r);
	}
	if (s.nids || s.all) {
		p->suspend_ioctls++;
		push(g, out, &s);
	}
}

static void sync_unit(struct gp_gpolicy *g, int u, struct gp_gactions *out)
{
	for (int i = 0; i < g->nproc; i++)
		if (g->proc[i].unit == u)
			sync_proc(g, &g->proc[i], out);
}

/* Replays slot s's scratch actions onto the shadow, in order. */
static void collect(struct gp_gpolicy *g, int s, struct gp_gactions *out)
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

static void tick_all(struct gp_gpolicy *g, uint64_t now,
		     struct gp_gactions *out)
{
	if (now > g->now)
		g->now = now;
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_tick(&g->slot[s]->p, g->now, &g->tmp);
		collect(g, s, out);
	}
}

void gp_gpolicy_tick(struct gp_gpolicy *g, uint64_t now,
		     struct gp_gactions *out)
{
	tick_all(g, now, out);
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
		int s = slot_get(g, GP_GP_NODE, out);

		if (s < 0)
			return s;
	}
	if (g->scope == GP_SCOPE_NODE || ngpus < 0) {
		for (int s = 0; s < g->nslot; s++)
			idx[n++] = s;
		return n;
	}
	for (int i = 0; i < ngpus; i++) {
		int s = create ? slot_get(g, gpus[i], out) :
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

	tick_all(g, now, out);
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
		collect(g, idx[i], out);
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
	tick_all(g, now, out);
	g->cfg = *c;	/* machines made later start with it too */
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_reconfigure(&g->slot[s]->p, g->now, c, &g->tmp);
		collect(g, s, out);
	}
}

void gp_gpolicy_source_closed(struct gp_gpolicy *g, uint64_t now,
			      uint64_t src, struct gp_gactions *out)
{
	tick_all(g, now, out);
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_source_closed(&g->slot[s]->p, g->now, src, &g->tmp);
		collect(g, s, out);
	}
}

void gp_gpolicy_online_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			    struct gp_gactions *out)
{
	tick_all(g, now, out);
	for (int s = 0; s < g->nslot; s++) {
		gp_policy_online_gone(&g->slot[s]->p, g->now, pid, &g->tmp);
		collect(g, s, out);
	}
}

/* Makes unit u a member of slot s's machine (once). */
static int attach(struct gp_gpolicy *g, int s, int u,
		  struct gp_gactions *out)
{
	struct shadow *sh = &priv(g)->sh[s];
	int r;

	if (sh->attached & (1ull << u))
		return 0;
	r = gp_policy_offline_attached(&g->slot[s]->p, g->now, g->unit[u].id,
				       &g->tmp);
	if (!r)
		sh->attached |= 1ull << u;
	collect(g, s, out);
	return r;
}

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

	tick_all(g, now, out);
	if (proc_of(g, pid))
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
		r = attach(g, 0, u, out);
	else if (!g->unit[u].placed)	/* may be on any GPU: on each */
		for (int s = 0; s < g->nslot; s++)
			attach(g, s, u, out);
	/* A gang already held: its new member joins the suspension. */
	sync_proc(g, p, out);
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
	collect(g, s, out);
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

	tick_all(g, now, out);
	p = proc_of(g, pid);
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
		s = slot_get(g, q->gpu_id, out);
		if (s < 0)
			return s;
		attach(g, s, p->unit, out);
	}
	/* A queue created on a GPU where its process is held: suspend it. */
	sync_proc(g, p, out);
	return 0;
}

void gp_gpolicy_queue_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			   uint32_t queue_id, struct gp_gactions *out)
{
	struct gp_gproc *p;

	tick_all(g, now, out);
	p = proc_of(g, pid);
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

	tick_all(g, now, out);
	p = proc_of(g, pid);
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
			push(g, out, &r);
	}
	*p = g->proc[--g->nproc];
}

void gp_gpolicy_failed(struct gp_gpolicy *g, uint64_t now, int pid,
		       enum gp_pop op)
{
	struct gp_gpolicy_priv *pv = priv(g);
	struct gp_gproc *p = proc_of(g, pid);

	if (!p)
		return;
	/* The process runs everywhere now (a failed resume ends the
	 * session, which resumes it in the kernel). */
	for (int i = 0; i < p->nq; i++)
		p->q[i].suspended = false;
	p->whole = false;
	for (int s = 0; s < g->nslot; s++) {
		if (!(pv->sh[s].held & (1ull << p->unit)) &&
		    op == GP_POP_SUSPEND)
			continue;
		gp_policy_failed(&g->slot[s]->p, now, g->unit[p->unit].id, op);
		if (op == GP_POP_SUSPEND && g->unit[p->unit].members == 1)
			pv->sh[s].held &= ~(1ull << p->unit);
	}
}

void gp_gpolicy_released(struct gp_gpolicy *g, uint64_t now, int pid)
{
	struct gp_gpolicy_priv *pv = priv(g);
	struct gp_gproc *p = proc_of(g, pid);

	if (!p)
		return;
	for (int i = 0; i < p->nq; i++)
		p->q[i].suspended = false;
	p->whole = false;
	for (int s = 0; s < g->nslot; s++) {
		if (!(pv->sh[s].held & (1ull << p->unit)))
			continue;
		gp_policy_offline_released(&g->slot[s]->p, now,
					   g->unit[p->unit].id);
		if (g->unit[p->unit].members == 1)
			pv->sh[s].held &= ~(1ull << p->unit);
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
	return proc_of((struct gp_gpolicy *)g, pid);
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

const char *gp_scope_name(enum gp_scope s)
{
	return s == GP_SCOPE_NODE ? "node" : "gpu";
}

const char *gp_gang_name(enum gp_gang k)
{
	static const char *const n[] = { "none", "pgid", "cgroup" };

	return k <= GP_GANG_CGROUP ? n[k] : "?";
}

int gp_scope_parse(const char *s, enum gp_scope *out)
{
	if (!strcmp(s, "gpu"))
		*out = GP_SCOPE_GPU;
	else if (!strcmp(s, "node"))
		*out = GP_SCOPE_NODE;
	else
		return -EINVAL;
	return 0;
}

int gp_gang_parse(const char *s, enum gp_gang *out)
{
	for (int k = GP_GANG_NONE; k <= GP_GANG_CGROUP; k++)
		if (!strcmp(s, gp_gang_name(k))) {
			*out = k;
			return 0;
		}
	return -EINVAL;
}
