/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files and directories the daemon trusts (its --config, its socket's
 * directory) must be out of other users' reach: owned by root (or by the
 * daemon's own uid, for tests run unprivileged), not writable by others
 * nor by a group other than root's. A world-writable directory passes
 * only with the sticky bit and root as owner (/tmp): there nobody else
 * can rename or remove root's entries. Messages say what to fix.
 */
#ifndef GP_SAFEPATH_H
#define GP_SAFEPATH_H

#include <stddef.h>
#include <sys/stat.h>

/* 0 when st (of path, a "file" or "directory" per what) is safe, else
 * -EPERM with why. */
int safepath_stat(const struct stat *st, const char *path, char *why,
		  size_t len);
/* Every directory of path's real location, up to "/": 0 or -errno. */
int safepath_dirs(const char *path, char *why, size_t len);
/*
 * Read a trusted file without ever waiting on another process: opened
 * O_NONBLOCK (a FIFO cannot block the open, and is refused), a regular
 * file only, safe itself and on its directory path, at most max bytes
 * (one more is read, so *len > max says "too large"). 0 and *buf
 * (malloc'd), or -errno with why.
 */
int safepath_read(const char *path, size_t max, char **buf, size_t *len,
		  char *why, size_t wlen);

#endif
