/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ready and go files, for the programs a test or a benchmark paces
 * (tests/rocr/hip-launch, bench/rocr-store): the program writes READY
 * once it is loaded, and before each round waits until GO exists and
 * removes it, so the driver attaches, detaches or counts in between
 * with no sleep.
 */
#ifndef GP_TESTS_GOFILE_H
#define GP_TESTS_GOFILE_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline void gofile_ready(const char *ready)
{
	FILE *f;

	if (ready && (f = fopen(ready, "w")))
		fclose(f);
}

static inline void gofile_wait(const char *go)
{
	struct timespec ms = { 0, 1000000 };

	if (!go)
		return;
	while (access(go, F_OK))
		nanosleep(&ms, NULL);
	unlink(go);
}

#endif
