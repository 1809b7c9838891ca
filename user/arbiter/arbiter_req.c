// SPDX-License-Identifier: GPL-2.0
/* The arbiter's socket verbs: busy, idle, classify, policy (arb_proto.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_int.h"
#include "text.h"
#include "arb_proto.h"
#include "proto.h"
#include "util.h"

/*
 * May c name pid (uid: its owner)? Root, or the process's owner (a
 * tenant in a container: in its own PID namespace). Checked before the
 * arbiter learns of the process: a refused request adds nothing.
 */
static int may_name(const struct client *c, int pid, uid_t uid,
		    const char *what, struct gp_err *e)
{
	if (client_admin(c) ||
	    (client_uid(c) == uid && !peer_may_act(c, pid)))
		return 0;
	return gp_err_set(e, GP_EXIT_PRIV, EPERM, "uid %u may not %s pid %d "
			  "(uid %u): only root or the process's owner",
			  client_uid(c), what, pid, uid);
}

/* A pid whose /proc files hung is not read again on the loop. */
static bool stuck(struct arbiter *a, int pid, struct gp_err *e)
{
	if (!arb_stuck_find(a, pid))
		return false;
	arb_stuck_err(e, pid);
	return true;
}

/*
 * The description of a request's pid (arbiter_defer.c): NULL while the
 * request has not been parked; else derr 0 and pd, or gone (derr < 0).
 */
struct desc {
	int err;
	const struct gp_proc_desc *pd;
};

static arb_described_fn described;

/*
 * pid must be read first (off the loop): the request is parked. Its
 * owner is read once, from /proc/PID (a stat: it waits on no process),
 * for the parking's bounds and, before those, a tenant's authorization,
 * so naming other users' pids cannot fill the parking. A process that
 * made itself non-dumpable reads as root's there and is refused to a
 * tenant, as the kernel refuses a tenant's ptrace of it.
 */
static bool park(struct daemon *d, struct client *c, const struct arb_req *q,
		 int pid, const struct desc *ds, const char *what)
{
	struct gp_err e = {};
	uid_t owner;

	if (ds)
		return false;
	if (arb_stuck_owner(arb_of(d), pid, &owner))
		gp_err_set(&e, GP_EXIT_TARGET, ESRCH, "no process %d", pid);
	else if (!client_admin(c))
		may_name(c, pid, owner, what, &e);
	if (e.exit) {
		alog(arb_of(d), "refused %s from pid %d uid %u: %s", what,
		     client_pid(c), client_uid(c), e.msg);
		reply_err(c, &e);
		return true;
	}
	arb_defer(d, c, q, pid, owner, described);
	return true;
}

static bool gone(const struct desc *ds, int pid, struct gp_err *e)
{
	if (!ds->err)
		return false;
	gp_err_set(e, GP_EXIT_TARGET, ESRCH, "no process %d", pid);
	return true;
}

/* The online process a busy/idle means, known or newly classified (ds:
 * its description, when it was not known). */
static struct arb_proc *online_of(struct daemon *d, struct client *c,
				  int pid, const struct desc *ds,
				  struct gp_err *e)
{
	struct arbiter *a = arb_of(d);
	struct arb_proc *p = arb_find(a, pid);
	enum gp_pclass cls;
	char err[512], cm[32];

