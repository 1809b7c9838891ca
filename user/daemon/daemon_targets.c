// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's targets: warm sessions, holds and their deadlines, the
 * watchdog, dropping targets that are gone (daemon_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "util.h"

static struct target *slot(struct daemon *d, pid_t pid)
{
	uint32_t i;

	for (i = 0; i < d->n_t; i++)
		if (d->t[i].pid == pid)
			return &d->t[i];
	return NULL;
}

struct target *target_find(struct daemon *d, pid_t pid)
{
	struct target *t = slot(d, pid);

	return t && !t->detaching ? t : NULL;
}

static void forget(struct daemon *d, struct target *t)
{
	if (t->detaching)
		d->n_detaching--;
	gp_bk_free(t->p);
	*t = d->t[--d->n_t];
}

/* A detach that could not finish at once: keep the target until it does. */
static void keep_detaching(struct daemon *d, struct target *t)
{
	t->detaching = true;
	t->held_since = t->deadline = 0;
	d->n_detaching++;
	if (strcmp(gp_bk_name(t->p), "kfd"))
		dlog("pid %d: its release waits for the %s call in flight "
		     "(then undoes it)", t->pid, gp_bk_name(t->p));
	else
		dlog("pid %d cannot stop yet (in a vfork or an uninterruptible "
		     "sleep, or its leader exited before its threads): its "
		     "detach finishes when it can", t->pid);
}

void target_drop(struct daemon *d, struct target *t)
{
	dmod_target_gone(d, t->pid);
	dm_gone(t->pid);
	target_op_abandon(d, t, "the target was released");
	if (t->detaching || gp_bk_release(t->p))
		forget(d, t);
	else
		keep_detaching(d, t);
}

/*
 * The backend that claims pid (KFD: it has a KFD process; CUDA, when
 * loaded: any other), else the first (KFD), whose checks then say why
 * not. Opened on first need (/dev/kfd: version and sched_policy checks,
 * as ctl_prepare() makes; libcuda: loaded at start).
 */
static struct gp_backend *need_backend(struct daemon *d, pid_t pid,
				       struct gp_err *e)
{
	struct gp_backend *b = gp_bk_claim(&d->bk, pid);
	bool was;

	if (!b && !(b = d->bk.n ? d->bk.b[0] : NULL)) {
		gp_err_set(e, GP_EXIT_TARGET, ENODEV, "no preemption backend "
			   "for pid %d", pid);
		return NULL;
	}
	was = b->opened;
	if (gp_bk_open(b, e))
		return NULL;
	d->kfd_ok = d->kfd.fd >= 0;
	if (!was && d->kfd_ok && b == d->bk.b[0])
		dlog("opened " KFD_DEV_PATH " (KFD ioctl %u.%u)",
		     d->kfd.major, d->kfd.minor);
	return b;
}

/* Targets attached for uid (held or detaching). */
static uint32_t owned(const struct daemon *d, uid_t uid)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->n_t; i++)
		n += d->t[i].uid == uid;
	return n;
}

/* Targets tenants attached (held or detaching). */
static uint32_t tenants_own(const struct daemon *d)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->n_t; i++)
		n += d->t[i].tenant;
	return n;
}

