// SPDX-License-Identifier: GPL-2.0
/* The daemon's requests: one parsed line, one reply (daemon_int.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "daemon_int.h"
#include "daemon_view.h"
#include "exitcodes.h"
#include "procfs.h"
#include "util.h"

static int authorize(const struct client *c, pid_t pid, struct gp_err *e);

/*
 * The target of pid for c, attached on first use, authorized again once
 * attached: the first check read /proc/<pid> before the seize, and only
 * now (seized, the pidfd still alive: session_open) is that pid sure to
 * name the same process.
 */
static struct target *get_authorized(struct daemon *d, struct client *c,
				     pid_t pid, struct gp_err *e)
{
	bool fresh = !target_find(d, pid);
	struct target *t = target_get(d, pid, c->uid, !c->admin, e);

	if (t && fresh && authorize(c, pid, e)) {
		target_drop(d, t);
		return NULL;
	}
	return t;
}

static void reply_session(struct client *c, const struct target *t)
{
	struct proto_session ps;
	char buf[256];

	target_info(t, &ps);
	reply_line(c, buf, proto_format_session(buf, sizeof(buf), &ps));
}

static void do_status(struct daemon *d, struct client *c,
		      const struct proto_req *q)
{
	struct proto_daemon pd = {
		.pid = getpid(), .sessions = d->n_t - d->n_detaching,
		.detaching = d->n_detaching,
		.max_hold_ns = d->max_hold_ns, .kfd = d->kfd_ok,
		.kfd_major = d->kfd_ok ? d->kfd.major : 0,
		.kfd_minor = d->kfd_ok ? d->kfd.minor : 0,
	};
	char buf[256];
	uint32_t i;

	reply_line(c, buf, proto_format_daemon(buf, sizeof(buf), &pd));
	for (i = 0; i < d->n_t; i++)
		if (!d->t[i].detaching && (!q->pid || d->t[i].pid == q->pid) &&
		    view_shows_hold(c->admin, c->uid, d->t[i].uid,
				    d->t[i].tenant))
			reply_session(c, &d->t[i]);
	reply_ok(c);
}

static void reply_op(struct client *c, const struct session_op *op)
{
	static char buf[PROTO_MAX_LINE];

	reply_line(c, buf, proto_format_op(buf, sizeof(buf), op));
}

static struct target *not_held(pid_t pid, const char *what,
			       struct gp_err *e)
{
	gp_err_set(e, GP_EXIT_TARGET, ESRCH, "pid %d is not held by the "
		   "daemon%s", pid, what);
	return NULL;
}

/*
 * A suspend parked for up to q->wait_ns: daemon_waiting() runs it, the
 * loop serves others meanwhile. kfd: first for the pid to open /dev/kfd
 * (the budget then carries on to its runtime), else for its runtime.
 */
static void park(struct client *c, const struct proto_req *q, bool kfd)
{
	c->waiting = true;
	c->wait_kfd = kfd;
	c->wait_req = *q;
	if (!kfd)
		c->wait_req.wait_ns = 0;
	c->wait_until = monotonic_ns() + q->wait_ns;
	dlog("suspend pid %d waits up to %llu ms for %s", q->pid,
	     (unsigned long long)(q->wait_ns / NSEC_PER_MSEC),
	     kfd ? "it to open /dev/kfd" : "its runtime");
}

/*
 * What a suspend or resume did, applied and answered: the hold, the
 * metrics, the log, the reply to c (NULL: its client left). drop: the
 * target may be dropped here (not from a completion, whose caller
 * walks the table).
 */
