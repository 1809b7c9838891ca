// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's listening socket: --group, a stale or live predecessor,
 * bind with the right mode, removal of our own inode only
 * (daemon_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "safepath.h"
#include "usock.h"
#include "util.h"

/*
 * --group NAME from /etc/group, or a numeric gid. Read directly rather
 * than with getgrnam(): the static build (VM, containers) has no NSS.
 */
int dsock_resolve_group(struct daemon *d, struct gp_err *e)
{
	struct group *g;
	bool found = false;
	uint32_t v;
	FILE *f;

	if (!d->o->group)
		return 0;
	f = fopen("/etc/group", "re");
	while (f && !found && (g = fgetgrent(f))) {
		if (!strcmp(g->gr_name, d->o->group)) {
			d->gid = g->gr_gid;
			found = true;
		}
	}
	if (f)
		fclose(f);
	if (!found && !parse_u32(d->o->group, &v)) {
		d->gid = v;
		found = true;
	}
	if (!found) {
		gp_err_set(e, GP_EXIT_USAGE, ENOENT, "no group '%s' (create "
			   "it with groupadd, or give a numeric gid)",
			   d->o->group);
		return -1;
	}
	d->has_group = true;
	return 0;
}

/* A socket file at path: a live daemon (-1), or stale (unlinked, 0). */
static int clear_stale(const char *path, struct gp_err *e)
{
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		gp_err_set(e, GP_EXIT_USAGE, EEXIST, "%s exists and is not a "
			   "socket: refusing to replace it; choose another "
			   "--socket", path);
		return -1;
	}
	/* non-blocking: a stuck predecessor (full backlog) is live too */
	fd = usock_connect_nb(path);
	if (fd >= 0 || fd == -EAGAIN) {
		if (fd >= 0)
			close(fd);
		gp_err_set(e, GP_EXIT_DAEMON, EADDRINUSE, "another daemon "
			   "already listens on %s: stop it first, or choose "
			   "another --socket", path);
		return -1;
	}
	if (fd != -ECONNREFUSED) {
		gp_err_set(e, fd == -EACCES ? GP_EXIT_PRIV : GP_EXIT_DAEMON,
			   -fd, "cannot tell whether a daemon listens on %s: "
			   "%s", path, strerror(-fd));
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		gp_err_set(e, GP_EXIT_PRIV, errno, "cannot remove the stale "
			   "socket %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Is path still the socket inode st (not replaced, not a link)? */
static bool same_socket(const char *path, const struct stat *st)
{
	struct stat now;

	errno = 0;
	return !lstat(path, &now) && S_ISSOCK(now.st_mode) &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/*
 * Whoever can write the socket's directory can replace the socket and
 * answer root's requests: refuse a directory that is not root's alone.
 */
static int dsock_dir_safe(const char *dir, struct gp_err *e)
{
	struct stat st;
	char why[256];

	if (stat(dir, &st)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "cannot check the "
			   "socket's directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (safepath_stat(&st, dir, why, sizeof(why))) {
		gp_err_set(e, GP_EXIT_USAGE, EPERM, "refusing the socket's "
			   "%s; or choose another --socket", why);
		return -1;
	}
	return 0;
}

int dsock_bind(struct daemon *d, const char *path, mode_t umask_bits,
	       int *fdp, dev_t *dev, ino_t *ino, struct gp_err *e)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)];
	struct stat st;
	mode_t old;
	int fd, r;

	if (usock_addr(path, &sa)) {
		gp_err_set(e, GP_EXIT_USAGE, ENAMETOOLONG, "socket path %s is "
			   "longer than %zu bytes", path,
			   sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(dir, path);
	/* the default /run/gpreempt may not exist yet: create one level */
	if (mkdir(dirname(dir), 0755) && errno != EEXIST) {
		gp_err_set(e, errno == EACCES ? GP_EXIT_PRIV : GP_EXIT_FAILURE,
			   errno, "cannot create %s for the socket: %s", dir,
			   strerror(errno));
		return -1;
	}
	if (dsock_dir_safe(dir, e) || clear_stale(path, e))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "socket: %s",
			   strerror(errno));
		return -1;
	}
	/*
	 * Born with its final mode: no chmod by path later. Root's group
	 * owns it until the chown below.
	 */
	old = umask(umask_bits);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r || lstat(path, &st)) {
		gp_err_set(e, errno == EACCES ? GP_EXIT_PRIV : GP_EXIT_FAILURE,
			   errno, "cannot bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/*
	 * The group by path, but never through a symlink: a user who can
	 * write the socket's directory could swap the socket for a link to
	 * any file between bind and chown. Then check it is still ours.
	 */
	if (d->has_group && (fchownat(AT_FDCWD, path, -1, d->gid,
				      AT_SYMLINK_NOFOLLOW) ||
			     !same_socket(path, &st))) {
		gp_err_set(e, GP_EXIT_PRIV, errno ? errno : EEXIST, "cannot "
			   "give %s to group %s: %s", path, d->o->group,
			   errno ? strerror(errno) : "it was replaced");
		close(fd);
		return -1;
	}
	if (listen(fd, 64)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "listen on %s: %s",
			   path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	*fdp = fd;
	return 0;
}

int dsock_open(struct daemon *d, struct gp_err *e)
{
	/* 0600, or 0660 with --group */
	return dsock_bind(d, d->path, d->has_group ? 0117 : 0177, &d->lfd,
			  &d->sock_dev, &d->sock_ino, e);
}

void dsock_unlink_ours(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	if (!lstat(path, &st) && st.st_dev == dev && st.st_ino == ino)
		unlink(path);
}

/* Remove the socket file if it is still ours (not a successor's). */
void dsock_remove(struct daemon *d)
{
	dsock_unlink_ours(d->path, d->sock_dev, d->sock_ino);
}
