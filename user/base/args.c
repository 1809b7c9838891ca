// SPDX-License-Identifier: GPL-2.0
/* The shared argp flag group (args.h). */
#include <errno.h>

#include "args.h"
#include "util.h"

int gp_args_common(int key, const char *arg, struct argp_state *st, FILE *out,
		   int usage_key, bool *help)
{
	if (key == 'h' || (usage_key != GP_ARGS_NO_USAGE && key == usage_key)) {
		argp_state_help(st, out, key == 'h' ? ARGP_HELP_STD_HELP :
						      ARGP_HELP_USAGE);
		*help = true;
		return 0;
	}
	if (key == ARGP_KEY_ARG) {
		argp_error(st, "unexpected argument '%s'", arg);
		return EINVAL;
	}
	return ARGP_ERR_UNKNOWN;
}

int gp_args_duration(struct argp_state *st, const char *opt, const char *arg,
		     uint64_t *ns, bool zero_ok)
{
	if (parse_duration_ns(arg, ns) || (!zero_ok && !*ns)) {
		argp_error(st, "invalid duration '%s' for --%s (e.g. 500us, "
			   "2ms, 10s, 2m)", arg, opt);
		return EINVAL;
	}
	return 0;
}

int gp_args_abs_path(struct argp_state *st, const char *opt, const char *arg)
{
	if (*arg != '/') {
		argp_error(st, "--%s: '%s' is not an absolute path", opt, arg);
		return EINVAL;
	}
	return 0;
}

int gp_args_cuda_lock_timeout(struct argp_state *st, const char *arg,
			      uint64_t *ns)
{
	if (gp_args_duration(st, "cuda-lock-timeout", arg, ns, false))
		return EINVAL;
	if (*ns < 1000000) {
		argp_error(st, "--cuda-lock-timeout: at least 1ms");
		return EINVAL;
	}
	return 0;
}
