// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gp_notify: the arbiter's tiny client (gp_notify.h). libc only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* struct ucred, for a copy built without it */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gp_notify.h"

int gp_notify_open(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct ucred uc;
	socklen_t ucl = sizeof(uc);
	int fd;

	if (!path)
		path = getenv(GP_NOTIFY_SOCKET_ENV);
	if (!path || !*path)
		path = GP_NOTIFY_DEFAULT_SOCKET;
	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int err = errno;

		close(fd);
		return -err;
	}
	/* The server's credentials at listen(): anyone who could replace
	 * the socket file must not be able to answer "ok" to a busy. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ucl) || uc.uid) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Reads one reply: INFO lines are skipped, "ok" / "err EXIT ERRNO MSG". */
static int reply(int fd, char *msg, unsigned long len)
{
	char buf[1024];
	size_t n = 0;
	char *nl;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		while ((nl = memchr(buf, '\n', n))) {
			*nl = 0;
			if (!strcmp(buf, "ok"))
				return 0;
			if (!strncmp(buf, "err ", 4)) {
				int ex = 1, off = 0;

				sscanf(buf + 4, "%d %*d %n", &ex, &off);
				if (msg && len)
					snprintf(msg, len, "%s", buf + 4 + off);
				return ex > 0 ? ex : 1;
			}
			n -= nl + 1 - buf;
			memmove(buf, nl + 1, n);
		}
		if (n == sizeof(buf))
			return -EPROTO;
		r = poll(&p, 1, GP_NOTIFY_TIMEOUT_MS);
		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r < 0)
			continue;
		r = read(fd, buf + n, sizeof(buf) - n);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			n += r;
	}
}

/*
 * The daemon closes a connection that stays quiet for its idle timeout
 * (30 s) with no busy open; a server keeps its fd for life. So before a
 * request, a connection the daemon has hung up is opened again on the
 * path it was connected to (getpeername), on the same fd number (dup3):
 * nothing was sent on the closed one, so nothing is sent twice. A
 * socket with no path (a socketpair) is left as it is and the request
 * fails as before. 0, or the reopen's -errno.
 */
static int reopen_if_closed(int fd)
{
	struct pollfd p = { fd, POLLRDHUP, 0 };
	struct sockaddr_un a;
	socklen_t al = sizeof(a);
	char path[sizeof(a.sun_path) + 1];
	size_t n;
	int nfd, r;

	if (poll(&p, 1, 0) != 1 || !(p.revents & (POLLRDHUP | POLLHUP)))
		return 0;
	if (getpeername(fd, (struct sockaddr *)&a, &al) ||
	    al <= offsetof(struct sockaddr_un, sun_path) || !a.sun_path[0])
		return 0;
	n = al - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, a.sun_path, n);
	path[n] = 0;
	nfd = gp_notify_open(path);
	if (nfd < 0)
		return nfd;
	r = dup3(nfd, fd, O_CLOEXEC);
	close(nfd);
	return r < 0 ? -errno : 0;
}

int gp_notify_send(int fd, const char *line, char *msg, unsigned long len)
{
	size_t n = strlen(line), off = 0;
	int r = reopen_if_closed(fd);

	if (r)
		return r;
	while (off < n) {
		ssize_t w = send(fd, line + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno != EINTR)
			return -errno;
		if (w > 0)
			off += w;
	}
	r = reply(fd, msg, len);
	/*
	 * No answer in time (or not one we understand): the reply may
	 * still come, and would be read as the next request's answer.
	 * End the connection (the daemon ends its busy with it); every
	 * later call on fd fails until the caller opens a new one.
	 */
	if (r == -ETIMEDOUT || r == -EPROTO)
		shutdown(fd, SHUT_RDWR);
	return r;
}

int gp_notify_busy(int fd)
{
	return gp_notify_send(fd, "busy\n", NULL, 0);
}

int gp_notify_idle(int fd)
{
	return gp_notify_send(fd, "idle\n", NULL, 0);
}

static int send_gpus(int fd, const char *verb, const unsigned int *ids,
		     int n)
{
	char line[16 + 11 * 64];
	int i, off;

	if (n < 0 || n > 64)
		return -EINVAL;
	off = snprintf(line, sizeof(line), "%s", verb);
	for (i = 0; i < n; i++) {
		if (!ids[i])
			return -EINVAL;
		off += snprintf(line + off, sizeof(line) - off, "%s%u",
				i ? "," : " gpu=", ids[i]);
	}
	snprintf(line + off, sizeof(line) - off, "\n");
	return gp_notify_send(fd, line, NULL, 0);
}

int gp_notify_busy_gpus(int fd, const unsigned int *gpu_ids, int n)
{
	return send_gpus(fd, "busy", gpu_ids, n);
}

int gp_notify_idle_gpus(int fd, const unsigned int *gpu_ids, int n)
{
	return send_gpus(fd, "idle", gpu_ids, n);
}

void gp_notify_close(int fd)
{
	close(fd);
}
