// SPDX-License-Identifier: GPL-2.0
/* The daemon's log (daemon_int.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "daemon_int.h"

void dlog(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld " DAEMON_PROG ": ", when, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}