	if (p && may_name(c, pid, p->uid, "signal for", e))
		return NULL;
	if (!p) {
		if (stuck(a, pid, e) || gone(ds, pid, e))
			return NULL;
		if (may_name(c, pid, ds->pd->uid, "signal for", e))
			return NULL;
		if (gp_classify(&a->cls, ds->pd, &cls, err, sizeof(err))) {
			gp_err_set(e, GP_EXIT_USAGE, EEXIST, "%s", err);
			return NULL;
		}
		/* No --online selector: an admin's busy makes a process
		 * online, a tenant's does not (the admin lists it: issue 31
		 * N15, docs/reliability.md "Who may become online"). Refused
		 * before it is added: a refusal leaves nothing (W1). */
		if (cls == GP_CLASS_NONE && !a->cls.n_online && client_admin(c))
			cls = GP_CLASS_ONLINE;
		if (cls != GP_CLASS_ONLINE) {
			gp_text_safe(cm, sizeof(cm), ds->pd->comm,
				     sizeof(ds->pd->comm));
			gp_err_set(e, GP_EXIT_USAGE, EPERM, "pid %d (%s) is "
				   "%s, not online: %s%u%s", pid, cm,
				   gp_pclass_name(cls), !a->cls.n_online ?
				   "with no --online selector a tenant may "
				   "not make a process online (the admin adds "
				   "--online uid=" : "add an --online selector "
				   "(e.g. uid=", ds->pd->uid, !a->cls.n_online ?
				   " or cgroup=PATH, or classifies it)" :
				   ") or 'classify pid=N class=online'");
			a->refused++;
			return NULL;
		}
		p = arb_add(a, ds->pd, cls);
		if (!p) {
			alimit(ARB_LIMIT_PROCS, "busy/idle for pid %d of "
			       "uid %u refused", pid, ds->pd->uid);
			gp_err_set(e, GP_EXIT_BUSY, ENOSPC, "the arbiter knows "
				   "%d processes already", ARB_MAX_PROCS);
			return NULL;
		}
	}
	if (p->cls != GP_CLASS_ONLINE) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "pid %d (%s) is %s, not "
			   "online: add an --online selector or 'classify "
			   "pid=%d class=online'", pid, p->comm,
			   p->conflict ? "in both classes" :
			   gp_pclass_name(p->cls), pid);
		return NULL;
	}
	return p;
}

/* A pid the arbiter does not know yet, and may read. */
static bool unknown(struct daemon *d, int pid)
{
	struct arbiter *a = arb_of(d);

	return !arb_find(a, pid) && !arb_stuck_find(a, pid);
}

static void do_busy_idle(struct daemon *d, struct client *c,
			 const struct arb_req *q, const struct desc *ds)
{
	struct arbiter *a = arb_of(d);
	int pid = q->pid ? q->pid : client_pid(c);
	bool busy = q->verb == ARB_BUSY, was;
	struct gp_activity act = { .pid = pid, .gpus = q->gpus,
		.ngpus = q->ngpus, .busy = busy,
		.kind = q->pid_scope ? GP_SRC_PID : GP_SRC_CONN,
		.id = q->pid_scope ? (uint32_t)pid : ARB_CONN_ID(c) };
	struct gp_err e = {};
	struct arb_proc *p;
	int r;

	if (!a->o->detect_notify) {
		gp_err_set(&e, GP_EXIT_USAGE, EINVAL, "notify is off "
			   "(--detect): busy/idle are not taken");
		goto err;
	}
	if (unknown(d, pid) && park(d, c, q, pid, ds, "signal for"))
		return;
	p = online_of(d, c, pid, ds, &e);
	if (!p)
		goto err;
	act.t_ns = monotonic_ns();
	was = gp_policy_online_busy(&a->pol);
	r = arb_feed(a, &act);
	if (r == -EALREADY) {
		gp_err_set(&e, GP_EXIT_USAGE, EALREADY, "no busy open for pid "
			   "%d %s: nothing to end", pid, q->pid_scope ?
			   "with scope=pid" : "on this connection");
		goto err;
	} else if (r) {
		gp_err_set(&e, GP_EXIT_BUSY, -r, "too many busy sources");
		goto err;
	}
	if (was != gp_policy_online_busy(&a->pol) || daemon_verbose(d))
		alog(a, "%s from pid %d for pid %d (%s)",
		     busy ? "busy" : "idle", client_pid(c), pid, p->comm);
	/* Reply after the ioctls: "ok" to busy means offline is suspended. */
	arb_apply(d);
	reply_ok(c);
	return;
err:
	alog(a, "refused %s from pid %d uid %u: %s", busy ? "busy" :
	     "idle", client_pid(c), client_uid(c), e.msg);
	reply_err(c, &e);
}

