// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter as a module of the daemon (daemon_module.h): its verbs,
 * options, timer and callbacks, in one table the daemon calls through.
 * Who may call: busy, idle and classify are for any client (the handler
 * allows root or the target process's owner; classify on the tenant
 * socket only with --tenant-classify), policy reads state, and
 * watch hands the daemon addresses in another process's memory: root.
 */
#include <argp.h>

#include "arbiter_int.h"
#include "daemon_module.h"

static const struct gp_verb arbiter_verbs[] = {
	{ "busy", GP_WHO_TENANT, arbiter_busy },
	{ "idle", GP_WHO_TENANT, arbiter_idle },
	{ "classify", GP_WHO_TENANT_OPT, arbiter_classify },
	{ "policy", GP_WHO_TENANT, arbiter_policy },
	{ "watch", GP_WHO_ADMIN, arbiter_watch },
	{ NULL },
};

/* enum arb_limit's names: gpreempt_limit_hits_total{cause} */
static const char *const arbiter_limits[ARB_LIMIT__N + 1] = {
	[ARB_LIMIT_PROCS] = "arbiter_processes",
	[ARB_LIMIT_CLASSES] = "classes",
	[ARB_LIMIT_BUSY_EXPIRED] = "busy_expired",
	[ARB_LIMIT_STUCK_UID] = "stuck_per_uid",
	[ARB_LIMIT_STUCK] = "stuck",
	[ARB_LIMIT_PARKED] = "parked_requests",
};

const struct gp_module arbiter_module = {
	.name = "arbiter",
	.verbs = arbiter_verbs,
	.argp = &arbiter_argp,
	.argp_header = "Arbitration (docs/arbiter.md):",
	.opts_size = sizeof(struct arbiter_opts),
	.start = arbiter_start,
	.stop = arbiter_stop,
	.tick = arbiter_tick,
	.deadline = arbiter_deadline,
	.client_closed = arbiter_client_closed,
	.keeps = arbiter_busy_open,
	.client_busy = arbiter_busy_open,
	.target_gone = arbiter_target_gone,
	.holds = arbiter_holds,
	.hold_released = arbiter_hold_released,
	.reload = arbiter_reload,
	.metrics = arbiter_metrics,
	.limits = arbiter_limits,
};
