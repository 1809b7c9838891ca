// SPDX-License-Identifier: GPL-2.0
/* gzip'd ustar writer (ctl_tar.h); the format is POSIX.1-1988 ustar. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ctl_tar.h"

struct tar {
	gzFile gz;
	time_t mtime;
	int err;	/* first error, -errno */
};

struct tar *tar_open(const char *path, time_t mtime)
{
	struct tar *t;
	int fd;

	/* created here, or refused: never a file (or a symlink) that
	 * another user put there first, read by them afterwards or
	 * pointing at one of root's files (issue 31 N9) */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
		  O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t)
		t->gz = gzdopen(fd, "wb9");
	if (!t || !t->gz) {
		free(t);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	t->mtime = mtime;
	return t;
}

static void put(struct tar *t, const void *p, size_t n)
{
	if (!t->err && n && gzwrite(t->gz, p, (unsigned int)n) != (int)n)
		t->err = -EIO;
}

static int header(struct tar *t, const char *name, char type, size_t size)
{
	unsigned char h[512] = {};
	size_t n = strlen(name), cut;
	unsigned int sum = 0, i;

	if (n <= 100) {
		memcpy(h, name, n);
	} else {
		/* split at a '/' so that prefix <= 155 and name <= 100 */
		for (cut = n - 1; cut > 0 && (name[cut] != '/' ||
		     n - cut - 1 > 100); cut--)
			;
		if (!cut || cut > 155)
			return t->err ? t->err : (t->err = -ENAMETOOLONG);
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, n - cut - 1);
	}
	snprintf((char *)h + 100, 8, "%07o", type == '5' ? 0755 : 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	snprintf((char *)h + 136, 12, "%011llo", (unsigned long long)t->mtime);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	put(t, h, sizeof(h));
	return t->err;
}

int tar_dir(struct tar *t, const char *name)
{
	char d[256];

	if (snprintf(d, sizeof(d), "%s/", name) >= (int)sizeof(d))
		return -ENAMETOOLONG;
	return header(t, d, '5', 0);
}

int tar_file(struct tar *t, const char *name, const void *data, size_t len)
{
	static const char zero[512];

	if (header(t, name, '0', len))
		return t->err;
	put(t, data, len);
	put(t, zero, (512 - len % 512) % 512);
	return t->err;
}

int tar_close(struct tar *t)
{
	static const char zero[1024];
	int err;

	put(t, zero, sizeof(zero));	/* two zero blocks end the archive */
	if (gzclose(t->gz) != Z_OK && !t->err)
		t->err = -EIO;
	err = t->err;
	free(t);
	return err;
}
