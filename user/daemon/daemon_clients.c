// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's connections: accept with the peer's credentials, read
 * request lines, flush the replies daemon_reply.c queued without ever
 * blocking (daemon_int.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "util.h"

/* Supplementary groups looked at for --group (SO_PEERGROUPS). */
#define MAX_PEER_GROUPS 256

void client_close(struct daemon *d, uint32_t i)
{
	struct client *c = d->c[i];
	uint32_t j;

	dmod_client_closed(d, c);	/* e.g. its busy ends */
	/* a suspend in flight for it completes unanswered */
	for (j = 0; j < d->n_t; j++)
		if (d->t[j].op_client == c)
			d->t[j].op_client = NULL;
	close(c->fd);
	free(c->out);
	free(c);
	d->c[i] = d->c[--d->n_c];
}

/* Flush what can be sent now. -1 when the client is to be closed. */
static int client_flush(struct client *c)
{
	ssize_t n;

	while (c->out_len) {
		n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL |
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		c->out_len -= n;
		memmove(c->out, c->out + n, c->out_len);
		c->last_ns = monotonic_ns();
	}
	return c->closing ? -1 : 0;
}

/*
 * Root, our own uid, or (with --group) a member of the group; on the
 * tenant socket without --group, anyone (a tenant: daemon_tenant.c). The
 * socket mode keeps others out already; this is the check that does not
 * depend on the file system (a chmod'ed socket, a bind-mounted directory).
 */
static bool peer_allowed(struct daemon *d, int fd, const struct ucred *uc,
			 bool tenant)
{
	gid_t groups[MAX_PEER_GROUPS];
	socklen_t len = sizeof(groups);
	size_t i;

	if (uc->uid == 0 || uc->uid == geteuid())
		return true;
	if (!d->has_group)
		return tenant;
	if (uc->gid == d->gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == d->gid)
			return true;
	return false;
}

void client_accept(struct daemon *d, int lfd, bool tenant)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	struct client *c;
	struct gp_err e = {};
	uint32_t evict;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	c = calloc(1, sizeof(*c));
	if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len)) {
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->uid = uc.uid;
	c->pid = uc.pid;
	c->last_ns = monotonic_ns();
	c->tenant_sock = tenant;
	peer_identify(d, fd, &uc, c);
	/* authorized first: a refused peer takes no slot, evicts nobody */
	if (!peer_allowed(d, fd, &uc, tenant)) {
		dlog_at(LOG_WARNING, "refused pid %d uid %u gid %u: not root%s%s", uc.pid,
		      uc.uid, uc.gid, d->has_group ? " nor in group " : "",
		      d->has_group ? d->o->group : "");
		gp_err_set(&e, GP_EXIT_PRIV, EACCES, "permission denied: uid "
			   "%u may not use this daemon (root only%s%s); run as "
			   "root%s", uc.uid, d->has_group ? ", or group " : "",
			   d->has_group ? d->o->group : "",
			   d->has_group ? " or join the group" : "");
		c->closing = true;
	} else if (peer_admit(d, c, &evict, &e)) {
		dm_clients_rejected();
		c->closing = true;
	} else if (evict < d->n_c) {
		client_close(d, evict);
	}
	if (c->closing) {
		/* answer once, whatever the request, and hang up */
		reply_err(c, &e);
		client_flush(c);
		close(fd);
		free(c->out);
		free(c);
		return;
	}
	d->c[d->n_c++] = c;
}

/* Complete lines, in order; none while a reply is deferred. */
static void serve_lines(struct daemon *d, struct client *c)
{
	size_t used;
	char *nl;

	while (!c->closing && !c->deferred &&
	       (nl = memchr(c->in, '\n', c->in_len))) {
		used = nl + 1 - c->in;
		daemon_request(d, c, c->in, used);
		c->in_len -= used;
		memmove(c->in, c->in + used, c->in_len);
	}
}

void client_defer(struct client *c)
{
	c->deferred = true;
}

void client_undefer(struct daemon *d, struct client *c)
{
	c->deferred = false;
	c->last_ns = monotonic_ns();
	serve_lines(d, c);
}

/* Read and serve complete lines. -1 when the client is to be closed. */
static int client_read(struct daemon *d, struct client *c)
{
	struct gp_err e = {};
	ssize_t n;

	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
		 MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;	/* a partial line without "\n" is dropped */
	c->last_ns = monotonic_ns();
	c->in_len += n;
	serve_lines(d, c);
	if (c->in_len == sizeof(c->in)) {
		/* no way to find the next request: say why and hang up */
		gp_err_set(&e, GP_EXIT_USAGE, E2BIG, "request longer than %d "
			   "bytes", PROTO_MAX_REQ - 1);
		dlog_at(LOG_WARNING, "refused a request from pid %d uid %u: %s", c->pid,
		      c->uid, e.msg);
		reply_err(c, &e);
		c->closing = true;
	}
	return client_flush(c);
}

void client_event(struct daemon *d, uint32_t i, short ev)
{
	struct client *c = d->c[i];
	int r;

	/* its deferred reply came from a completion (daemon_req.c): serve
	 * the lines that waited */
	if (c->answered) {
		c->answered = false;
		client_undefer(d, c);
	}
	if (!ev)
		return;
	if (ev & (POLLERR | POLLNVAL))
		r = -1;
	else if (c->out_len)
		r = client_flush(c);
	else
		r = client_read(d, c);
	if (r < 0)
		client_close(d, i);
}

void clients_expire(struct daemon *d, uint64_t now)
{
	uint32_t i;

	for (i = d->n_c; i-- > 0;) {
		struct client *c = d->c[i];

		if (c->waiting || c->deferred ||
		    now - c->last_ns < d->idle_ns ||
		    dmod_keeps(d, c))
			continue;
		dlog("closed the connection of pid %d uid %u: %s for %.3f s",
		     c->pid, c->uid, c->out_len ? "not reading its reply" :
		     "idle", (double)d->idle_ns / NSEC_PER_SEC);
		client_close(d, i);
	}
}