/* Read afresh every time (its class binds to its start time). */
static void do_classify(struct daemon *d, struct client *c,
			const struct arb_req *q, const struct desc *ds)
{
	struct arbiter *a = arb_of(d);
	const struct gp_proc_desc *pd;
	struct gp_err e = {};
	struct arb_proc *p;
	int r;

	if (stuck(a, q->pid, &e))
		goto err;
	if (park(d, c, q, q->pid, ds, "classify"))
		return;
	if (gone(ds, q->pid, &e))
		goto err;
	pd = ds->pd;
	/* Group members connect at all; root, or the process's owner. */
	if (may_name(c, q->pid, pd->uid, "classify", &e))
		goto err;
	p = arb_find(a, q->pid);
	if (p)
		p->desc = *pd;	/* what a reload classifies again */
	if (!p && !(p = arb_add(a, pd, GP_CLASS_NONE))) {
		alimit(ARB_LIMIT_PROCS, "classify of pid %d refused", q->pid);
		gp_err_set(&e, GP_EXIT_BUSY, ENOSPC, "the arbiter knows %d "
			   "processes already", ARB_MAX_PROCS);
		goto err;
	}
	r = gp_classifier_set(&a->cls, pd, q->cls, !client_admin(c));
	if (r) {
		alimit(ARB_LIMIT_CLASSES, "classify of pid %d uid %u refused",
		       q->pid, pd->uid);
		gp_err_set(&e, GP_EXIT_BUSY, -r, r == -EDQUOT ? "uid %u's "
			   "processes have %d run-time classes already, the "
			   "limit per user: classify one 'none' first" :
			   "too many run-time classes (uid %u): try again "
			   "once classified processes have exited", pd->uid,
			   GP_OVERRIDE_PER_UID);
		goto err;
	}
	alog(a, "pid %d (%s) classified %s by pid %d uid %u", q->pid,
	     pd->comm, gp_pclass_name(q->cls), client_pid(c), client_uid(c));
	/* As a reload would: leaving offline also ends the arbiter's
	 * session, leaving online its watched queues. */
	if (!arb_set_class(d, p, q->cls, false, "classified") &&
	    p->cls == GP_CLASS_OFFLINE && !p->joined) {
		p->retry_at = 0;
		arb_offline_join(d, p);
	}
	reply_ok(c);
	return;
err:
	reply_err(c, &e);
}

/* watch: an online process's queue counters join the watcher. */
static void do_watch(struct daemon *d, struct client *c,
		     const struct arb_req *q, const struct desc *ds)
{
	struct arbiter *a = arb_of(d);
	struct gp_err e = {};
	int r;

	if (!a->o->detect_queues) {
		gp_err_set(&e, GP_EXIT_USAGE, EINVAL, "queue detection is off: "
			   "start the daemon with --detect queues (or "
			   "notify,queues)");
		goto err;
	}
	/* Reading another process's memory: root only. */
	if (!client_admin(c)) {
		gp_err_set(&e, GP_EXIT_PRIV, EPERM, "watch is for root: it "
			   "reads pid %d's memory", q->pid);
		goto err;
	}
	if (unknown(d, q->pid) && park(d, c, q, q->pid, ds, "watch"))
		return;
	if (!online_of(d, c, q->pid, ds, &e))
		goto err;
	r = gp_qwatch_add(&a->qw, q->pid, q->queue, q->wptr, q->rptr);
	if (r == -EACCES) {
		gp_err_set(&e, GP_EXIT_BUSY, EACCES, "pid %d is not watched "
			   "any more: %s", q->pid,
			   gp_qwatch_unwatched(&a->qw, q->pid));
		goto err;
	}
	if (r) {
		gp_err_set(&e, r == -EEXIST ? GP_EXIT_USAGE : GP_EXIT_BUSY, -r,
			   r == -EEXIST ? "queue %u of pid %d is watched "
			   "already" : "too many watched queues (%u of pid %d)",
			   q->queue, q->pid);
		goto err;
	}
	alog(a, "watching queue %u of pid %d (wptr 0x%llx, rptr 0x%llx)",
	     q->queue, q->pid, (unsigned long long)q->wptr,
	     (unsigned long long)q->rptr);
	reply_ok(c);
	return;
err:
	alog(a, "refused watch from pid %d uid %u: %s", client_pid(c),
	     client_uid(c), e.msg);
	reply_err(c, &e);
}

/* Queues KFD lists for pid (sysfs), -1 when it has no KFD process. */
static int kfd_queues(const struct arbiter *a, int pid)
{
	char path[256];
	int n, *ids = NULL;

	snprintf(path, sizeof(path), "%s/%d/queues", arb_kfd_proc_dir(a), pid);
	n = gp_dir_ids(path, &ids);
	free(ids);
	return n < 0 ? -1 : n;
}

