// SPDX-License-Identifier: GPL-2.0
/* Read-only questions to the arbitration policy's state (policy.h):
 * for the daemon's output, the metrics and the replay; no decision. */
#include "policy.h"

bool gp_policy_online_busy(const struct gp_policy *p)
{
	return p->n_busy > 0;
}

bool gp_policy_offline_suspended(const struct gp_policy *p, int pid)
{
	int i;

	for (i = 0; i < p->n_off; i++)
		if (p->off[i].pid == pid)
			return p->off[i].suspended;
	return false;
}

double gp_policy_suspended_fraction(const struct gp_policy *p, int pid,
				    uint64_t now, uint64_t *susp_ns)
{
	const struct gp_poffline *o = NULL;
	uint64_t s, life;
	int i;

	for (i = 0; i < p->n_off; i++)
		if (p->off[i].pid == pid)
			o = &p->off[i];
	if (!o)
		return -1;
	s = o->suspended_ns + (o->suspended && now > o->since ?
			       now - o->since : 0);
	if (susp_ns)
		*susp_ns = s;
	life = now > o->attached_at ? now - o->attached_at : 0;
	return life ? (double)s / life : 0;
}
