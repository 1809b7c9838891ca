/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flag group every argp parser of ours shares, in one place: -h
 * (full help), a hidden usage key (short usage) and a stray argument
 * refused with the same words. A parser calls it from its default case:
 *
 *	default:
 *		return gp_args_common(key, arg, st, out, OPT_USAGE, &a->help);
 */
#ifndef GP_ARGS_H
#define GP_ARGS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

/* No usage key (argp's keys are never negative). */
#define GP_ARGS_NO_USAGE (-1)

/*
 * Help to out (setting *help), or the usage line to out (setting *help),
 * or argp_error() on a stray argument. 0 for the first two, EINVAL for
 * the third, ARGP_ERR_UNKNOWN for any other key.
 */
int gp_args_common(int key, const char *arg, struct argp_state *st, FILE *out,
		   int usage_key, bool *help);

#endif