static void hist_line(struct client *c, const char *name,
		      const struct gp_hist *h)
{
	char slots[32 * 21] = "";
	size_t off = 0;
	int i, last = 0;

	for (i = 0; i < GP_MAX_SLOTS; i++)
		if (h->slots[i])
			last = i;
	for (i = 0; i <= last; i++)
		off += snprintf(slots + off, sizeof(slots) - off, "%s%llu",
				i ? "," : "", (unsigned long long)h->slots[i]);
	reply_linef(c, "hist name=%s count=%llu sum_ns=%llu slots=%s\n", name,
	     (unsigned long long)h->count, (unsigned long long)h->sum_ns,
	     slots);
}

static void do_policy(struct daemon *d, struct client *c)
{
	struct arbiter *a = arb_of(d);
	const struct gp_policy *v;
	const struct gp_policy_stats *s;
	uint64_t now = monotonic_ns();
	char det[32];
	int i, k;

	gp_policy_tick(&a->pol, now, &a->act);
	if (a->g)
		gp_gpolicy_tick(a->g, now, a->gact);
	arb_apply(d);
	/* The node-wide numbers: derived from the deciding policy. */
	v = arbg_view(a, now);
	s = &v->st;
	reply_linef(c, "arbiter state=%s online_busy=%d detect=%s "
	     "resume_after_ns=%llu min_offline_share=%u window_ns=%llu "
	     "max_hold_ns=%llu busy_periods=%llu suspends=%llu resumes=%llu "
	     "budget_resumes=%llu max_hold_resumes=%llu "
	     "cancelled_resumes=%llu failures=%llu uptime_ns=%llu "
	     "spoofable=%s busy_max_ns=%llu busy_expired=%llu refused=%llu\n",
	     gp_pstate_name(v->state), gp_policy_online_busy(v),
	     arb_detect_names(a->o, det, sizeof(det)),
	     (unsigned long long)a->cfg.resume_after_ns,
	     a->cfg.min_offline_share, (unsigned long long)a->cfg.window_ns,
	     (unsigned long long)a->cfg.max_hold_ns,
	     (unsigned long long)s->busy_periods,
	     (unsigned long long)s->suspends, (unsigned long long)s->resumes,
	     (unsigned long long)s->budget_resumes,
	     (unsigned long long)s->max_hold_resumes,
	     (unsigned long long)s->cancelled_resumes,
	     (unsigned long long)s->failures,
	     (unsigned long long)(now - a->started), arb_spoofable(a),
	     (unsigned long long)a->cfg.busy_max_ns,
	     (unsigned long long)s->busy_expired,
	     (unsigned long long)a->refused);
	for (i = 0; i < a->n; i++) {
		const struct arb_proc *p = &a->p[i];
		unsigned int busy = 0;

		if (!arb_shows(a, c, p->pid))
			continue;	/* a tenant sees its own only */
		if (p->cls == GP_CLASS_ONLINE) {
			for (k = 0; k < a->pol.n_busy; k++)
				if (a->pol.busy[k].pid == p->pid)
					busy += a->pol.busy[k].count;
			const struct gp_qw_proc *w =
				gp_qwatch_find(&a->qw, p->pid);

			/* Say which of its queues are not watched. */
			reply_linef(c, "proc pid=%d class=online uid=%u busy=%u "
			     "kfd_queues=%d watched=%d\n", p->pid, p->uid,
			     busy, kfd_queues(a, p->pid), w ? w->nq : 0);
		}
	}
	for (i = 0; i < v->n_off; i++) {
		const struct gp_poffline *o = &v->off[i];
		const struct arb_proc *p = arb_find(a, o->pid);
		uint64_t susp = 0;
		char bk[16], gpus[PROTO_GPU_LEN];

		if (!arb_shows(a, c, o->pid))
			continue;
		gp_policy_suspended_fraction(v, o->pid, now, &susp);
		arbg_backend_text(d, o->pid, bk, sizeof(bk), gpus,
				  sizeof(gpus));
		reply_linef(c, "proc pid=%d class=offline uid=%u suspended=%d "
		     "suspended_ns=%llu attached_ns=%llu suspends=%llu "
		     "resumes=%llu failures=%llu backend=%s gpus=%s\n",
		     o->pid, p ? p->uid : 0,
		     o->suspended, (unsigned long long)susp,
		     (unsigned long long)(now - o->attached_at),
		     (unsigned long long)o->suspends,
		     (unsigned long long)o->resumes,
		     (unsigned long long)o->failures, bk, gpus);
	}
	for (i = 0; i < a->qw.n; i++) {
		const struct gp_qw_proc *w = &a->qw.p[i];

		if (!arb_shows(a, c, w->pid))
			continue;
		reply_linef(c, "watch pid=%d queues=%d busy=%d polls=%llu "
		     "busy_polls=%llu err=%d\n", w->pid, w->nq, w->busy,
		     (unsigned long long)w->polls,
		     (unsigned long long)w->busy_polls, -w->err);
	}
	for (i = 0; i < a->qw.n_unw; i++)
		if (arb_shows(a, c, a->qw.unw[i].pid))
			reply_linef(c, "unwatched pid=%d reason=\"%s\"\n",
				    a->qw.unw[i].pid, a->qw.unw[i].why);
	for (i = 0; i < a->n_stuck; i++)	/* known to no tenant: admins */
		if (client_admin(c))
			reply_linef(c, "unclassified pid=%d reason=\"/proc "
				    "read stuck\"\n", a->stuck[i].pid);
	arbq_policy(d, c);
	arbg_policy_lines(d, c);
	hist_line(c, "trigger_to_suspend", &s->trigger_to_suspend);
	hist_line(c, "suspend_ioctl", &s->suspend_ioctl);
	hist_line(c, "resume_ioctl", &s->resume_ioctl);
	reply_ok(c);
}

