// SPDX-License-Identifier: GPL-2.0
/* Ready files (pidfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "pidfile.h"

int pidfile_write(const char *path)
{
	char buf[32], tmp[PATH_MAX];
	int fd, n, err;

	/*
	 * Write FILE.tmp then rename: a test waiting for FILE sees it
	 * whole. O_EXCL | O_NOFOLLOW: a symlink at FILE.tmp is never
	 * followed (a stale one is removed first), and rename() replaces
	 * a symlink at FILE instead of writing where it points.
	 */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -errno;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (unlink(tmp) && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n) {
		err = errno ? errno : EIO;
		close(fd);
		unlink(tmp);
		errno = err;
		return -err;
	}
	close(fd);
	if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		errno = err;
		return -err;
	}
	return 0;
}
