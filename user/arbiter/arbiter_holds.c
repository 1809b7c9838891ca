// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter's holds (issue 24 item 4): which pids it holds, for the
 * daemon to refuse a tenant's resume or detach of them, and an admin's
 * resume accounted in the policy.
 */
#include <stdio.h>

#include "arbiter_int.h"
#include "util.h"

/* Suspended by the deciding policy (gpolicy.c, either scope). */
static bool held_now(struct arbiter *a, int pid)
{
	const struct gp_gproc *gp;

	return a->g && (gp = gp_gpolicy_proc(a->g, pid)) && arbg_held(gp);
}

/*
 * The arbiter's holds are its own: an offline process it attached, or
 * that its policy holds suspended. The daemon refuses a tenant's resume
 * or detach of it with this text (daemon_req.c).
 */
bool arbiter_holds(const struct daemon *d, int pid, char *why, size_t len)
{
	struct arbiter *a = arb_of(d);
	struct arb_proc *p;
	bool susp;

	if (!a || !(p = arb_find(a, pid)) || p->cls != GP_CLASS_OFFLINE ||
	    !p->joined)
		return false;
	susp = held_now(a, pid);
	if (!susp && !p->own_session)
		return false;
	snprintf(why, len, "the arbiter (offline, %s)", susp ?
		 "suspended while online is busy" : "attached to be suspended "
		 "while online is busy");
	return true;
}

/* An admin resumed or detached a process the arbiter holds: the policy
 * records it running, to suspend it again at online's next idle -> busy
 * edge, not at a window boundary inside this busy (gpolicy.h). */
void arbiter_hold_released(struct daemon *d, int pid, enum gp_who who)
{
	struct arbiter *a = arb_of(d);
	struct arb_proc *p;

	if (!a || !(p = arb_find(a, pid)) || p->cls != GP_CLASS_OFFLINE ||
	    !p->joined || !held_now(a, pid))
		return;
	if (a->g)
		gp_gpolicy_released(a->g, monotonic_ns(), pid);
	alog(a, "pid %d resumed by %s: running until online's next busy",
	     pid, who == GP_WHO_ADMIN ? "the node's admin" : "a tenant");
	arb_apply(d);
}
