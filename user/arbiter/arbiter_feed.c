// SPDX-License-Identifier: GPL-2.0
/* Activity records into the policy (activity.h): every detector's busy
 * and idle edges pass here, so a source is counted the same way whoever
 * saw it. */
#include <errno.h>

#include "arbiter_int.h"
#include "gpolicy.h"
#include "policy.h"

int arb_feed(struct arbiter *a, const struct gp_activity *r)
{
	uint64_t src = gp_activity_src(r);
	int ret;

	if (r->busy) {
		a->trigger_ns = r->t_ns;
		ret = gp_policy_busy(&a->pol, r->t_ns, src, r->pid, &a->act);
	} else {
		ret = gp_policy_idle(&a->pol, r->t_ns, src, r->pid, &a->act);
	}
	/* The node machine owns the sources: an idle with no busy open
	 * (EALREADY) or a busy past its table (ENOSPC) never reaches the
	 * per-GPU one, which decides, on the GPUs named or pid's. */
	if (a->g && !ret)
		arbg_edge(a, src, r->pid, r->gpus, r->ngpus, r->busy);
	return ret;
}

void arb_source_closed(struct arbiter *a, uint64_t src, uint64_t now)
{
	gp_policy_source_closed(&a->pol, now, src, &a->act);
	if (a->g)
		gp_gpolicy_source_closed(a->g, now, src, a->gact);
}