struct target *target_get(struct daemon *d, pid_t pid, uid_t uid,
			  bool tenant, struct gp_err *e)
{
	struct target *t = target_find(d, pid);
	struct gp_bproc *s, *pending = NULL;
	struct gp_backend *b;
	uint64_t t0;

	if (t)
		return t;
	if (slot(d, pid)) {
		gp_err_set(e, GP_EXIT_BUSY, EBUSY, "pid %d is still being "
			   "detached (it cannot stop yet, e.g. it waits for "
			   "a vfork child): try again once it can", pid);
		return NULL;
	}
	if (session_check_pid(pid, e) || !(b = need_backend(d, pid, e)))
		return NULL;
	if (tenant && owned(d, uid) >= DAEMON_MAX_PER_UID) {
		dlimit(GP_LIMIT_HOLDS_UID, "uid %u: %d targets, pid %d "
		       "refused", uid, DAEMON_MAX_PER_UID, pid);
		gp_err_set(e, GP_EXIT_BUSY, EDQUOT, "uid %u holds %d targets "
			   "in the daemon already, the quota of a non-root "
			   "user: detach one first", uid, DAEMON_MAX_PER_UID);
		return NULL;
	}
	if (tenant && tenants_own(d) >= PROTO_MAX_SESSIONS -
	    DAEMON_ADMIN_SESSIONS) {
		dlimit(GP_LIMIT_SESSIONS, "tenants hold %d targets, pid %d of "
		       "uid %u refused", PROTO_MAX_SESSIONS -
		       DAEMON_ADMIN_SESSIONS, pid, uid);
		gp_err_set(e, GP_EXIT_BUSY, ENOSPC, "tenants hold %d targets "
			   "in the daemon already (%d more are kept for root "
			   "and the daemon's modules): try again later",
			   PROTO_MAX_SESSIONS - DAEMON_ADMIN_SESSIONS,
			   DAEMON_ADMIN_SESSIONS);
		return NULL;
	}
	if (d->n_t == PROTO_MAX_SESSIONS) {
		dlimit(GP_LIMIT_SESSIONS, "%d targets, pid %d refused",
		       PROTO_MAX_SESSIONS, pid);
		gp_err_set(e, GP_EXIT_BUSY, ENOSPC, "the daemon holds %d "
			   "targets already: detach one first",
			   PROTO_MAX_SESSIONS);
		return NULL;
	}
	t0 = monotonic_ns();
	s = gp_bk_attach(b, pid, &pending, e);
	if (!s && !pending)
		return NULL;
	t = &d->t[d->n_t++];
	memset(t, 0, sizeof(*t));
	t->p = s ? s : pending;
	t->pid = pid;
	t->uid = uid;
	t->tenant = tenant;
	if (!s) {
		keep_detaching(d, t);
		return NULL;
	}
	if (!strcmp(gp_bk_name(s), "kfd"))
		dlog("attached to pid %d (runtime %s, %.3f ms)", pid,
		     kfd_runtime_state_name(gp_bk_runtime(s)),
		     (monotonic_ns() - t0) / 1e6);
	else
		dlog("attached to pid %d (backend %s, %.3f ms)", pid,
		     gp_bk_name(s), (monotonic_ns() - t0) / 1e6);
	return t;
}

/* The backend, its state and the GPUs (NVIDIA UUIDs, else gpu ids). */
static void target_where(const struct target *t, struct proto_session *ps)
{
	snprintf(ps->backend, sizeof(ps->backend), "%s", gp_bk_name(t->p));
	snprintf(ps->state, sizeof(ps->state), "%s",
		 gp_bk_state_name(gp_bk_state(t->p)));
	gp_bk_gpus_text(t->p, ps->gpu, sizeof(ps->gpu));
}

void target_info(const struct target *t, struct proto_session *ps)
{
	uint64_t now = monotonic_ns();

	memset(ps, 0, sizeof(*ps));
	ps->pid = t->pid;
	ps->runtime = gp_bk_runtime(t->p);
	ps->queues = gp_bk_nqueues(t->p);
	ps->held = gp_bk_held(t->p);
	ps->resume_failures = t->resume_failures;
	target_where(t, ps);
	if (t->held_since)
		ps->held_ns = now - t->held_since;
	if (t->deadline)
		ps->left_ns = t->deadline > now ? t->deadline - now : 0;
}

/*
 * A hold: from the first suspend request the kernel accepted (ret >= 0,
 * even if every id was invalid or the target had no queue yet) until a
 * resume without ids or one that leaves nothing suspended, a detach, or
 * the deadline: --max-hold after the start, sooner with for_ns.
 */
void hold_start(struct daemon *d, struct target *t, uint64_t for_ns)
{
	uint64_t now = monotonic_ns(), until;

	if (!t->held_since) {
		t->held_since = now;
		t->deadline = now + d->max_hold_ns;
	}
	/* for_ns may shorten the hold, never stretch it past --max-hold */
	if (for_ns) {
		until = now + for_ns < now ? UINT64_MAX : now + for_ns;
		if (until < t->deadline)
			t->deadline = until;
	}
}

