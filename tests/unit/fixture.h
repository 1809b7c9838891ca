/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the unit tests' fixtures are: tests/unit/fixtures/<sub> from the
 * current directory (the work tree), else from the nearest directory above
 * the test binary that has it (.output/tests/x -> the work tree), so a
 * test finds them wherever it is started. $GP_FIXTURES overrides the
 * fixtures directory.
 *	char dir[PATH_MAX];
 *	if (fixture_path("kfd_proc", dir, sizeof(dir))) ... not found
 */
#ifndef GP_FIXTURE_H
#define GP_FIXTURE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 with out set to an existing path, or -1. sub "" is the directory. */
static inline int fixture_path(const char *sub, char *out, size_t len)
{
	char exe[PATH_MAX], rel[256], *slash;
	const char *env = getenv("GP_FIXTURES");
	struct stat st;
	ssize_t n;

	if (env) {
		snprintf(out, len, "%s/%s", env, sub);
		return stat(out, &st) ? -1 : 0;
	}
	snprintf(rel, sizeof(rel), "tests/unit/fixtures/%s", sub);
	if (!stat(rel, &st)) {
		snprintf(out, len, "%s", rel);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = 0;
	while ((slash = strrchr(exe, '/'))) {
		*slash = 0;
		if (snprintf(out, len, "%s/%s", exe, rel) < (int)len &&
		    !stat(out, &st))
			return 0;
	}
	return -1;
}

#endif
