// SPDX-License-Identifier: GPL-2.0
/*
 * Requests that name a process the arbiter has not described yet (busy,
 * idle or watch of a new pid; classify, which reads the process afresh)
 * wait here while a job (offjob.h) reads its /proc files off the loop:
 * /proc/PID/cmdline reads the process's memory under its mmap lock,
 * which the process's own threads can hold (arbiter_discover.c). The
 * connection gets no answer meanwhile and sends nothing more
 * (client_defer, daemon_int.h); the loop serves everyone else.
 *
 * - Done: the job's end wakes the loop (offjob.h), and the tick runs the
 *   request's handler again with the description (the handler's done()): authorization first, from the description's
 *   owner, then the tables, as when it was read on the loop.
 * - Not done within ARB_DESC_DEADLINE_NS: the request is refused with a
 *   clear error, the pid is remembered stuck (arbiter_stuck.c) so that
 *   no later request or scan reads it again, and the job's thread is
 *   left to end, if ever, on its own.
 * - The connection closed: its request is dropped (the job too).
 *
 * Bounded before anything starts: ARB_PARK_MAX requests wait at once, a
 * non-admin uid ARB_PARK_PER_UID of them and all non-admins together
 * leave ARB_PARK_ADMIN to admins; a request naming a process whose owner
 * has its share of stuck ones is refused (its read could not be
 * remembered, and each stuck read keeps a thread). A refusal is logged
 * and counted (gpreempt_limit_hits_total{cause="parked_requests"}).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_int.h"
#include "arb_proto.h"
#include "offjob.h"
#include "select.h"
#include "util.h"

struct park_job {
	char root[256];
	int pid;
	int err;
	struct gp_proc_desc pd;
};

struct park {
	struct client *c;
	struct arb_req q;
	int pid;
	uid_t owner;		/* pid's */
	uid_t uid;		/* the requester's */
	bool admin;
	arb_described_fn *done;
	struct gp_offjob *job;
};

struct arb_parks {
	int n;
	struct park p[ARB_PARK_MAX];
};

static void describe(void *arg)
{
	struct park_job *j = arg;

	j->err = gp_proc_describe(j->root, j->pid, &j->pd);
}

/* Room for a request of c naming pid (of owner): 0, or -1 with e. */
static int room(struct arbiter *a, const struct client *c, int pid,
		uid_t owner, struct gp_err *e)
{
	int mine = 0, others = 0;
	bool admin = client_admin(c);
	uid_t uid = client_uid(c);

	for (int i = 0; i < a->parks->n; i++) {
		mine += !a->parks->p[i].admin && a->parks->p[i].uid == uid;
		others += !a->parks->p[i].admin;
	}
	if (a->parks->n == ARB_PARK_MAX ||
	    (!admin && (mine >= ARB_PARK_PER_UID ||
			   others >= ARB_PARK_MAX - ARB_PARK_ADMIN))) {
		alimit(ARB_LIMIT_PARKED, "request of pid %d uid %u for pid %d "
		       "refused: %d requests wait for a description",
		       client_pid(c), uid, pid, admin ? a->parks->n : mine);
		return gp_err_set(e, GP_EXIT_BUSY, EBUSY, "pid %d: %s requests "
				  "wait while their processes are read: try "
				  "again in %llu s", pid, admin ? "too many" :
				  "this user's", (unsigned long long)
				  (ARB_DESC_DEADLINE_NS / NSEC_PER_SEC));
	}
	if (arb_stuck_room(a, owner)) {
		alimit(ARB_LIMIT_PARKED, "request of pid %d uid %u for pid %d "
		       "refused: uid %u's /proc reads are stuck",
		       client_pid(c), uid, pid, owner);
		return gp_err_set(e, GP_EXIT_TARGET, EAGAIN, "pid %d: processes "
				  "of uid %u already have /proc files that do "
				  "not answer (their memory lock held?): not "
				  "read until one of them exits", pid, owner);
	}
	return 0;
}

