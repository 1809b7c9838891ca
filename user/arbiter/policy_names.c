// SPDX-License-Identifier: GPL-2.0
/* Names of the policy's states, actions and causes, for logs and output. */
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
