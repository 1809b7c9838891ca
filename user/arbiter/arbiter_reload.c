// SPDX-License-Identifier: GPL-2.0
/*
 * SIGHUP for the arbiter (arbiter.h): new selectors, detect signals and
 * policy timings on the running arbiter, every hold kept.
 *
 * - Selectors are replaced; run-time classes ('classify') are kept: they
 *   are the operator's later word and win over selectors, as at start.
 * - Every known process is classified again, from its description as
 *   the arbiter first met it (reclass(): no /proc read). One leaving
 *   offline is resumed and, if the arbiter attached it, detached; one leaving
 *   online has its busy ended and its queues unwatched; one becoming
 *   offline is attached and joins at once (suspended if online is busy).
 *   Processes not known yet are found by the next scan (now).
 * - The policy's timings change in place (gp_policy_reconfigure); the
 *   watchdog deadlines of the arbiter's own holds follow the new
 *   --max-hold, as the policy does (hold_start's rule, from the hold's
 *   start), so the policy stays the one that ends them.
 * - notify or queues turned off ends the busy they reported (a busy
 *   that could no longer be ended by idle would freeze offline).
 * - launch turned on starts the launch detector (its BPF side, then a
 *   scan of every online process); turned off, or its --launch-grace
 *   changed, stops it (its busy ends, its probes go) and, if still on,
 *   starts it again.
 * - --scope or --gang changed: every offline process is resumed and
 *   leaves (as a reclassification would), the per-GPU policy is made
 *   anew, and they join it again (suspended at once if online is busy).
 * The daemon checked n with the parser first: a bad file reaches none
 * of this.
 */
#include <string.h>

#include "arbiter_int.h"
#include "util.h"

/*
 * The class a known process has under a's classifier now, from its
 * description as the arbiter first met it (or last classified it), not
 * from its /proc files: those are read off the loop only (they can wait
 * on the process: arbiter_discover.c), and a reload decides at once.
 * It is what the scan does too: a known process is never described
 * again, so its class never follows a later change of its own (argv,
 * comm: self-controlled, select.h) nor of its cgroup; `classify` reads
 * it afresh.
 */
static enum gp_pclass reclass(struct arbiter *a, const struct arb_proc *p,
			      bool *conflict)
{
	enum gp_pclass cls;
	char err[512];

	*conflict = false;
	if (gp_classify(&a->cls, &p->desc, &cls, err, sizeof(err))) {
		if (!p->conflict)
			alog(a, "%s: left alone", err);
		*conflict = true;
		return GP_CLASS_NONE;
	}
	/* Made online by its own busy (arbiter_req.c) while there is no
	 * --online selector: it stays online while there is still none. */
	if (cls == GP_CLASS_NONE && p->cls == GP_CLASS_ONLINE &&
	    !a->cls.n_online)
		return GP_CLASS_ONLINE;
	return cls;
}

/* Ends the busy of notify's sources (notify off): the queue watcher's
 * and the launch detector's stay. */
static void end_notify(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	uint64_t src[GP_POLICY_MAX_BUSY];
	int i, n = 0;

	for (i = 0; i < a->pol.n_busy; i++)
		if (gp_src_is_notify(a->pol.busy[i].src))
			src[n++] = a->pol.busy[i].src;
	for (i = 0; i < n; i++)
		arb_source_closed(a, src[i], monotonic_ns());
	if (n)
		alog(a, "notify is off: %d busy source%s ended", n,
		     n == 1 ? "" : "s");
	arb_apply(d);
}

static void end_queues(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	int i;

	for (i = 0; i < a->qw.n; i++)
		arb_source_closed(a, ARB_SRC_QWATCH(a->qw.p[i].pid),
				  monotonic_ns());
	if (a->qw.n)
		alog(a, "queue detection is off: %d process%s no longer "
		     "watched", a->qw.n, a->qw.n == 1 ? "" : "es");
	{	/* stuck ones stay unwatched */
		int n_unw = a->qw.n_unw;
		struct gp_qw_unwatched unw[GP_QW_MAX_UNWATCHED];

		memcpy(unw, a->qw.unw, sizeof(unw));
		gp_qwatch_init(&a->qw);
		memcpy(a->qw.unw, unw, sizeof(unw));
		a->qw.n_unw = n_unw;
	}
	arb_apply(d);
}

/* The watchdog bound of the arbiter's holds follows --max-hold. */
static void rearm_holds(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	struct target *t;
	int i;

	for (i = 0; a->g && i < a->g->nproc; i++)
		if (arbg_held(&a->g->proc[i]) &&
		    (t = target_find(d, a->g->proc[i].pid)))
			hold_rebound(d, t);
}

