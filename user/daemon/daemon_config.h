/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpreempt-ctl daemon --config FILE` (base/config.h does the parsing):
 * the file's options go first, then the command line's, so a flag on the
 * command line wins. Each file option is checked on its own with the
 * same argp parser first, so a bad value is reported with its line.
 */
#ifndef GP_DAEMON_CONFIG_H
#define GP_DAEMON_CONFIG_H

#include <argp.h>
#include <stdio.h>

#include "config.h"

/* Check one option ("--max-hold=1s") as the command line would: 0, or
 * -1 with the parser's complaint in msg. */
typedef int (*dconfig_check_fn)(void *ctx, char *opt, char *msg, size_t len);

/*
 * The file may set every long option of ap and its children but config,
 * send and help.
 * If argv (argv[0] = the program name) has --config FILE, -c FILE or
 * --config=FILE: read FILE, and set *nargv to argv[0], FILE's options,
 * then argv's others (malloc'd array; the strings live in cfg, free with
 * config_free, and in argv). Without --config: *nargv = NULL, 0.
 * Errors print "FILE:LINE: what" to err and return GP_EXIT_USAGE.
 */
int dconfig_expand(int argc, char **argv, const struct argp *ap,
		   dconfig_check_fn check, void *ctx, struct config *cfg,
		   int *nargc, char ***nargv, const char **file, FILE *err);

#endif
