/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Configuration files: the daemon's flags, one per line, turned into
 * argv-style options so the one argument parser judges both (no second
 * home for the options' meaning):
 *
 *	# comment
 *	max-hold 10s           ->  "--max-hold=10s"
 *	socket = /run/x.sock   ->  "--socket=/run/x.sock"
 *	verbose                ->  "--verbose"
 *
 * Pure: text in, options out; the caller reads the file and runs the
 * result through its argp parser. Every option remembers its line, so a
 * value the argument parser rejects is reported with it too.
 */
#ifndef GP_CONFIG_H
#define GP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* What the caller's parser accepts: a long name and whether it takes a
 * value. A NULL name ends a table. */
struct config_opt {
	const char *name;
	bool has_arg;
};

#define CONFIG_MAX_OPTS 128
#define CONFIG_MAX_LINE 1024
#define CONFIG_MAX_BYTES (64 * 1024)

struct config {
	int n;				/* options in argv */
	char *argv[CONFIG_MAX_OPTS];	/* "--name" or "--name=value", malloc'd */
	int line[CONFIG_MAX_OPTS];	/* 1-based source line of argv[i] */
};

struct config_err {
	int line;		/* 0: not about one line (size, count) */
	char msg[192];
};

/*
 * Parse len bytes of text against the table. 0 and *out filled (free with
 * config_free), or -EINVAL with *err set and nothing allocated; -ENOMEM.
 */
int config_parse(const char *text, size_t len, const struct config_opt *opts,
		 struct config *out, struct config_err *err);
void config_free(struct config *c);

#endif
