// SPDX-License-Identifier: GPL-2.0
/* --config FILE for the daemon (daemon_config.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_config.h"
#include "exitcodes.h"
#include "safepath.h"

#define PROG "gpreempt-ctl daemon"

/* Options a file may not set: itself, client mode, help. */
static bool file_allowed(const char *name)
{
	return strcmp(name, "config") && strcmp(name, "send") &&
	       strcmp(name, "help");
}

/* Where --config is in argv: its index and value, or -1. */
static int find_config(int argc, char **argv, const char **file, int *width)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return -1;
		if (!strcmp(argv[i], "--config") || !strcmp(argv[i], "-c")) {
			*file = i + 1 < argc ? argv[i + 1] : NULL;
			*width = 2;
			return i;
		}
		if (!strncmp(argv[i], "--config=", 9)) {
			*file = argv[i] + 9;
			*width = 1;
			return i;
		}
	}
	return -1;
}

/* The long options of ap and of its children (e.g. the arbiter's group),
 * so a file takes every flag the command line takes. */
static int table_of(const struct argp *ap, struct config_opt *t, int n, int max)
{
	for (const struct argp_option *o = ap->options; o && (o->name || o->key ||
	     o->doc); o++)
		if (o->name && file_allowed(o->name) && n < max)
			t[n++] = (struct config_opt){ o->name, o->arg != NULL };
	for (const struct argp_child *c = ap->children; c && c->argp; c++)
		n = table_of(c->argp, t, n, max);
	return n;
}

int dconfig_expand(int argc, char **argv, const struct argp *ap,
		   dconfig_check_fn check, void *ctx, struct config *cfg,
		   int *nargc, char ***nargv, const char **file, FILE *err)
{
	struct config_opt table[128];
	struct config_err ce;
	char msg[256], *text = NULL;
	size_t len = 0;
	int at, width, n = 0, r, k;

	*nargv = NULL;
	cfg->n = 0;
	at = find_config(argc, argv, file, &width);
	if (at < 0)
		return 0;
	if (!*file || !**file) {
		fprintf(err, PROG ": --config needs a FILE\n");
		return GP_EXIT_USAGE;
	}
	n = table_of(ap, table, 0, 127);
	table[n] = (struct config_opt){ NULL, false };

	/* at start and at each SIGHUP: never blocks, trusts only root's */
	r = safepath_read(*file, CONFIG_MAX_BYTES, &text, &len, msg,
			  sizeof(msg));
	if (r) {
		fprintf(err, PROG ": cannot read --config %s: %s\n", *file,
			msg);
		return GP_EXIT_USAGE;
	}
	r = config_parse(text, len, table, cfg, &ce);
	free(text);
	if (r == -ENOMEM) {
		fprintf(err, PROG ": out of memory reading %s\n", *file);
		return GP_EXIT_FAILURE;
	}
	if (r) {
		if (ce.line)
			fprintf(err, PROG ": %s:%d: %s\n", *file, ce.line, ce.msg);
		else
			fprintf(err, PROG ": %s: %s\n", *file, ce.msg);
		return GP_EXIT_USAGE;
	}
	for (k = 0; k < cfg->n; k++) {
		if (check(ctx, cfg->argv[k], msg, sizeof(msg))) {
			fprintf(err, PROG ": %s:%d: %s\n", *file, cfg->line[k],
				msg);
			config_free(cfg);
			return GP_EXIT_USAGE;
		}
	}
	*nargv = calloc(argc + cfg->n + 1, sizeof(char *));
	if (!*nargv) {
		config_free(cfg);
		return GP_EXIT_FAILURE;
	}
	n = 0;
	(*nargv)[n++] = argv[0];
	for (k = 0; k < cfg->n; k++)
		(*nargv)[n++] = cfg->argv[k];
	for (k = 1; k < argc; k++)
		if (k < at || k >= at + width)
			(*nargv)[n++] = argv[k];
	*nargc = n;
	return 0;
}
