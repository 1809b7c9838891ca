// SPDX-License-Identifier: GPL-2.0
/*
 * Who a peer is (docs/reliability.md, "Trust model"): an admin is node
 * root in the daemon's own PID and user namespaces; anyone else is a
 * tenant, a container's root included (its uid is 0 but it is not the
 * node's root). A tenant acts only on its own processes, and a tenant in
 * another PID namespace only on processes of that namespace.
 *
 * The namespaces are read from /proc/PID/ns of the peer: a procfs inode,
 * never the peer's memory, so this cannot block on the peer. The pid
 * could be reused between the connect and the read; the peer's pidfd
 * (SO_PEERPIDFD, Linux 6.5) still being alive afterwards proves the read
 * named the peer. Without it (older kernels), a failed read makes a
 * tenant, never an admin.
 *
 * Two exceptions, both the operator's: every peer of the tenant socket
 * is a tenant (daemon_tenant.c), and --admin-cgroup names admins in
 * other namespaces (named_admin).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "procfs.h"
#include "util.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The inode of /proc/PID/ns/NAME (PID 0: ourselves), 0 when unknown. */
static uint64_t ns_ino(pid_t pid, const char *name)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

/* Still the process that connected? (no pidfd: cannot tell, say yes) */
static bool same_peer(int pidfd)
{
	if (pidfd < 0)
		return true;
	return !syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
}

/*
 * --admin-cgroup: uid 0 (in our user namespace) in that cgroup or below
 * it. The cgroup is the container runtime's choice (the kubelet names it
 * after the pod's UID), never the peer's: a process cannot leave its
 * cgroup namespace's subtree, and comm or argv play no part. Only with a
 * pidfd, which proves the read named the peer (a reused pid could
 * otherwise lend its cgroup).
 */
static bool named_admin(const struct daemon *d, const struct ucred *uc,
			int pidfd)
{
	char cg[512];

	return d->admin_cg && uc->uid == 0 && pidfd >= 0 &&
	       procfs_cgroup2(uc->pid, cg, sizeof(cg)) >= 0 &&
	       procfs_cgroup_under(cg, d->admin_cg);
}

void peer_identify(const struct daemon *d, int fd, const struct ucred *uc,
		   struct client *c)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;
	bool named;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		pidfd = -1;
	c->pidns = ns_ino(uc->pid, "pid");
	c->userns = ns_ino(uc->pid, "user");
	named = !c->tenant_sock && named_admin(d, uc, pidfd);
	if (!same_peer(pidfd)) {
		c->pidns = c->userns = 0;
		named = false;
	}
	if (pidfd >= 0)
		close(pidfd);
	c->foreign = !c->pidns || !c->userns ||
		     c->pidns != ns_ino(0, "pid") ||
		     c->userns != ns_ino(0, "user");
	/* on the tenant socket nobody is admin, node root included */
	c->admin = !c->tenant_sock && (named || (!c->foreign &&
		   (uc->uid == 0 || uc->uid == geteuid())));
	if (named && c->foreign && d->o->verbose)
		dlog("pid %d uid 0 in another namespace is admin: its cgroup "
		     "is under --admin-cgroup %s", uc->pid, d->admin_cg);
}

int peer_may_act(const struct client *c, pid_t pid)
{
	if (c->admin || !c->foreign || pid == c->pid)
		return 0;
	/* A container acts inside its own PID namespace only (unknown when
	 * the peer's namespace could not be read: refused). */
	return c->pidns && ns_ino(pid, "pid") == c->pidns ? 0 : -EPERM;
}

/* Connections of uid held by tenants. */
static uint32_t conns_of(const struct daemon *d, uid_t uid)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->n_c; i++)
		n += !d->c[i]->admin && d->c[i]->uid == uid;
	return n;
}

/* Connections held by tenants. */
static uint32_t tenants(const struct daemon *d)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->n_c; i++)
		n += !d->c[i]->admin;
	return n;
}

/*
 * Room for an admin in a full table: the connection idle the longest
 * that neither waits for a suspend nor has a busy open, into *evict for
 * the caller to close (it owns the table: daemon_clients.c).
 */
static bool make_room(struct daemon *d, uint32_t *evict)
{
	uint32_t i, best = d->n_c;

	for (i = 0; i < d->n_c; i++) {
		const struct client *c = d->c[i];

		if (c->waiting || c->deferred || c->out_len ||
		    dmod_client_busy(d, c))
			continue;
		if (best == d->n_c || c->last_ns < d->c[best]->last_ns)
			best = i;
	}
	if (best == d->n_c)
		return false;
	dlimit(GP_LIMIT_EVICTED, "closed the idle connection of pid %d "
		   "uid %u: the table is full and an admin connects",
		   d->c[best]->pid, d->c[best]->uid);
	*evict = best;
	return true;
}

int peer_admit(struct daemon *d, const struct client *c, uint32_t *evict,
	       struct gp_err *e)
{
	*evict = d->n_c;
	if (c->admin && d->n_c == DAEMON_MAX_CLIENTS && !make_room(d, evict)) {
		dlimit(GP_LIMIT_CLIENTS, "refused admin pid %d: %d "
			   "connections, none idle", c->pid,
			   DAEMON_MAX_CLIENTS);
		return gp_err_set(e, GP_EXIT_DAEMON, EMFILE, "the daemon serves "
				  "%d clients already, none of them idle: try "
				  "again later", DAEMON_MAX_CLIENTS);
	}
	if (c->admin)
		return 0;
	if (d->n_c == DAEMON_MAX_CLIENTS ||
	    tenants(d) >= DAEMON_MAX_CLIENTS - DAEMON_ROOT_SLOTS) {
		/* root can always get in: to see and end what others do */
		dlimit(GP_LIMIT_CLIENTS, "refused pid %d uid %u: %d "
			   "tenant connections, the limit", c->pid, c->uid,
			   DAEMON_MAX_CLIENTS - DAEMON_ROOT_SLOTS);
		return gp_err_set(e, GP_EXIT_DAEMON, EMFILE, "the daemon serves "
				  "%d non-root clients already, its limit (%d "
				  "more slots are kept for root): try again "
				  "later", DAEMON_MAX_CLIENTS - DAEMON_ROOT_SLOTS,
				  DAEMON_ROOT_SLOTS);
	}
	if (conns_of(d, c->uid) >= DAEMON_MAX_CONN_PER_UID) {
		dlimit(GP_LIMIT_CLIENTS_UID, "refused pid %d uid %u: "
			   "%d connections of that uid, the limit", c->pid,
			   c->uid, DAEMON_MAX_CONN_PER_UID);
		return gp_err_set(e, GP_EXIT_DAEMON, EMFILE, "uid %u has %d "
				  "connections open, the limit per user: close "
				  "one first", c->uid, DAEMON_MAX_CONN_PER_UID);
	}
	return 0;
}