void arb_defer(struct daemon *d, struct client *c, const struct arb_req *q,
	       int pid, uid_t owner, arb_described_fn *done)
{
	struct arbiter *a = arb_of(d);
	struct gp_err e = {};
	struct park_job *j;
	struct park *p;
	int err = ENOMEM;

	if (!a->parks)
		a->parks = calloc(1, sizeof(*a->parks));
	if (!a->parks)
		goto nomem;
	if (room(a, c, pid, owner, &e)) {
		reply_err(c, &e);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		goto nomem;
	snprintf(j->root, sizeof(j->root), "%s", arb_proc_root(a));
	j->pid = pid;
	p = &a->parks->p[a->parks->n];
	p->job = gp_offjob_start(describe, j, free, monotonic_ns(), &err);
	if (!p->job) {
		err = -err;
		goto nomem;
	}
	p->c = c;
	p->q = *q;
	p->done = done;
	p->pid = pid;
	p->owner = owner;
	p->uid = client_uid(c);
	p->admin = client_admin(c);
	a->parks->n++;
	client_defer(c);
	return;
nomem:
	gp_err_set(&e, GP_EXIT_DAEMON, err, "pid %d: cannot read it off the "
		   "daemon's loop: %s (try again)", pid, strerror(err));
	reply_err(c, &e);
}

/* p's answer, then its connection's further lines. */
static void finish(struct daemon *d, struct park *p)
{
	struct arbiter *a = arb_of(d);
	struct park_job *j = gp_offjob_arg(p->job);
	struct gp_err e = {};

	if (gp_offjob_done(p->job)) {
		p->done(d, p->c, &p->q, j->err, &j->pd);
	} else {
		arb_stuck_add(a, p->pid, p->owner, "a request");
		arb_stuck_err(&e, p->pid);
		alog(a, "refused a request of pid %d uid %u: %s",
		     client_pid(p->c), client_uid(p->c), e.msg);
		reply_err(p->c, &e);
	}
	gp_offjob_put(p->job);	/* a late one: its thread frees it */
	client_undefer(d, p->c);
}

void arb_defer_tick(struct daemon *d, uint64_t now)
{
	struct arbiter *a = arb_of(d);
	struct park p;

	/* Backwards: finish() may park the connection's next request,
	 * appended past i; a finished one leaves for the last. */
	for (int i = a->parks ? a->parks->n : 0; i-- > 0;) {
		p = a->parks->p[i];
		if (!gp_offjob_done(p.job) &&
		    !gp_offjob_late(p.job, now, ARB_DESC_DEADLINE_NS))
			continue;
		a->parks->p[i] = a->parks->p[--a->parks->n];
		finish(d, &p);
	}
}

uint64_t arb_defer_deadline(const struct arbiter *a)
{
	uint64_t t = 0, end;

	/* Only the deadlines: a job's end wakes the loop itself
	 * (offjob.h's eventfd, arbiter.c's jobs_ended). */
	for (int i = 0; a->parks && i < a->parks->n; i++) {
		end = gp_offjob_started(a->parks->p[i].job) +
		      ARB_DESC_DEADLINE_NS;
		if (!t || end < t)
			t = end;
	}
	return t;
}

void arb_defer_closed(struct arbiter *a, const struct client *c)
{
	for (int i = a->parks ? a->parks->n : 0; i-- > 0;)
		if (a->parks->p[i].c == c) {
			gp_offjob_put(a->parks->p[i].job);
			a->parks->p[i] = a->parks->p[--a->parks->n];
		}
}

void arb_defer_stop(struct arbiter *a)
{
	struct arb_parks *ps = a->parks;
	struct gp_err e = {};

	a->parks = NULL;
	gp_err_set(&e, GP_EXIT_USAGE, ENOTSUP, "the arbiter stopped while "
		   "the request waited");
	/* Not client_undefer(): at shutdown the lines that came meanwhile
	 * must not be served (a suspend after every hold was ended); the
	 * next bytes of a live connection serve them. */
	for (int i = 0; ps && i < ps->n; i++) {
		gp_offjob_put(ps->p[i].job);
		reply_err(ps->p[i].c, &e);
		client_defer_drop(ps->p[i].c);
	}
	free(ps);
}