static int held_count(const struct arbiter *a)
{
	int i, n = 0;

	for (i = 0; a->g && i < a->g->nproc; i++)
		n += arbg_held(&a->g->proc[i]);
	return n;
}

void arbiter_reload(struct daemon *d, const void *new_opts)
{
	const struct arbiter_opts *n = new_opts;
	char ra[32], win[32], poll[32], det[32];
	struct arbiter_opts *o = arb_opts(d);
	const char *dir = o ? o->kfd_proc_dir : NULL; /* tests' stand-in, kept */
	struct arbiter *a = arb_of(d);
	struct gp_err e = {};
	int i, moved = 0;
	bool conflict, rescope, relaunch;

	if (!o)
		return;		/* the daemon was built without its options */
	if (!a) {
		*o = *n;
		o->kfd_proc_dir = dir;
		if (o->enabled && arbiter_start(d, &e))
			dlog_at(LOG_ERR, "reload: the arbiter did not start: "
				"%s", e.msg);
		return;
	}
	if (!n->enabled) {
		/* Everything it holds goes back, then it stops. */
		for (i = a->n; i-- > 0;)
			arb_set_class(d, &a->p[i], GP_CLASS_NONE, false,
				      "arbiter off (reload)");
		arbiter_stop(d);
		*o = *n;
		o->kfd_proc_dir = dir;
		dlog("arbiter: off after reload (no arbitration option "
		     "left): offline processes resumed and released");
		return;
	}
	rescope = n->scope != o->scope || n->gang != o->gang;
	if (rescope) {
		for (i = a->n; i-- > 0;)
			if (a->p[i].cls == GP_CLASS_OFFLINE)
				arb_set_class(d, &a->p[i], GP_CLASS_NONE,
					      false, "--scope/--gang changed "
					      "(reload)");
		arbg_stop(a);
	}
	if (o->detect_notify && !n->detect_notify)
		end_notify(d);
	if (o->detect_queues && !n->detect_queues)
		end_queues(d);
	/* launch off, or its grace changed (the BPF side holds it): the
	 * detector stops (its busy ends, its probes go) and, if still on,
	 * starts again below with the new grace and scans anew */
	relaunch = n->detect_launch &&
		   (!o->detect_launch ||
		    n->launch_grace_ns != o->launch_grace_ns);
	if (o->detect_launch && (!n->detect_launch || relaunch))
		arbl_stop(d);
	*o = *n;
	o->kfd_proc_dir = dir;
	if (relaunch)
		arbl_start(d);

	/* New selectors; run-time classes (a->cls.over) stay. */
	a->cls.n_online = n->cls.n_online;
	a->cls.n_offline = n->cls.n_offline;
	memcpy(a->cls.online, n->cls.online, sizeof(a->cls.online));
	memcpy(a->cls.offline, n->cls.offline, sizeof(a->cls.offline));
	arb_warn_spoofable(a);

	a->cfg = n->pol;
	a->cfg.max_hold_ns = daemon_max_hold_ns(d);
	gp_policy_reconfigure(&a->pol, monotonic_ns(), &a->cfg, &a->act);
	if (rescope && arbg_start(a))
		dlog_at(LOG_ERR, "reload: no memory for the per-GPU policy: "
			"nothing is arbitrated until the next reload");
	else if (a->g)
		gp_gpolicy_reconfigure(a->g, monotonic_ns(), &a->cfg, a->gact);
	arb_apply(d);
	rearm_holds(d);

	for (i = a->n; i-- > 0;) {
		struct arb_proc *p = &a->p[i];
		enum gp_pclass cls = reclass(a, p, &conflict);

		moved += arb_set_class(d, p, cls, conflict,
				       "reclassified (reload)");
	}
	arb_ignored_clear();	/* classed by the new selectors? */
	a->next_scan = 0;	/* new offline processes: at once */
	fmt_ns(ra, sizeof(ra), a->cfg.resume_after_ns);
	fmt_ns(win, sizeof(win), a->cfg.window_ns);
	fmt_ns(poll, sizeof(poll), o->poll_ns);
	dlog("arbiter: reloaded: %d online and %d offline selector%s, "
	     "detect %s, --resume-after %s, --min-offline-share %u%%, "
	     "--window %s, --poll %s; %d process%s reclassified, "
	     "%d offline held; --scope %s, --gang %s", o->cls.n_online, o->cls.n_offline,
	     o->cls.n_online + o->cls.n_offline == 1 ? "" : "s",
	     arb_detect_names(o, det, sizeof(det)), ra, a->cfg.min_offline_share, win, poll, moved, moved == 1 ? "" : "es",
	     held_count(a), gp_scope_name(o->scope), gp_gang_name(o->gang));
}
