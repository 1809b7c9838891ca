// SPDX-License-Identifier: GPL-2.0
/* /proc readers (procfs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

int procfs_read(pid_t pid, const char *name, char *buf, size_t len)
{
	return procfs_read_at("/proc", pid, name, buf, len);
}

int procfs_read_at(const char *root, pid_t pid, const char *name, char *buf,
		   size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%d/%s", root, (int)pid, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return (int)n;
}

/* The line starting with "key:" in /proc/<pid>/status, after the colon. */
static const char *status_line(pid_t pid, const char *key, char *buf,
			       size_t len)
{
	size_t klen = strlen(key);
	char *p;

	if (procfs_read(pid, "status", buf, len) < 0)
		return NULL;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return p + klen + 1;
	return NULL;
}

long procfs_status(pid_t pid, const char *key)
{
	char buf[4096];
	const char *v = status_line(pid, key, buf, sizeof(buf));

	return v ? strtol(v, NULL, 10) : -1;
}

char *procfs_comm(pid_t pid, char *buf, size_t len)
{
	if (procfs_read(pid, "comm", buf, len) <= 0)
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

pid_t procfs_tracer(pid_t pid)
{
	long t = procfs_status(pid, "TracerPid");

	return t > 0 ? (pid_t)t : 0;
}

int procfs_flags(pid_t pid, unsigned long *flags)
{
	char buf[1024], *p;
	int i, r;

	*flags = 0;
	r = procfs_read(pid, "stat", buf, sizeof(buf));
	if (r < 0)
		return r;
	/* Field 9 (flags) counts from after the ")" closing comm. */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (p)
		*flags = strtoul(p + 1, NULL, 10);
	return 0;
}

int procfs_uids(pid_t pid, uid_t uids[4])
{
	char buf[4096];
	const char *v = status_line(pid, "Uid", buf, sizeof(buf));
	unsigned int u[4];

	if (!v)
		return -ESRCH;
	if (sscanf(v, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) != 4)
		return -EIO;
	uids[0] = u[0];
	uids[1] = u[1];
	uids[2] = u[2];
	uids[3] = u[3];
	return 0;
}

long procfs_yama_scope(void)
{
	char buf[16];
	ssize_t n;
	int fd = open(PROCFS_YAMA_SCOPE, O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

int procfs_cgroup2(pid_t pid, char *buf, size_t len)
{
	char raw[4096], *p;
	int n = procfs_read(pid, "cgroup", raw, sizeof(raw));

	if (n < 0)
		return n;
	for (p = raw; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			n = (int)strcspn(p + 3, "\n");
			if ((size_t)n >= len)
				return -ENAMETOOLONG;
			memcpy(buf, p + 3, n);
			buf[n] = 0;
			return n;
		}
	return -ENOENT;
}

int procfs_cgroup_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!strcmp(prefix, "/"))
		return 1;
	if (!strcmp(path, "/..") || strstr(path, "/../") ||
	    (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
		return 0;
	/* Whole components: /pod1 holds /pod1/x, not /pod12. */
	return !strncmp(path, prefix, n) && (path[n] == 0 || path[n] == '/');
}