static void finish_op(struct daemon *d, struct client *c, struct target *t,
		      bool suspend, uint64_t for_ns, uint64_t req_ns,
		      uint32_t n_queues, struct session_op *op, int r,
		      struct gp_err *e, bool drop)
{
	if (suspend && op->ret >= 0 && op->n_ok)
		dm_suspend(t->pid, op->ns, monotonic_ns() - req_ns);
	else if (!suspend && op->ret >= 0 && op->n_ok)
		dm_resume(t->pid, op->ns, false);
	if (suspend && op->ret >= 0)
		hold_start(d, t, for_ns);
	else if (!suspend && !gp_bk_held(t->p)) {
		hold_end(t);
		t->resume_failures = 0;
		/* nothing left suspended (also a process with no queues) */
		if (op->ret >= 0)
			dmod_hold_released(d, t->pid, !c || c->admin ?
					   GP_WHO_ADMIN : GP_WHO_TENANT);
	} else if (!suspend && !n_queues) {
		/* asked for everything, queues left: never a forgotten hold */
		target_retry_resume(t, "resume request",
				    r ? e->msg : "some queues failed to map");
	}
	if (d->o->verbose || r)
		dlog_at(r ? LOG_WARNING : LOG_INFO,
			"%s pid %d: %u queues, %u ok, %u invalid, %u error%s%s",
		     suspend ? "suspend" : "resume", t->pid, op->n, op->n_ok,
		     op->n_invalid, op->n_error, r ? ": " : "", r ? e->msg : "");
	if (c) {
		reply_op(c, op);
		/* the hold as applied (--max-hold may have cut for_ns) */
		if (suspend && op->ret >= 0)
			reply_session(c, t);
		if (r)
			reply_err(c, e);
		else
			reply_ok(c);
	}
	if (drop && !gp_bk_alive(t->p)) {
		dlog("pid %d is gone: dropped", t->pid);
		target_drop(d, t);
	}
}

/* A suspend that ran off the loop (CUDA's lock) completed. */
static void suspend_done(struct daemon *d, struct target *t,
			 struct gp_bk_done *dn)
{
	struct client *c = t->op_client;

	finish_op(d, c, t, true, t->op_for_ns, t->op_req_ns, 0, &dn->op,
		  dn->r, &dn->e, false);
	if (c)
		c->answered = true;	/* client_event() undefers it */
}

static void do_suspend_resume(struct daemon *d, struct client *c,
			      const struct proto_req *q)
{
	bool suspend = q->verb == PROTO_SUSPEND;
	struct session_op op = {};
	struct gp_err e = {};
	struct target *t;
	int r;

	/*
	 * --wait-runtime on a process still starting: it may not have
	 * opened /dev/kfd yet (ROCr does in hsa_init), and without a KFD
	 * process there is nothing to attach to. Parked as for the runtime
	 * below, within the same budget; authorized first. (A backend that
	 * claims it, CUDA's, needs no wait.)
	 */
	if (suspend && q->wait_ns && !target_find(d, q->pid) &&
	    !session_check_pid(q->pid, &e) &&
	    !gp_bk_claim(&d->bk, q->pid)) {
		if (authorize(c, q->pid, &e)) {
			reply_err(c, &e);
			return;
		}
		park(c, q, true);
		return;
	}
	memset(&e, 0, sizeof(e));
	t = suspend ? get_authorized(d, c, q->pid, &e) :
		      target_find(d, q->pid);
	if (!t && !suspend)
		not_held(q->pid, ": nothing to resume (a one-shot "
			 "'gpreempt-ctl suspend' resumes when it ends)", &e);
	if (!t) {
		reply_err(c, &e);
		return;
	}
	if (suspend && q->wait_ns && gp_bk_runtime(t->p) !=
	    DEBUG_RUNTIME_STATE_ENABLED) {
		park(c, q, false);
		return;
	}
	if (suspend)
		r = gp_bk_suspend(t->p, q->queues, q->n_queues, q->grace,
				  &op, &e);
	else
		r = gp_bk_resume(t->p, q->queues, q->n_queues, &op, &e);
	if (r == GP_BK_PENDING) {
		/* off the loop: the reply waits, the loop serves others */
		t->op_done = suspend_done;
		t->op_client = c;
		t->op_for_ns = q->for_ns;
		t->op_req_ns = d->req_ns;
		c->deferred = true;	/* (client_defer: no call back up) */
		session_op_free(&op);
		if (d->o->verbose)
			dlog("suspend pid %d: %s runs it off the loop", t->pid,
			     gp_bk_name(t->p));
		return;
	}
	finish_op(d, c, t, suspend, q->for_ns, d->req_ns, q->n_queues, &op, r,
		  &e, true);
	session_op_free(&op);
}

