// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's log (daemon_int.h). On a terminal or a file: a local
 * timestamp and the program name. Under systemd, with stderr connected
 * to the journal: the "<N>" syslog priority prefix instead, as
 * sd-daemon(3) defines, since the journal stamps and names each line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "daemon_int.h"
#include "notify.h"

static int journal = -1;	/* unknown until the first line */

const char *dlog_prefix(int prio)
{
	static const char *const p[] = { "<0>", "<1>", "<2>", "<3>", "<4>",
					 "<5>", "<6>", "<7>" };

	if (journal < 0)
		journal = notify_stderr_is_journal();
	return journal ? p[prio & 7] : "";
}

static void vlog(int prio, const char *fmt, va_list ap)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	if (*dlog_prefix(prio)) {
		fputs(dlog_prefix(prio), stderr);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld " DAEMON_PROG ": ", when,
			ts.tv_nsec / 1000000);
	}
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void dlog(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void dlog_at(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(prio, fmt, ap);
	va_end(ap);
}