static void do_policy_req(struct daemon *d, struct client *c,
			  const struct arb_req *q, const struct desc *ds)
{
	do_policy(d, c);
}

/* Each verb's handler, by the verb a (parked) request carries. */
typedef void arb_do_fn(struct daemon *d, struct client *c,
		       const struct arb_req *q, const struct desc *ds);
static arb_do_fn *const handlers[] = {
	[ARB_BUSY] = do_busy_idle,
	[ARB_IDLE] = do_busy_idle,
	[ARB_CLASSIFY] = do_classify,
	[ARB_POLICY] = do_policy_req,
	[ARB_WATCH] = do_watch,
};

/* The daemon picked verb v by the line's first word (the module table,
 * arbiter_module.c): its words after it are parsed, and v's handler
 * runs. */
static void serve(struct daemon *d, struct client *c, enum arb_verb v,
		  const char *l, size_t len)
{
	struct arb_req q;
	struct gp_err e = {};
	size_t vl = 0;

	while (vl < len && l[vl] != ' ' && l[vl] != '\n')
		vl++;
	if (arb_parse_args(v, l + vl, len - vl, &q, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	if (!arb_of(d)) {
		gp_err_set(&e, GP_EXIT_USAGE, ENOTSUP, "the daemon does not "
			   "arbitrate: start it with --offline SEL (and "
			   "--online SEL)");
		reply_err(c, &e);
		return;
	}
	handlers[v](d, c, &q, NULL);
}

void arbiter_busy(struct daemon *d, struct client *c, const char *l,
		  size_t len)
{
	serve(d, c, ARB_BUSY, l, len);
}

void arbiter_idle(struct daemon *d, struct client *c, const char *l,
		  size_t len)
{
	serve(d, c, ARB_IDLE, l, len);
}

void arbiter_classify(struct daemon *d, struct client *c, const char *l,
		      size_t len)
{
	serve(d, c, ARB_CLASSIFY, l, len);
}

void arbiter_policy(struct daemon *d, struct client *c, const char *l,
		    size_t len)
{
	serve(d, c, ARB_POLICY, l, len);
}

void arbiter_watch(struct daemon *d, struct client *c, const char *l,
		   size_t len)
{
	serve(d, c, ARB_WATCH, l, len);
}

/* A parked request's pid described (arbiter_defer.c). */
static void described(struct daemon *d, struct client *c,
		      const struct arb_req *q, int err,
		      const struct gp_proc_desc *pd)
{
	const struct desc ds = { err, pd };

	handlers[q->verb](d, c, q, &ds);
}
