/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the kit's HIP stand-ins (online.hip, offline.hip): the boot
 * clock (it lines up with gpreempt-trace's ts_boot_ns) and the arbiter's
 * notify client: "busy" / "idle" lines on the daemon's socket, each
 * answered by INFO lines and a final "ok" or "err ..." line (the daemon's
 * line protocol, issue 10: busy/idle belong to this connection and end
 * when it closes).
 */
#ifndef GP_L3_COMMON_H
#define GP_L3_COMMON_H

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static inline unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The wall clock, to place a request beside the daemon's log lines
 * (HH:MM:SS.mmm, CLOCK_REALTIME) in bench/cuda/report.py's table. */
static inline unsigned long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Connect to the daemon's socket; fd or -1 (message printed). */
static inline int notify_open(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("notify: connect");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Send "busy" or "idle", wait for the final reply line. 0 when "ok". */
static inline int notify(int fd, const char *verb)
{
	char line[512];
	size_t n = 0;
	char c;

	if (fd < 0)
		return 0;
	snprintf(line, sizeof(line), "%s\n", verb);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return -1;
	for (;;) {
		if (read(fd, &c, 1) != 1)
			return -1;
		if (c != '\n') {
			if (n + 1 < sizeof(line))
				line[n++] = c;
			continue;
		}
		line[n] = 0;
		n = 0;
		if (!strcmp(line, "ok"))
			return 0;
		if (!strncmp(line, "err", 3)) {
			fprintf(stderr, "notify %s: %s\n", verb, line);
			return -1;
		}
	}
}

#endif
