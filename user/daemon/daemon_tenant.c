// SPDX-License-Identifier: GPL-2.0
/*
 * The tenant socket (--tenant-socket) and the operator's named admins
 * (--admin-cgroup); docs/reliability.md, "Trust model".
 *
 * Every peer on the tenant socket is a tenant, whatever its uid or
 * namespace (daemon_peer.c), and it is served only the tenant verbs
 * (daemon_req.c, daemon_module.c). Its directory is apart from the admin
 * socket's, so a pod can mount it without reaching the admin socket;
 * like the admin socket's, it must be root's and not writable by others
 * (daemon_sock.c). Its mode is 0666 (any local user may connect: what a
 * tenant may do is bounded per uid and to its own processes), or 0660
 * with --group.
 *
 * A reload may open, move or close it without touching a hold: the old
 * listener goes only once the new one listens, and connections already
 * accepted stay open.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "util.h"

static bool differs(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a && strcmp(a, b));
}

/*
 * The tenant socket's directory must be neither the admin socket's nor
 * hold it: mounting it into a pod would hand over the admin socket.
 */
static int apart(const char *admin, const char *tenant, struct gp_err *e)
{
	char a[4096], t[4096];
	const char *ad, *td;
	size_t n;

	snprintf(a, sizeof(a), "%s", admin);
	snprintf(t, sizeof(t), "%s", tenant);
	ad = dirname(a);
	td = dirname(t);
	n = strlen(td);
	if (!strcmp(ad, td) || !strcmp(td, "/") ||
	    (!strncmp(admin, td, n) && admin[n] == '/'))
		return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "--tenant-socket "
				  "%s: its directory %s holds the admin socket "
				  "%s too; give it a directory of its own (e.g. "
				  "/run/gpreempt-tenant/), which pods can mount "
				  "without the admin socket", tenant, td,
				  admin);
	return 0;
}

/* Listen on path as the tenant socket: 0, or -1 with e. */
static int open_tenant(struct daemon *d, const char *path, struct gp_err *e)
{
	dev_t dev;
	ino_t ino;
	char *copy;
	int fd;

	if (apart(d->path, path, e))
		return -1;
	copy = strdup(path);
	if (!copy)
		return gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
	/* 0666, or 0660 with --group */
	if (dsock_bind(d, path, d->has_group ? 0117 : 0111, &fd, &dev, &ino,
		       e)) {
		free(copy);
		return -1;
	}
	d->tlfd = fd;
	d->tpath = copy;
	d->tsock_dev = dev;
	d->tsock_ino = ino;
	dlog("tenant socket %s (%s; every peer a tenant)", path,
	     d->has_group ? "the group, 0660" : "anyone, 0666");
	return 0;
}

static void close_tenant(struct daemon *d)
{
	if (d->tlfd < 0)
		return;
	dsock_unlink_ours(d->tpath, d->tsock_dev, d->tsock_ino);
	close(d->tlfd);
	d->tlfd = -1;
	free(d->tpath);
	d->tpath = NULL;
}

static int set_admin_cg(struct daemon *d, const char *path)
{
	char *copy = NULL;

	if (path && !(copy = strdup(path)))
		return -1;
	free(d->admin_cg);
	d->admin_cg = copy;
	if (path)
		dlog("admins also: uid 0 in cgroup %s (--admin-cgroup; never "
		     "on the tenant socket)", path);
	return 0;
}

int dtenant_start(struct daemon *d, struct gp_err *e)
{
	if (set_admin_cg(d, d->o->admin_cgroup))
		return gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
	if (d->o->tenant_socket)
		return open_tenant(d, d->o->tenant_socket, e);
	return 0;
}

void dtenant_reload(struct daemon *d, const struct daemon_opts *n)
{
	int old_fd = d->tlfd;
	char *old_path = d->tpath;
	dev_t old_dev = d->tsock_dev;
	ino_t old_ino = d->tsock_ino;
	struct gp_err e = {};

	if (differs(n->admin_cgroup, d->admin_cg)) {
		if (set_admin_cg(d, n->admin_cgroup))
			dlog_at(LOG_ERR, "reload: out of memory; --admin-cgroup "
				"kept");
		else
			dlog("reload: --admin-cgroup %s applies to new "
			     "connections", d->admin_cg ? d->admin_cg : "off");
	}
	if (!differs(n->tenant_socket, d->tpath))
		return;
	if (!n->tenant_socket) {
		dlog("reload: tenant socket %s closed (its connections stay)",
		     d->tpath);
		close_tenant(d);
		return;
	}
	/* the new one first: a failure keeps the old one serving */
	d->tlfd = -1;
	d->tpath = NULL;
	if (open_tenant(d, n->tenant_socket, &e)) {
		d->tlfd = old_fd;
		d->tpath = old_path;
		dlog_at(LOG_ERR, "reload: tenant socket not moved, %s kept: %s",
			old_path ? old_path : "(none)", e.msg);
		return;
	}
	if (old_fd >= 0) {
		dsock_unlink_ours(old_path, old_dev, old_ino);
		close(old_fd);
		dlog("reload: tenant socket %s closed (its connections stay)",
		     old_path);
	}
	free(old_path);
}

void dtenant_stop(struct daemon *d)
{
	close_tenant(d);
	set_admin_cg(d, NULL);
}
