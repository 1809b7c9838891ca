// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's arbiter: the process table, the KFD scan that finds
 * offline processes as they appear, and the policy's actions carried out
 * on warm sessions (arbiter.h). The socket verbs are in arbiter_req.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "hist.h"
#include "names.h"
#include "offjob.h"
#include "text.h"
#include "util.h"

static struct arbiter arb_storage;

/*
 * Every decision is logged with its cause, and the log stays bounded: at
 * most ARB_LOG_PER_SEC lines a second, then one line saying how many were
 * dropped (the counters in `gpreempt-ctl policy` keep the totals).
 */
void alog(struct arbiter *a, const char *fmt, ...)
{
	uint64_t now = monotonic_ns();
	char buf[512];
	va_list ap;

	if (now - a->log_sec >= NSEC_PER_SEC) {
		if (a->log_dropped)
			dlog("arbiter: %llu log lines dropped in the last "
			     "second (at most %d/s; totals: gpreempt-ctl "
			     "policy)", (unsigned long long)a->log_dropped,
			     ARB_LOG_PER_SEC);
		a->log_sec = now;
		a->log_n = a->log_dropped = 0;
	}
	if (a->log_n++ >= ARB_LOG_PER_SEC) {
		a->log_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dlog("arbiter: %s", buf);
}

int arbiter_start(struct daemon *d, struct gp_err *e)
{
	struct arbiter *a = &arb_storage;
	const struct arbiter_opts *o = arb_opts(d);
	char ra[32], win[32], det[32];

	if (!o || !o->enabled)
		return 0;
	memset(a, 0, sizeof(*a));
	a->o = o;
	a->cfg = o->pol;
	a->cls = o->cls;
	/* The policy ends a suspension at --max-hold itself, before the
	 * watchdog (whose hold starts after the ioctl) would. */
	a->cfg.max_hold_ns = d->max_hold_ns;
	a->started = monotonic_ns();
	gp_qwatch_init(&a->qw);
	gp_policy_init(&a->pol, &a->cfg, a->started);
	if (arbg_start(a))
		return gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "arbiter: no "
				  "memory for the per-GPU policy");
	daemon_module_set_data(d, &arbiter_module, a);
	fmt_ns(ra, sizeof(ra), a->cfg.resume_after_ns);
	fmt_ns(win, sizeof(win), a->cfg.window_ns);
	snprintf(det, sizeof(det), "%s%s%s", o->detect_notify ? ",notify" : "",
		 o->detect_queues ? ",queues" : "",
		 o->detect_launch ? ",launch" : "");
	dlog("arbiter: %d online and %d offline selector%s, detect %s, "
	     "--resume-after %s, --min-offline-share %u%%, --window %s, "
	     "--scope %s, --gang %s",
	     o->cls.n_online, o->cls.n_offline,
	     o->cls.n_online + o->cls.n_offline == 1 ? "" : "s", det + 1, ra,
	     a->cfg.min_offline_share, win, gp_scope_name(o->scope),
	     gp_gang_name(o->gang));
	arb_warn_spoofable(a);
	arbq_start(d);
	arbl_start(d);
	return 0;
}

/* Said at start and reload: what a process may claim of itself. */
void arb_warn_spoofable(struct arbiter *a)
{
	const struct gp_sel *on = gp_classifier_spoofable(&a->cls,
							  GP_CLASS_ONLINE);
	const struct gp_sel *off = gp_classifier_spoofable(&a->cls,
							   GP_CLASS_OFFLINE);

	if (on)
		alog(a, "--online %s is spoofable (comm "
			"and cmdline are the process's own to choose; "
			"--allow-spoofable): any local user can make a process "
			"online", on->spec);
	if (off)
		alog(a, "--offline %s is spoofable (--allow-spoofable): a "
			"job can leave offline by renaming itself; add uid= or "
			"cgroup= (e.g. uid=1001,%s)", off->spec, off->spec);
}

const char *arb_spoofable(const struct arbiter *a)
{
	bool on = gp_classifier_spoofable(&a->cls, GP_CLASS_ONLINE);
	bool off = gp_classifier_spoofable(&a->cls, GP_CLASS_OFFLINE);

	return on && off ? "online,offline" : on ? "online" :
	       off ? "offline" : "none";
}

void arbiter_stop(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	int i;

	if (!a)
		return;
	arbl_stop(d);
	arbq_stop(d);
	gp_offjob_put(a->qp);	/* a stuck thread frees it if it ends */
	a->qp = NULL;
	arb_discover_stop(a);
	arbg_stop(a);
	/* targets_shutdown resumes and detaches every session. */
	for (i = 0; i < a->n; i++)
		if (a->p[i].pidfd >= 0)
			close(a->p[i].pidfd);
	daemon_module_set_data(d, &arbiter_module, NULL);
}

