// SPDX-License-Identifier: GPL-2.0
/* Files and directories the daemon trusts (safepath.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safepath.h"

int safepath_stat(const struct stat *st, const char *path, char *why,
		  size_t len)
{
	const char *what = S_ISDIR(st->st_mode) ? "directory" : "file";
	bool sticky_tmp = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) &&
			  st->st_uid == 0;

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, len, "%s %s is owned by uid %u, not root: "
			 "another user could change it (chown root)", what,
			 path, (unsigned int)st->st_uid);
		return -EPERM;
	}
	if (((st->st_mode & S_IWOTH) && !sticky_tmp) ||
	    ((st->st_mode & S_IWGRP) && st->st_gid != 0)) {
		snprintf(why, len, "%s %s is writable by %s (mode %04o): "
			 "another user could change it (chmod go-w)", what,
			 path, st->st_mode & S_IWOTH ? "everyone" :
			 "its group", (unsigned int)st->st_mode & 07777);
		return -EPERM;
	}
	return 0;
}

int safepath_dirs(const char *path, char *why, size_t len)
{
	char *real = realpath(path, NULL), *slash;
	struct stat st;
	int r = 0;

	if (!real) {
		r = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return r;
	}
	/* from the file's own directory up to the root */
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';
		if (stat(real, &st)) {
			r = -errno;
			snprintf(why, len, "%s: %s", real, strerror(errno));
			break;
		}
		r = safepath_stat(&st, real, why, len);
		if (r || slash == real)
			break;
	}
	free(real);
	return r;
}

int safepath_read(const char *path, size_t max, char **buf, size_t *len,
		  char *why, size_t wlen)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, err;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		snprintf(why, wlen, "%s", strerror(err));
		return -err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(why, wlen, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		snprintf(why, wlen, "not a regular file (a FIFO or device "
			 "could block or feed the daemon for ever)");
		goto fail;
	}
	if ((err = safepath_stat(&st, path, why, wlen)) ||
	    (err = safepath_dirs(path, why, wlen)))
		goto fail;
	*buf = malloc(max + 1);
	if (!*buf) {
		err = -ENOMEM;
		snprintf(why, wlen, "out of memory");
		goto fail;
	}
	/* a regular file never blocks; one byte past max says "too large" */
	while (n < max + 1 && (r = read(fd, *buf + n, max + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			snprintf(why, wlen, "%s", strerror(errno));
			goto fail;
		}
		n += r;
	}
	close(fd);
	*len = n;
	return 0;
fail:
	free(*buf);
	*buf = NULL;
	close(fd);
	return err;
}
