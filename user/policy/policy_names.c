// SPDX-License-Identifier: GPL-2.0
/* Names of the policy's states, actions, causes, scopes and gangs, for
 * logs and output, and the parsers of --scope and --gang. */
#include <errno.h>
#include <string.h>

#include "gpolicy.h"
#include "policy.h"

const char *gp_pcause_name(enum gp_pcause c)
{
	static const char *const n[GP_CAUSE__N] = {
		[GP_CAUSE_BUSY] = "busy", [GP_CAUSE_IDLE] = "idle",
		[GP_CAUSE_BUDGET] = "budget", [GP_CAUSE_MAX_HOLD] = "max-hold",
		[GP_CAUSE_WINDOW] = "window", [GP_CAUSE_ATTACHED] = "attached",
		[GP_CAUSE_DETACH] = "detach",
	};

	return (unsigned int)c < GP_CAUSE__N ? n[c] : "?";
}

const char *gp_pop_name(enum gp_pop op)
{
	return op == GP_POP_SUSPEND ? "suspend" : "resume";
}

const char *gp_pstate_name(enum gp_pstate s)
{
	switch (s) {
	case GP_PS_IDLE: return "idle";
	case GP_PS_BUSY: return "busy";
	case GP_PS_LINGER: return "linger";
	case GP_PS_BUDGET: return "budget";
	}
	return "?";
}

const char *gp_scope_name(enum gp_scope s)
{
	return s == GP_SCOPE_NODE ? "node" : "gpu";
}

const char *gp_gang_name(enum gp_gang k)
{
	static const char *const n[] = { "none", "pgid", "cgroup" };

	return k <= GP_GANG_CGROUP ? n[k] : "?";
}

int gp_scope_parse(const char *s, enum gp_scope *out)
{
	if (!strcmp(s, "gpu"))
		*out = GP_SCOPE_GPU;
	else if (!strcmp(s, "node"))
		*out = GP_SCOPE_NODE;
	else
		return -EINVAL;
	return 0;
}

int gp_gang_parse(const char *s, enum gp_gang *out)
{
	for (int k = GP_GANG_NONE; k <= GP_GANG_CGROUP; k++)
		if (!strcmp(s, gp_gang_name(k))) {
			*out = k;
			return 0;
		}
	return -EINVAL;
}
