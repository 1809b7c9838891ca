// SPDX-License-Identifier: GPL-2.0
/* The daemon's client side (ctl_conn.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ctl_conn.h"
#include "exitcodes.h"
#include "gp_notify.h"
#include "usock.h"
#include "util.h"

int ctl_connect(const char *path, int timeout_ms, const char *hint,
		struct gp_err *e)
{
	uint64_t end = monotonic_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	struct timespec ts = { 0, 10 * NSEC_PER_MSEC };
	int fd;

	/* a daemon that does not accept fills its backlog: retry, bounded */
	while ((fd = usock_connect_nb(path)) == -EAGAIN &&
	       monotonic_ns() < end)
		nanosleep(&ts, NULL);
	if (fd < 0)
		return ctl_connect_err(path, -fd, timeout_ms, hint, e);
	if (ctl_peer_root(fd, path, e)) {
		close(fd);
		return -1;
	}
	return fd;
}

int ctl_peer_root(int fd, const char *path, struct gp_err *e)
{
	unsigned int uid = 0;
	int r = usock_peer_uid(fd, &uid);

	if (r)
		return gp_err_set(e, GP_EXIT_DAEMON, -r, "cannot tell who "
				  "serves %s: %s", path, strerror(-r));
	if (uid)
		return gp_err_set(e, GP_EXIT_DAEMON, EPERM, "%s is served by "
				  "uid %u, not root: not a gpreempt daemon, "
				  "or the socket was replaced; nothing was "
				  "sent (check who owns the socket's "
				  "directory)", path, uid);
	return 0;
}

int ctl_connect_err(const char *path, int err, int timeout_ms,
		    const char *hint, struct gp_err *e)
{
	if (err == EAGAIN)
		gp_err_set(e, GP_EXIT_DAEMON, ETIMEDOUT, "the daemon at %s "
			   "accepts no connection (stuck, or serving too "
			   "many): gave up after %d ms", path, timeout_ms);
	else if (err == ENAMETOOLONG || err == EINVAL)
		gp_err_set(e, GP_EXIT_USAGE, err, "bad socket path '%s': %s",
			   path, strerror(err));
	else if (err == EACCES || err == EPERM)
		gp_err_set(e, GP_EXIT_PRIV, err, "cannot connect to the daemon "
			   "at %s: %s: its socket is for root (and the group "
			   "of 'daemon --group'); run as root or join that "
			   "group", path, strerror(err));
	else if (err == ECONNREFUSED || err == ENOENT)
		gp_err_set(e, GP_EXIT_DAEMON, err, "no daemon listens on %s "
			   "(%s): %s", path, strerror(err), hint);
	else
		gp_err_set(e, GP_EXIT_DAEMON, err, "cannot connect to the "
			   "daemon at %s: %s", path, strerror(err));
	return -1;
}

/* Milliseconds left until deadline (monotonic ns), at least 0. */
static int ms_left(uint64_t deadline)
{
	uint64_t now = monotonic_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000 + 1);
}

static int wait_fd(int fd, short ev, uint64_t deadline, struct gp_err *e)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;

	for (;;) {
		r = poll(&p, 1, ms_left(deadline));
		if (r > 0)
			return 0;
		if (r == 0)
			return gp_err_set(e, GP_EXIT_DAEMON, ETIMEDOUT, "the "
					  "daemon did not answer in time: is "
					  "it stuck? ('gpreempt-ctl status "
					  "--no-daemon' shows who holds what)");
		if (errno != EINTR)
			return gp_err_set(e, GP_EXIT_DAEMON, errno, "poll: %s",
					  strerror(errno));
	}
}

static int send_line(int fd, const char *line, size_t len,
		     uint64_t deadline, struct gp_err *e)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		if (wait_fd(fd, POLLOUT, deadline, e))
			return -1;
		n = send(fd, line + off, len - off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return 0;	/* a refusal may be waiting: read it */
		if (n < 0)
			return gp_err_set(e, GP_EXIT_DAEMON, errno, "sending "
					  "to the daemon: %s", strerror(errno));
		off += n;
	}
	return 0;
}

static int too_long(struct gp_err *e)
{
	return gp_err_set(e, GP_EXIT_DAEMON, EPROTO, "malformed reply from "
			  "the daemon: longer than %d bytes (is it the same "
			  "gpreempt version?)", PROTO_MAX_REPLY);
}