struct arb_proc *arb_find(struct arbiter *a, int pid)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].pid == pid)
			return &a->p[i];
	return NULL;
}

struct arb_proc *arb_add(struct arbiter *a, const struct gp_proc_desc *pd,
			 enum gp_pclass cls)
{
	struct arb_proc *p;

	if (a->n == ARB_MAX_PROCS)
		return NULL;
	p = &a->p[a->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pd->pid;
	p->uid = pd->uid;
	p->cls = cls;
	/* shown only (log, replies, metrics): a process names itself, so
	 * no control character may reach a terminal or the wire */
	gp_text_safe(p->comm, sizeof(p->comm), pd->comm, sizeof(pd->comm));
	/* Exit is seen on the pidfd, never confused with a reused pid. */
	p->pidfd = syscall(SYS_pidfd_open, pd->pid, 0);
	return p;
}

static void arb_remove(struct arbiter *a, struct arb_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	*p = a->p[--a->n];
}

/*
 * Carries out the decisions: the per-GPU policy's (gpolicy.c, in either
 * scope), each one KFD ioctl on a warm session (arbiter_gpus.c). The node
 * machine (a->pol) keeps only the busy sources: it has no offline member
 * and so never acts.
 */
void arb_apply(struct daemon *d)
{
	struct arbiter *a = arb_of(d);

	a->act.n = 0;
	if (a->g)
		arbg_apply(d);
}

/* An offline process joins: warm session now, then the policy. */
void arb_offline_join(struct daemon *d, struct arb_proc *p)
{
	struct arbiter *a = arb_of(d);
	struct gp_err e = {};
	uint64_t now = monotonic_ns();

	bool had = target_find(d, p->pid) != NULL;

	if (now < p->retry_at)
		return;
	if (!target_get(d, p->pid, 0, false, &e)) {	/* the daemon's own: no quota */
		/* No runtime yet, or refused: try again later, quietly. */
		if (!p->retry_at)
			alog(a, "offline pid %d (%s): cannot attach yet: "
			     "%s", p->pid, p->comm, e.msg);
		p->retry_at = now + NSEC_PER_SEC;
		return;
	}
	p->joined = true;
	p->own_session = !had;
	if (a->g)
		arbg_attached(d, p);
	alog(a, "offline pid %d (%s) attached%s", p->pid, p->comm,
	     a->g && a->gact->n ? ", online busy: suspending" : "");
	arb_apply(d);
}

/* A process leaves its class (exit or classify). */
void arb_leave(struct daemon *d, struct arb_proc *p, const char *why)
{
	struct arbiter *a = arb_of(d);
	uint64_t now = monotonic_ns();

	if (p->cls == GP_CLASS_OFFLINE && p->joined) {
		if (a->g)
			gp_gpolicy_offline_gone(a->g, now, p->pid, a->gact);
		p->joined = false;
	} else if (p->cls == GP_CLASS_ONLINE) {
		gp_policy_online_gone(&a->pol, now, p->pid, &a->act);
		if (a->g)
			gp_gpolicy_online_gone(a->g, now, p->pid, a->gact);
	}
	alog(a, "%s pid %d (%s) %s", gp_pclass_name(p->cls), p->pid,
	     p->comm, why);
	arb_apply(d);
}

static bool exited(const struct arb_proc *p)
{
	struct pollfd f = { p->pidfd, POLLIN, 0 };

	if (p->pidfd < 0)
		return kill(p->pid, 0) && errno == ESRCH;
	return poll(&f, 1, 0) > 0;
}

/* Moves p to class cls: the policy first, then the session. */
bool arb_set_class(struct daemon *d, struct arb_proc *p, enum gp_pclass cls,
		   bool conflict, const char *why)
{
	struct arbiter *a = arb_of(d);
	enum gp_pclass was = p->cls;
	struct target *t;
	char msg[96];

	p->conflict = conflict;
	if (was == cls)
		return false;
	snprintf(msg, sizeof(msg), "%s: now %s", why, gp_pclass_name(cls));
	if (was != GP_CLASS_NONE)
		arb_leave(d, p, msg);	/* resumes it / ends its busy */
	if (was == GP_CLASS_OFFLINE && p->own_session &&
	    (t = target_find(d, p->pid))) {
		p->own_session = false;
		alog(a, "pid %d (%s): detaching the arbiter's session", p->pid,
		     p->comm);
		target_drop(d, t);
	}
	if (was == GP_CLASS_ONLINE && gp_qwatch_remove_pid(&a->qw, p->pid))
		alog(a, "pid %d (%s): its queues are no longer watched",
		     p->pid, p->comm);
	p->cls = cls;
	if (cls == GP_CLASS_OFFLINE) {
		alog(a, "pid %d (%s) %s", p->pid, p->comm, msg);
		p->retry_at = 0;
		arb_offline_join(d, p);
	} else if (was == GP_CLASS_NONE) {
		alog(a, "pid %d (%s) %s", p->pid, p->comm, msg);
	}
	return true;
}

/* A KFD process not seen before, described: classify it. */
void arb_discover_desc(struct daemon *d, const struct gp_proc_desc *pd)
{
	struct arbiter *a = arb_of(d);
	enum gp_pclass cls;
	struct arb_proc *p;
	char err[512];

	if (gp_classify(&a->cls, pd, &cls, err, sizeof(err))) {
		/* Logged once: the entry stays, class none. */
		p = arb_add(a, pd, GP_CLASS_NONE);
		if (p)
			p->conflict = true;
		alog(a, "%s: left alone", err);
		return;
	}
	p = arb_add(a, pd, cls);
	if (!p)
		return;
	if (cls != GP_CLASS_NONE)
		alog(a, "found %s pid %d (%s)", gp_pclass_name(cls), pd->pid,
		     p->comm);
}

/* The same, described now, on the loop (a tracer's queue creator); a
 * pid whose /proc files hung before is not read again. */
void arb_discover(struct daemon *d, int pid)
{
	struct gp_proc_desc pd;

	if (pid == getpid() || arb_stuck_find(arb_of(d), pid) ||
	    gp_proc_describe("/proc", pid, &pd))
		return;
	arb_discover_desc(d, &pd);
}

/* KFD's per-process sysfs folder (a fixture tree in tests). */
const char *arb_kfd_proc_dir(const struct arbiter *a)
{
	return a->o->kfd_proc_dir ? a->o->kfd_proc_dir : KFD_SYSFS_PROC;
}

static void arb_scan(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	int i, n, *pids = NULL;

	/* New ones are described off the loop: their /proc/PID/cmdline
	 * reads their memory (arbiter_discover.c). */
	n = gp_dir_ids(arb_kfd_proc_dir(a), &pids);
	arb_discover_tick(d, pids, n > 0 ? n : 0, monotonic_ns());
	free(pids);
	for (i = a->n; i-- > 0;) {
		struct arb_proc *p = &a->p[i];

		if (exited(p)) {
			if (p->cls != GP_CLASS_NONE)
				arb_leave(d, p, "exited");
			/* its run-time class goes with it (a reused pid is
			 * another process: select.h) */
			gp_classifier_forget(&a->cls, p->pid);
			arb_remove(a, p);
		} else if (p->cls == GP_CLASS_OFFLINE && !p->joined) {
			arb_offline_join(d, p);
		}
	}
}

/* The watcher saw an online process start or stop having work. */
static void qw_busy(void *ctx, int pid, bool busy)
{
	struct daemon *d = ctx;
	struct arbiter *a = arb_of(d);
	uint64_t now = monotonic_ns();

	if (busy) {
		a->trigger_ns = now;
		gp_policy_busy(&a->pol, now, ARB_SRC_QWATCH(pid), pid,
			       &a->act);
	} else {
		gp_policy_idle(&a->pol, now, ARB_SRC_QWATCH(pid), pid,
			       &a->act);
	}
	if (a->g)
		arbg_edge(a, ARB_SRC_QWATCH(pid), pid, NULL, 0, busy);
	alog(a, "queues of pid %d: %s", pid, busy ? "busy (write > read)" :
	     "idle (write == read)");
}

static void qw_lost(void *ctx, int pid, uint32_t qid, int err)
{
	struct daemon *d = ctx;

	if (qid == UINT32_MAX)
		alog(arb_of(d), "queues of pid %d: not readable: %s%s", pid,
		     strerror(-err), err == -ESRCH ? " (exited)" : "");
	else
		alog(arb_of(d), "queue %u of pid %d: counters unreadable (%s): "
		     "no longer watched", qid, pid, strerror(-err));
}

/* A poll stuck on pid's memory past its deadline: pid is unwatched for
 * good (its busy ended), the job's thread is left to its fate. */
static void qw_stuck(struct daemon *d, int pid)
{
	struct arbiter *a = arb_of(d);
	struct gp_qw_proc *p = gp_qwatch_find(&a->qw, pid);
	bool busy = p && p->busy;

	if (pid <= 0 || gp_qwatch_unwatched(&a->qw, pid))
		return;
	gp_qwatch_unwatch(&a->qw, pid, "memory read stuck");
	if (busy)
		qw_busy(d, pid, false);
	alog(a, "queues of pid %d: memory read stuck for %llu s: no longer "
	     "watched (a page that never resolves: userfaultfd, FUSE?)", pid,
	     (unsigned long long)(ARB_QPOLL_DEADLINE_NS / NSEC_PER_SEC));
}

/* The poll itself runs off the loop (arbiter_qpoll.c): a tick merges a
 * finished one and starts the next. */
static void arb_poll_queues(struct daemon *d, uint64_t now)
{
	struct arbiter *a = arb_of(d);
	const struct gp_qw_cb cb = { qw_busy, qw_lost, d, NULL };

	if (!a->o->detect_queues)
		return;
	if (a->qp && !gp_offjob_done(a->qp)) {
		if (!gp_offjob_late(a->qp, now, ARB_QPOLL_DEADLINE_NS)) {
			a->next_poll = now + a->o->poll_ns;
			return;
		}
		qw_stuck(d, arb_qpoll_current(a->qp));
		gp_offjob_put(a->qp);
		a->qp = NULL;
	} else if (a->qp) {
		arb_qpoll_merge(a->qp, &a->qw, &cb);
		gp_offjob_put(a->qp);
		a->qp = NULL;
		/* Work seen in its queues confirms a process's busy (its
		 * notify busy included): only a busy nothing confirms
		 * expires. */
		for (int i = 0; i < a->qw.n; i++)
			if (a->qw.p[i].busy && !a->qw.p[i].err)
				gp_policy_activity(&a->pol, now,
						   a->qw.p[i].pid, &a->act);
	}
	if (!a->qw.n || now < a->next_poll)
		return;
	a->qp = arb_qpoll_start(&a->qw, now);
	a->next_poll = now + a->o->poll_ns;
}

void arbiter_tick(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	uint64_t now;

	if (!a)
		return;
	now = monotonic_ns();
	if (now >= a->next_scan) {
		arb_scan(d);
		if (a->g)
			arbg_rescan(d);
		a->next_scan = now + ARB_SCAN_MS * NSEC_PER_MSEC;
	}
	arbq_tick(d);
	arbl_tick(d);
	arb_poll_queues(d, now);
	gp_policy_tick(&a->pol, monotonic_ns(), &a->act);
	if (a->g)
		gp_gpolicy_tick(a->g, monotonic_ns(), a->gact);
	if (a->pol.st.busy_expired != a->busy_expired_said) {
		dlimit(GP_LIMIT_BUSY_EXPIRED, "%llu busy ended: neither renewed "
		       "nor confirmed by queue activity for --busy-max",
		       (unsigned long long)(a->pol.st.busy_expired -
					    a->busy_expired_said));
		a->busy_expired_said = a->pol.st.busy_expired;
	}
	arb_apply(d);
}

uint64_t arbiter_deadline(const struct daemon *d)
{
	const struct arbiter *a = arb_of(d);
	uint64_t p;

	if (!a)
		return 0;
	/* The node machine's own: its busy sources' --busy-max */
	p = gp_policy_next_deadline(&a->pol);
	if (a->g && gp_gpolicy_next_deadline(a->g) < p)
		p = gp_gpolicy_next_deadline(a->g);
	if (p > a->next_scan)
		p = a->next_scan;
	if (a->o->detect_queues && (a->qw.n || a->qp) && a->next_poll < p)
		p = a->next_poll;
	if (arbl_deadline(d) && arbl_deadline(d) < p)
		p = arbl_deadline(d);
	return p;
}

bool arbiter_busy_open(const struct daemon *d, const struct client *c)
{
	const struct arbiter *a = arb_of(d);
	int k;

	for (k = 0; a && k < a->pol.n_busy; k++)
		if (a->pol.busy[k].src == (uintptr_t)c && a->pol.busy[k].count)
			return true;
	return false;
}

void arbiter_client_closed(struct daemon *d, struct client *c)
{
	struct arbiter *a = arb_of(d);
	bool was;

	if (!a)
		return;
	was = gp_policy_online_busy(&a->pol);
	gp_policy_source_closed(&a->pol, monotonic_ns(), (uintptr_t)c,
				&a->act);
	if (a->g)
		gp_gpolicy_source_closed(a->g, monotonic_ns(), (uintptr_t)c,
					 a->gact);
	if (was && !gp_policy_online_busy(&a->pol))
		alog(a, "connection of pid %d closed: its busy ends",
		     c->pid);
	arb_apply(d);
}

void arbiter_target_gone(struct daemon *d, int pid)
{
	struct arbiter *a = arb_of(d);
	struct arb_proc *p;

	if (!a || !(p = arb_find(a, pid)) || p->cls != GP_CLASS_OFFLINE ||
	    !p->joined)
		return;
	/* The session is gone (exit or detach): nothing to resume. */
	if (a->g) {
		gp_gpolicy_offline_gone(a->g, monotonic_ns(), pid, a->gact);
		a->gact->n = 0;
	}
	p->joined = p->own_session = false;
	p->retry_at = monotonic_ns() + NSEC_PER_SEC;
}