static void do_attach(struct daemon *d, struct client *c, pid_t pid)
{
	struct gp_err e = {};
	struct target *t = get_authorized(d, c, pid, &e);

	if (!t) {
		reply_err(c, &e);
		return;
	}
	reply_session(c, t);
	reply_ok(c);
}

static void do_detach(struct daemon *d, struct client *c, pid_t pid)
{
	struct gp_err e = {};
	struct target *t = target_find(d, pid);

	if (!t) {
		reply_err(c, (not_held(pid, "", &e), &e));
		return;
	}
	target_resume_all(t, "detach");
	dmod_hold_released(d, pid, c->admin ? GP_WHO_ADMIN : GP_WHO_TENANT);
	target_drop(d, t);
	dlog("detached from pid %d", pid);
	reply_ok(c);
}

/*
 * The rule: the daemon acts on a process for root, or for the process's
 * own user: its real, effective and saved uid all the client's
 * (SO_PEERCRED), as ptrace itself would demand. The socket's --group
 * decides who may talk to the daemon, not whose jobs they may touch.
 */
static int authorize(const struct client *c, pid_t pid, struct gp_err *e)
{
	uid_t u[4];

	if (c->admin)
		return 0;
	if (procfs_uids(pid, u))
		return gp_err_set(e, GP_EXIT_TARGET, ESRCH, "no process %d",
				  pid);
	if (peer_may_act(c, pid)) {
		dlog("refused tenant pid %d uid %u on pid %d: outside its "
		     "namespace", c->pid, c->uid, pid);
		return gp_err_set(e, GP_EXIT_PRIV, EPERM, "pid %d is not in "
				  "the caller's PID namespace: a tenant (a "
				  "container) acts only on its own processes",
				  pid);
	}
	if (u[0] == c->uid && u[1] == c->uid && u[2] == c->uid)
		return 0;
	dlog("refused uid %u on pid %d (uid %u): not its owner", c->uid,
	     pid, u[0]);
	return gp_err_set(e, GP_EXIT_PRIV, EPERM, "uid %u may not act on pid "
			  "%d (uid %u): the daemon acts on a process only for "
			  "root or the process's own uid (real, effective and "
			  "saved)", c->uid, pid, u[0]);
}

/*
 * A hold a module made (the arbiter's suspension) is the module's: a
 * tenant may not undo it, even on its own process; an admin may, and the
 * module is told afterwards (do_suspend_resume, do_detach).
 */
static int held_by_module(const struct daemon *d, const struct client *c,
			  pid_t pid, struct gp_err *e)
{
	char why[160] = "";

	if (c->admin || !dmod_holds(d, pid, why, sizeof(why)))
		return 0;
	dlog("refused uid %u: pid %d is held by %s", c->uid, pid, why);
	return gp_err_set(e, GP_EXIT_PRIV, EPERM, "pid %d is held by %s; "
			  "ask the node's admin to resume or detach it", pid,
			  why);
}