int ctl_roundtrip(int fd, const char *line, size_t len,
		  struct proto_reply *r, int timeout_ms, struct gp_err *e)
{
	uint64_t deadline = monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	char buf[PROTO_MAX_LINE];
	size_t have = 0, total = 0;
	ssize_t n;
	char *nl;
	int rc;

	proto_reply_init(r);
	if (send_line(fd, line, len, deadline, e))
		return -1;
	for (;;) {
		/* Complete lines first; the reply ends at ok/err. */
		while ((nl = memchr(buf, '\n', have))) {
			rc = proto_parse_reply_line(buf, nl + 1 - buf, r, e);
			if (rc < 0)
				return -1;
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have);
			if (rc == 1)
				return 0;
		}
		if (have == sizeof(buf))
			return too_long(e);
		if (wait_fd(fd, POLLIN, deadline, e))
			return -1;
		n = recv(fd, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return gp_err_set(e, GP_EXIT_DAEMON, errno, "reading "
					  "from the daemon: %s",
					  strerror(errno));
		if (n == 0)
			return gp_err_set(e, GP_EXIT_DAEMON, ECONNRESET, "the "
					  "daemon closed the connection before "
					  "replying (see its log)");
		have += n;
		total += n;
		if (total > PROTO_MAX_REPLY)
			return too_long(e);
	}
}

int ctl_call(const char *path, const struct proto_req *q,
	     struct proto_reply *r, int timeout_ms, struct gp_err *e)
{
	char line[PROTO_MAX_REQ];
	int fd, n, rc;

	n = proto_format_request(line, sizeof(line), q);
	if (n < 0)
		return gp_err_set(e, GP_EXIT_USAGE, -n, "cannot format the "
				  "request");
	fd = ctl_connect(path, timeout_ms, CTL_HINT_ONESHOT, e);
	if (fd < 0)
		return -1;
	rc = ctl_roundtrip(fd, line, n, r, timeout_ms, e);
	close(fd);
	return rc;
}

/* The reply as it came over the wire (re-formatted from r). */
static void print_wire(const struct proto_reply *r)
{
	static char buf[PROTO_MAX_LINE];
	struct gp_err e = { .exit = r->exit, .err = r->err };
	uint32_t i;

	if (r->has_daemon && proto_format_daemon(buf, sizeof(buf),
						 &r->daemon) > 0)
		fputs(buf, stdout);
	for (i = 0; i < r->n_sessions; i++)
		if (proto_format_session(buf, sizeof(buf),
					 &r->sessions[i]) > 0)
			fputs(buf, stdout);
	if (r->has_op && proto_format_op(buf, sizeof(buf), &r->op) > 0)
		fputs(buf, stdout);
	if (!r->exit) {
		puts("ok");
	} else {
		snprintf(e.msg, sizeof(e.msg), "%s", r->msg);
		if (proto_format_err(buf, sizeof(buf), &e) > 0)
			fputs(buf, stdout);
	}
	fflush(stdout);
}

int ctl_send_raw(const char *path, const char *request)
{
	static struct proto_reply r;
	size_t n = strlen(request);
	struct gp_err e = {};
	char *line;
	int fd, rc;

	/*
	 * Sent as given, "\n" added, not checked here: the daemon judges
	 * it (which is what tests of its refusals need).
	 */
	line = malloc(n + 1);
	if (!line)
		return GP_EXIT_FAILURE;
	memcpy(line, request, n);
	line[n++] = '\n';
	fd = ctl_connect(path, PROTO_TIMEOUT_MS, CTL_HINT_ONESHOT, &e);
	rc = fd < 0 ? -1 : ctl_roundtrip(fd, line, n, &r, PROTO_TIMEOUT_MS,
					 &e);
	if (fd >= 0)
		close(fd);
	free(line);
	if (rc) {
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);
		return e.exit;
	}
	print_wire(&r);
	if (r.exit)
		fprintf(stderr, "gpreempt-ctl: %s\n", r.msg);
	return r.exit;
}

bool ctl_socket_from_env(void)
{
	const char *s = getenv(GP_NOTIFY_SOCKET_ENV);

	return s && *s;
}

const char *ctl_default_socket(void)
{
	return ctl_socket_from_env() ? getenv(GP_NOTIFY_SOCKET_ENV) :
				       PROTO_DEFAULT_SOCKET;
}
