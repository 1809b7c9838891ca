// SPDX-License-Identifier: GPL-2.0
/* The shared argp flag group (args.h). */
#include <errno.h>

#include "args.h"

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
