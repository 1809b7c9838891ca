// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's log: one timestamped line per event on stderr, and never
 * a blocking write. Lines go into a bounded buffer flushed without
 * blocking (the loop polls the log fd while the buffer holds something);
 * when nobody reads stderr and the buffer is full, lines are dropped and
 * counted, and the count is logged once there is room again. A daemon
 * whose stderr pipe is full used to stop in fprintf(), every client
 * with it.
 * Under systemd, with stderr connected to the journal ($JOURNAL_STREAM,
 * notify.h), a line starts with its "<N>" syslog priority instead of the
 * timestamp and name, which the journal adds itself (sd-daemon(3)).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon_int.h"
#include "notify.h"

/* Enough for a burst of a few hundred lines. */
#define LOG_BUF (64 * 1024)

static struct {
	int fd;			/* -1: not set up, write stderr as is */
	size_t len;
	uint64_t dropped;
	char buf[LOG_BUF];
} lg = { .fd = -1 };

int dlog_open(void)
{
	struct stat st;
	int fd, fl;

	if (fstat(STDERR_FILENO, &st))
		return -1;
	if (S_ISREG(st.st_mode)) {
		/* a file: writes do not wait for a reader */
		lg.fd = STDERR_FILENO;
		return 0;
	}
	/*
	 * A pipe, FIFO or terminal: a new open file description of it
	 * with O_NONBLOCK, so whoever shares our stderr is not changed.
	 * A socket (journald) cannot be reopened: make it non-blocking.
	 */
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0) {
		fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	lg.fd = fd;
	return 0;
}

void dlog_close(void)
{
	dlog_flush();
	if (lg.fd > STDERR_FILENO)
		close(lg.fd);
	lg.fd = -1;
	lg.len = 0;
}

int dlog_fd(void)
{
	return lg.len ? lg.fd : -1;
}

uint64_t dlog_dropped(void)
{
	return lg.dropped;
}

void dlog_flush(void)
{
	ssize_t n;

	while (lg.len && lg.fd >= 0) {
		n = write(lg.fd, lg.buf, lg.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;	/* later, when poll says so */
		if (n <= 0) {
			/* nobody will ever read it (EPIPE, EIO): drop it,
			 * or poll would report the error forever */
			lg.dropped++;
			lg.len = 0;
			return;
		}
		lg.len -= n;
		memmove(lg.buf, lg.buf + n, lg.len);
	}
}

static int journal = -1;	/* unknown until the first line */

const char *dlog_prefix(int prio)
{
	static const char *const p[] = { "<0>", "<1>", "<2>", "<3>", "<4>",
					 "<5>", "<6>", "<7>" };

	if (journal < 0)
		journal = notify_stderr_is_journal();
	return journal ? p[prio & 7] : "";
}

/* Format one line: "HH:MM:SS.mmm gpreempt-ctl daemon: <msg>\n", or
 * "<N><msg>\n" for the journal. */
static int line(char *b, size_t len, int prio, const char *fmt, va_list ap)
{
	struct timespec ts;
	struct tm tm;
	int n, m;

	if (*dlog_prefix(prio)) {
		n = snprintf(b, len, "%s", dlog_prefix(prio));
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		n = strftime(b, len, "%H:%M:%S", &tm);
		n += snprintf(b + n, len - n, ".%03ld " DAEMON_PROG ": ",
			      ts.tv_nsec / 1000000);
	}
	m = vsnprintf(b + n, len - n - 1, fmt, ap);
	n += m < 0 ? 0 : (size_t)m >= len - n - 1 ? (int)(len - n - 2) : m;
	b[n++] = '\n';
	return n;
}

static void put(const char *b, int n)
{
	if (lg.fd < 0) {
		/* before dlog_open(): start-up errors, as they come */
		fwrite(b, 1, n, stderr);
		return;
	}
	if (lg.len + n > sizeof(lg.buf)) {
		lg.dropped++;
		return;
	}
	memcpy(lg.buf + lg.len, b, n);
	lg.len += n;
}

static void vlog(int prio, const char *fmt, va_list ap)
{
	static uint64_t told;
	char b[1024], note[96];
	int n;

	/* say how much was lost before the next line, once it fits */
	if (lg.dropped > told) {
		n = snprintf(note, sizeof(note), "%s" DAEMON_PROG ": %llu log "
			     "line%s dropped: stderr was not read\n",
			     dlog_prefix(LOG_WARNING),
			     (unsigned long long)(lg.dropped - told),
			     lg.dropped - told == 1 ? "" : "s");
		if (lg.len + n + sizeof(b) <= sizeof(lg.buf)) {
			told = lg.dropped;
			put(note, n);
		}
	}
	n = line(b, sizeof(b), prio, fmt, ap);
	put(b, n);
	dlog_flush();
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