void hold_end(struct target *t)
{
	t->held_since = t->deadline = 0;
}

/*
 * A resume left queues suspended: keep the hold, next attempt after the
 * backoff (RESUME_RETRY_MIN_NS doubling to RESUME_RETRY_MAX_NS).
 */
void target_retry_resume(struct target *t, const char *why, const char *cause)
{
	uint64_t now = monotonic_ns(), wait;
	char next[32];

	wait = RESUME_RETRY_MIN_NS << (t->resume_failures < 6 ?
				       t->resume_failures : 6);
	if (wait > RESUME_RETRY_MAX_NS)
		wait = RESUME_RETRY_MAX_NS;
	t->resume_failures++;
	if (!t->held_since)
		t->held_since = now;
	t->deadline = now + wait;
	fmt_ns(next, sizeof(next), wait);
	dlog_at(LOG_ERR, "%s: resuming pid %d failed (attempt %u), %u queue%s "
		"still suspended, retrying in %s: %s", why, t->pid,
		t->resume_failures, gp_bk_held(t->p),
		gp_bk_held(t->p) == 1 ? "" : "s", next, cause);
}

/*
 * A resume that left queues suspended (the ioctl failed, or the GPU
 * failed to map some queue) is retried: the hold stays, with a deadline
 * RESUME_RETRY_MIN_NS away, doubling up to RESUME_RETRY_MAX_NS; status
 * shows the failures. Never forgotten: only a resume that leaves nothing
 * suspended, the target's exit or a detach (DISABLE resumes all) ends it.
 */
int target_resume_all(struct target *t, const char *why)
{
	struct session_op op = {};
	struct gp_err e = {};
	uint64_t now = monotonic_ns();
	char held[32];
	int r;

	if (!t->held_since && !gp_bk_held(t->p))
		return 0;
	fmt_ns(held, sizeof(held), t->held_since ? now - t->held_since : 0);
	r = gp_bk_resume(t->p, NULL, 0, &op, &e);
	session_op_free(&op);
	if ((!r || r == GP_EXIT_PARTIAL) && !gp_bk_held(t->p)) {
		dm_resume(t->pid, op.ns, !strncmp(why, "watchdog", 8));
		dlog("%s: resumed pid %d after %s (%u queues: %u ok, "
		     "%u invalid, %u error)", why, t->pid, held, op.n,
		     op.n_ok, op.n_invalid, op.n_error);
		hold_end(t);
		t->resume_failures = 0;
		return 0;
	}
	target_retry_resume(t, why, r ? e.msg : "some queues failed to map");
	return -1;
}

