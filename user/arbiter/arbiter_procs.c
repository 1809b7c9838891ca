// SPDX-License-Identifier: GPL-2.0
/*
 * A process joins or leaves its class (arbiter_int.h): the policy first,
 * then the warm session, then the per-GPU actions (arbiter_gpus.c, below
 * it). Called by the scan, the verbs and reload.
 */
#include <stdio.h>

#include "arbiter_int.h"
#include "util.h"

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
