/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture what a printer writes to a FILE into a string, for golden
 * output checks:  FILE *f = capture_open(); print(f); s = capture_done(f);
 * The string stays valid until the next capture_open().
 */
#ifndef GP_CAPTURE_H
#define GP_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

static char *capture_buf;
static size_t capture_len;

static inline FILE *capture_open(void)
{
	free(capture_buf);
	capture_buf = NULL;
	return open_memstream(&capture_buf, &capture_len);
}

static inline const char *capture_done(FILE *f)
{
	fclose(f);
	return capture_buf;
}

#endif