/* Arm the timerfd at the earliest hold deadline (or disarm it). */
void targets_arm_watchdog(struct daemon *d)
{
	struct itimerspec its = {};
	uint64_t first = 0;
	uint32_t i;

	for (i = 0; i < d->n_t; i++)
		if (d->t[i].deadline &&
		    (!first || d->t[i].deadline < first))
			first = d->t[i].deadline;
	if (dmod_deadline(d) && (!first || dmod_deadline(d) < first))
		first = dmod_deadline(d);
	if (first) {
		its.it_value.tv_sec = first / NSEC_PER_SEC;
		its.it_value.tv_nsec = first % NSEC_PER_SEC;
	}
	timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void targets_watchdog(struct daemon *d)
{
	uint64_t now = monotonic_ns();
	char why[64], dur[32];
	uint32_t i;

	for (i = 0; i < d->n_t; i++) {
		struct target *t = &d->t[i];

		if (!t->deadline || t->deadline > now)
			continue;
		fmt_ns(dur, sizeof(dur), d->max_hold_ns);
		if (t->resume_failures)
			snprintf(why, sizeof(why), "resume retry");
		else if (now - t->held_since + 1000000 >= d->max_hold_ns)
			snprintf(why, sizeof(why), "watchdog (--max-hold %s)",
				 dur);
		else
			snprintf(why, sizeof(why), "hold time over");
		target_resume_all(t, why);
	}
}

/*
 * Handshakes and ptrace stops; drop targets that are gone. A target's
 * events are read when its dbg pipe is readable (ev[i], the revents of
 * d->t[i] in this round) or when all is set (SIGCHLD, the periodic
 * tick): a suspend request does not wait behind ioctls for idle targets.
 * Walks down so a drop, which moves the last target into slot i, only
 * moves one already seen.
 */
void targets_service(struct daemon *d, const struct pollfd *ev, uint32_t n,
		     bool all)
{
	struct gp_bk_done dn;
	struct gp_err e = {};
	uint32_t i;
	int gone;

	if (n > d->n_t)
		n = d->n_t;
	for (i = n; i-- > 0;) {
		struct target *t = &d->t[i];

		if (!all && !ev[i].revents)
			continue;
		if (t->detaching) {
			if (gp_bk_release_poll(t->p)) {
				dlog("detached from pid %d at last", t->pid);
				forget(d, t);
			}
			continue;
		}
		memset(&e, 0, sizeof(e));
		gone = gp_bk_handle(t->p, &e);
		if (e.msg[0])
			dlog_at(LOG_WARNING, "pid %d: %s", t->pid, e.msg);
		while (gp_bk_take_done(t->p, &dn))
			target_op_done(d, t, &dn);
		if (gone || !gp_bk_alive(t->p)) {
			dlog("pid %d exited: dropped", t->pid);
			target_drop(d, t);
		}
	}
}

/*
 * Release every target, give the pending detaches a moment, then go:
 * what is still pending the kernel finishes when this process exits.
 */
void targets_shutdown(struct daemon *d, int sig)
{
	struct timespec ts = { 0, 10 * NSEC_PER_MSEC };
	uint64_t end = monotonic_ns() + 2 * NSEC_PER_SEC;
	uint32_t i, left;

	dlog("%s: resuming and detaching %u target%s", strsignal(sig),
	     d->n_t, d->n_t == 1 ? "" : "s");
	for (i = 0; i < d->n_t; i++) {
		struct target *t = &d->t[i];

		if (!t->detaching)
			target_resume_all(t, "shutdown");
		target_op_abandon(d, t, "the daemon is shutting down");
		t->detaching = !gp_bk_release(t->p);
	}
	do {
		for (left = 0, i = 0; i < d->n_t; i++)
			if (d->t[i].detaching &&
			    !gp_bk_release_poll(d->t[i].p))
				left++;
		if (left)
			nanosleep(&ts, NULL);
	} while (left && monotonic_ns() < end);
	if (left)
		dlog("%u detach%s pending: the kernel finishes them as we "
		     "exit", left, left == 1 ? "" : "es");
	while (d->n_t)
		gp_bk_free(d->t[--d->n_t].p);
}

/*
 * An operation that ran off the loop (GP_BK_PENDING) finished: its
 * issuer's continuation (t->op_done: a client's reply, the executor's
 * bookkeeping) runs once. With none left (its client went away), a
 * suspend that took still starts a hold: the deadline (--max-hold)
 * resumes it, so a lock is never forgotten.
 */
void target_op_done(struct daemon *d, struct target *t,
		    struct gp_bk_done *dn)
{
	void (*fn)(struct daemon *, struct target *, struct gp_bk_done *) =
		t->op_done;

	t->op_done = NULL;
	if (fn) {
		fn(d, t, dn);
	} else if (dn->op.call == KFD_CALL_SUSPEND && dn->op.ret >= 0) {
		dlog("pid %d: a suspend whose requester left completed: held "
		     "until the deadline", t->pid);
		hold_start(d, t, 0);
	}
	t->op_client = NULL;
	session_op_free(&dn->op);
}

/* The target goes (released, shutdown) with an operation in flight: its
 * issuer is answered now; the backend's release waits for the call. */
void target_op_abandon(struct daemon *d, struct target *t, const char *why)
{
	struct gp_bk_done dn = { .op = { .call = KFD_CALL_SUSPEND,
					 .pid = t->pid, .ret = -ECANCELED },
				 .r = GP_EXIT_TARGET };

	if (!t->op_done)
		return;
	gp_err_set(&dn.e, GP_EXIT_TARGET, ECANCELED, "pid %d: %s before its "
		   "suspend completed (a lock that lands is undone)", t->pid,
		   why);
	target_op_done(d, t, &dn);
}
