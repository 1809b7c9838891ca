// SPDX-License-Identifier: GPL-2.0
/* The arbitration policy's configuration: defaults and checks (the
 * rules are policy.h's). */
#include <errno.h>
#include <string.h>

#include "policy.h"
#include "util.h"

void gp_policy_cfg_default(struct gp_policy_cfg *c)
{
	memset(c, 0, sizeof(*c));
	/* 2 ms: longer than the gap between two requests of one burst of a
	 * serving loop, far below the 50 ms online latency goal (issue 10). */
	c->resume_after_ns = 2 * NSEC_PER_MSEC;
	c->window_ns = NSEC_PER_SEC;
	c->busy_max_ns = GP_POLICY_BUSY_MAX_NS;
}

int gp_policy_cfg_check(const struct gp_policy_cfg *c, char *err, size_t len)
{
	if (c->min_offline_share > 100) {
		snprintf(err, len, "--min-offline-share %u is outside 0..100",
			 c->min_offline_share);
		return -EINVAL;
	}
	if (!c->window_ns) {
		snprintf(err, len, "--window must be longer than 0");
		return -EINVAL;
	}
	if (c->min_offline_share && c->window_ns < 100 * NSEC_PER_USEC) {
		snprintf(err, len, "--window shorter than 100us cannot give "
			 "offline a share: a suspend costs more than that");
		return -EINVAL;
	}
	return 0;
}
