/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gzip-compressed POSIX ustar archive, written in one pass (zlib's
 * gzwrite): regular files from memory and directories, names up to 255
 * bytes (prefix + name fields). Enough for `gpreempt-ctl bugreport`; no
 * tar binary needed in the guest or on a minimal node.
 */
#ifndef GP_CTL_TAR_H
#define GP_CTL_TAR_H

#include <stddef.h>
#include <time.h>

struct tar;

/* Create path, which must not exist (O_EXCL, no symlink followed), mode
 * 0600. NULL with errno set (EEXIST: it exists). */
struct tar *tar_open(const char *path, time_t mtime);
/* Add a directory (name without trailing '/'). 0 or -errno. */
int tar_dir(struct tar *t, const char *name);
/* Add a regular file of len bytes. 0 or -errno. */
int tar_file(struct tar *t, const char *name, const void *data, size_t len);
/* End the archive and close it. 0 or -errno (the archive is incomplete). */
int tar_close(struct tar *t);

#endif
