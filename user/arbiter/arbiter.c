// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's arbiter: start and stop, the KFD scan that finds
 * processes as they appear and go, the queue watcher's poll and the
 * tick (arbiter.h). Below it: the process table (arbiter_core.c), class
 * changes (arbiter_procs.c), the per-GPU actions (arbiter_gpus.c); the
 * socket verbs are in arbiter_req.c.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "hist.h"
#include "names.h"
#include "offjob.h"
#include "util.h"

static struct arbiter arb_storage;

/*
 * A job off the loop ended (offjob.h's eventfd, daemon_io_add): the
 * count is emptied here, and the tick the loop runs next in the same
 * round (arbiter_tick) takes every finished job: parked requests,
 * descriptions of new processes, the queue poll, the MQD read, the
 * launch scans. No period looks at jobs; only their deadlines are
 * timers.
 */
static void jobs_ended(struct daemon *d, void *ud)
{
	(void)d;
	(void)ud;
	gp_offjob_drain();
}

const char *arb_detect_names(const struct arbiter_opts *o, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 o->detect_notify ? ",notify" : "",
		 o->detect_queues ? ",queues" : "",
		 o->detect_launch ? ",launch" : "");
	if (buf[0])	/* no leading comma */
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

int arbiter_start(struct daemon *d, struct gp_err *e)
{
	struct arbiter *a = &arb_storage;
	const struct arbiter_opts *o = arb_opts(d);
	char ra[32], win[32], det[32];
	int wfd;

	if (!o || !o->enabled)
		return 0;
	wfd = gp_offjob_wakefd();
	if (wfd < 0 || daemon_io_add(d, wfd, jobs_ended, NULL))
		return gp_err_set(e, GP_EXIT_FAILURE, wfd < 0 ? -wfd : ENOSPC,
				  "arbiter: cannot watch the ends of its jobs "
				  "off the loop: %s (too many open files?)",
				  strerror(wfd < 0 ? -wfd : ENOSPC));
	memset(a, 0, sizeof(*a));
	a->o = o;
	a->cfg = o->pol;
	a->cls = o->cls;
	/* The policy ends a suspension at --max-hold itself, before the
	 * watchdog (whose hold starts after the ioctl) would. */
	a->cfg.max_hold_ns = daemon_max_hold_ns(d);
	a->started = monotonic_ns();
	gp_qwatch_init(&a->qw);
	gp_policy_init(&a->pol, &a->cfg, a->started);
	if (arbg_start(a)) {
		daemon_io_remove(d, wfd);
		return gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "arbiter: no "
				  "memory for the per-GPU policy");
	}
	arb_set(d, a);
	fmt_ns(ra, sizeof(ra), a->cfg.resume_after_ns);
	fmt_ns(win, sizeof(win), a->cfg.window_ns);
	arb_detect_names(o, det, sizeof(det));
	dlog("arbiter: %d online and %d offline selector%s, detect %s, "
	     "--resume-after %s, --min-offline-share %u%%, --window %s, "
	     "--scope %s, --gang %s",
	     o->cls.n_online, o->cls.n_offline,
	     o->cls.n_online + o->cls.n_offline == 1 ? "" : "s", det, ra,
	     a->cfg.min_offline_share, win, gp_scope_name(o->scope),
	     gp_gang_name(o->gang));
	arb_warn_spoofable(a);
	arbq_start(d);
	arbl_start(d);
	return 0;
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
	arb_set(d, NULL);
	arb_defer_stop(a);
	daemon_io_remove(d, gp_offjob_wakefd());
}

static void arb_remove(struct arbiter *a, struct arb_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	*p = a->p[--a->n];
}

static bool exited(const struct arb_proc *p)
{
	struct pollfd f = { p->pidfd, POLLIN, 0 };

	if (p->pidfd < 0)
		return kill(p->pid, 0) && errno == ESRCH;
	return poll(&f, 1, 0) > 0;
}

static void arb_scan(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	int i, n, *pids = NULL;

	/* New ones are described off the loop: their /proc/PID/cmdline
	 * reads their memory (arbiter_discover.c). */
	n = gp_dir_ids(arb_kfd_proc_dir(a), &pids);
	n = arbg_more_pids(d, &pids, n > 0 ? n : 0);	/* CUDA's */
	arb_discover_tick(d, pids, n, monotonic_ns());
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

	arb_feed(a, &(struct gp_activity){ .pid = pid, .busy = busy,
		 .kind = GP_SRC_QUEUES, .id = (uint32_t)pid, .t_ns = now });
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
		/* Its end wakes the loop (jobs_ended); its deadline is a
		 * timer (arbiter_deadline). */
		if (!gp_offjob_late(a->qp, now, ARB_QPOLL_DEADLINE_NS))
			return;
		qw_stuck(d, arb_qpoll_current(a->qp));
		gp_offjob_put(a->qp);
		a->qp = NULL;
		a->next_poll = now + a->o->poll_ns;
	} else if (a->qp) {
		arb_qpoll_merge(a->qp, &a->qw, &cb);
		gp_offjob_put(a->qp);
		a->qp = NULL;
		/* a period between one poll's end and the next */
		a->next_poll = now + a->o->poll_ns;
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
	arb_discover_take(d, now);
	if (now >= a->next_scan) {
		arb_scan(d);
		if (a->g)
			arbg_rescan(d);
		a->next_scan = now + ARB_SCAN_MS * NSEC_PER_MSEC;
	}
	arb_defer_tick(d, now);
	arbq_tick(d);
	arbl_tick(d);
	arb_poll_queues(d, now);
	gp_policy_tick(&a->pol, monotonic_ns(), &a->act);
	if (a->g)
		gp_gpolicy_tick(a->g, monotonic_ns(), a->gact);
	if (a->pol.st.busy_expired != a->busy_expired_said) {
		alimit(ARB_LIMIT_BUSY_EXPIRED, "%llu busy ended: neither "
		       "renewed nor confirmed by queue activity for --busy-max",
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
	if (a->o->detect_queues && a->qp &&
	    gp_offjob_started(a->qp) + ARB_QPOLL_DEADLINE_NS < p)
		p = gp_offjob_started(a->qp) + ARB_QPOLL_DEADLINE_NS;
	else if (a->o->detect_queues && !a->qp && a->qw.n && a->next_poll < p)
		p = a->next_poll;
	if (arbl_deadline(d) && arbl_deadline(d) < p)
		p = arbl_deadline(d);
	if (arb_defer_deadline(a) && arb_defer_deadline(a) < p)
		p = arb_defer_deadline(a);
	return p;
}

bool arbiter_busy_open(const struct daemon *d, const struct client *c)
{
	const struct arbiter *a = arb_of(d);
	int k;

	for (k = 0; a && k < a->pol.n_busy; k++)
		if (a->pol.busy[k].src == ARB_SRC_CONN(c) && a->pol.busy[k].count)
			return true;
	return false;
}

void arbiter_client_closed(struct daemon *d, struct client *c)
{
	struct arbiter *a = arb_of(d);
	bool was;

	if (!a)
		return;
	arb_defer_closed(a, c);
	was = gp_policy_online_busy(&a->pol);
	arb_source_closed(a, ARB_SRC_CONN(c), monotonic_ns());
	if (was && !gp_policy_online_busy(&a->pol))
		alog(a, "connection of pid %d closed: its busy ends",
		     client_pid(c));
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
