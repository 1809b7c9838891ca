// SPDX-License-Identifier: GPL-2.0
/* A process described from its /proc files (proc_desc.h): the I/O half
 * of the classifier, apart from select.c's pure matching. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "proc_desc.h"
#include "procfs.h"

/* A small /proc file (procfs.h); its length, -ESRCH when the process
 * is gone, or -errno. */
static ssize_t slurp(const char *root, int pid, const char *name, char *buf,
		     size_t len)
{
	int n = procfs_read_at(root, pid, name, buf, len);

	return n == -ENOENT ? -ESRCH : n;
}

int gp_proc_describe(const char *root, int pid, struct gp_proc_desc *d)
{
	char buf[4096], *p;
	ssize_t n, i;
	unsigned int uid;

	memset(d, 0, sizeof(*d));
	d->pid = pid;
	n = slurp(root, pid, "status", buf, sizeof(buf));
	if (n < 0)
		return n;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%u", &uid) != 1)
		return -EPROTO;
	d->uid = uid;
	n = slurp(root, pid, "comm", d->comm, sizeof(d->comm));
	if (n < 0)
		return n;
	d->comm[strcspn(d->comm, "\n")] = 0;
	/* Kernel threads and zombies have an empty cmdline: fine. */
	n = slurp(root, pid, "cmdline", d->cmdline, sizeof(d->cmdline));
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (!d->cmdline[i])
			d->cmdline[i] = ' ';
	while (n > 0 && d->cmdline[n - 1] == ' ')
		d->cmdline[--n] = 0;
	n = slurp(root, pid, "cgroup", buf, sizeof(buf));
	if (n < 0)
		return n;
	/* cgroup v2: the line "0::/path"; v1 lines are ignored. */
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			snprintf(d->cgroup, sizeof(d->cgroup), "%.*s",
				 (int)strcspn(p + 3, "\n"), p + 3);
			break;
		}
	n = slurp(root, pid, "stat", buf, sizeof(buf));
	if (n < 0)
		return n;
	/* After the comm's ")" (it may hold spaces and parentheses):
	 * state is field 3, starttime field 22. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 (unsigned long long *)&d->start) != 1)
		return -EPROTO;
	return 0;
}