void daemon_request(struct daemon *d, struct client *c, const char *line,
		    size_t len)
{
	struct proto_req q;
	struct gp_err e = {};

	d->req_ns = monotonic_ns();	/* trigger-to-suspend starts here */
	if (dmod_request(d, c, line, len))
		return;
	if (proto_parse_request(line, len, &q, &e)) {
		dm_request(PROTO_NONE);
		dlog_at(LOG_WARNING, "refused a request from pid %d uid %u: %s", c->pid,
		     c->uid, e.msg);
		reply_err(c, &e);
		return;
	}
	if (d->o->verbose)
		dlog("pid %d uid %u: %.*s", c->pid, c->uid,
		     (int)(len && line[len - 1] == '\n' ? len - 1 : len),
		     line);
	dm_request(q.verb);
	if (q.verb != PROTO_STATUS && c->tenant_sock) {
		char verbs[256];

		/* a server's verbs only: no sessions from a pod */
		dmod_tenant_verbs(d, verbs, sizeof(verbs));
		gp_err_set(&e, GP_EXIT_PRIV, EPERM, "'%s' is not served on the "
			   "tenant socket, which serves %s; ask the node's "
			   "admin (the admin socket %s)",
			   proto_verb_name(q.verb), verbs, d->path);
		reply_err(c, &e);
		return;
	}
	if (q.verb != PROTO_STATUS && authorize(c, q.pid, &e)) {
		reply_err(c, &e);
		return;
	}
	if ((q.verb == PROTO_RESUME || q.verb == PROTO_DETACH) &&
	    held_by_module(d, c, q.pid, &e)) {
		reply_err(c, &e);
		return;
	}
	switch (q.verb) {
	case PROTO_STATUS:
		do_status(d, c, &q);
		return;
	case PROTO_SUSPEND:
	case PROTO_RESUME:
		do_suspend_resume(d, c, &q);
		return;
	case PROTO_ATTACH:
		do_attach(d, c, q.pid);
		return;
	case PROTO_DETACH:
		do_detach(d, c, q.pid);
		return;
	case PROTO_NONE:
		break;
	}
}

int daemon_waiting(struct daemon *d, uint64_t now)
{
	struct gp_err e = {};
	uint64_t left, next = UINT64_MAX;
	struct target *t;
	uint32_t i;

	for (i = 0; i < d->n_c; i++) {
		struct client *c = d->c[i];

		if (!c->waiting)
			continue;
		if (c->wait_kfd) {
			/* sysfs does not notify a new directory: every 10 ms */
			if (now < c->wait_until &&
			    !gp_bk_claim(&d->bk, c->wait_req.pid) &&
			    !session_check_pid(c->wait_req.pid, &e)) {
				left = c->wait_until - now;
				left = left < 10 * NSEC_PER_MSEC ? left :
					      10 * NSEC_PER_MSEC;
				next = left < next ? left : next;
				continue;
			}
			/* opened it, gone, or out of time: the suspend says
			 * which, waiting on for the runtime with what is left */
			c->waiting = c->wait_kfd = false;
			c->last_ns = now;
			c->wait_req.wait_ns = now < c->wait_until ?
					      c->wait_until - now : 0;
			memset(&e, 0, sizeof(e));
			do_suspend_resume(d, c, &c->wait_req);
			if (c->waiting && c->wait_until > now) {
				/* parked again, for the runtime: its deadline
				 * counts in this round's timeout too */
				left = c->wait_until - now;
				next = left < next ? left : next;
			}
			continue;
		}
		t = target_find(d, c->wait_req.pid);
		if (t && now < c->wait_until && gp_bk_runtime(t->p) !=
		    DEBUG_RUNTIME_STATE_ENABLED) {
			left = c->wait_until - now;
			next = left < next ? left : next;
			continue;
		}
		c->waiting = false;
		c->last_ns = now;
		if (!t) {
			gp_err_set(&e, GP_EXIT_TARGET, ESRCH, "pid %d exited "
				   "while the daemon waited for its runtime",
				   c->wait_req.pid);
			reply_err(c, &e);
			continue;
		}
		/* enabled, or the wait is over: the suspend says which */
		do_suspend_resume(d, c, &c->wait_req);
	}
	return next == UINT64_MAX ? -1 : (int)(next / NSEC_PER_MSEC + 1);
}
