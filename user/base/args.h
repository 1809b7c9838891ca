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
#include <stdint.h>
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

/*
 * A DURATION option's argument (parse_duration_ns: 500us, 2ms, 10s, 2m)
 * into *ns; zero only when zero_ok. Otherwise argp_error() names the
 * value and the option (opt, without its dashes), and EINVAL: one wording
 * for the daemon's, the arbiter's and the client's durations.
 */
int gp_args_duration(struct argp_state *st, const char *opt, const char *arg,
		     uint64_t *ns, bool zero_ok);

/*
 * An option's PATH argument that must be absolute (opt without its
 * dashes): argp_error() and EINVAL otherwise. One wording for every
 * such option (--cuda-journal, --tenant-socket).
 */
int gp_args_abs_path(struct argp_state *st, const char *opt, const char *arg);

/*
 * --cuda-lock-timeout: a DURATION of at least 1ms, into *ns. One home for
 * the bound the daemon and the client both apply.
 */
int gp_args_cuda_lock_timeout(struct argp_state *st, const char *arg,
			      uint64_t *ns);

#endif
