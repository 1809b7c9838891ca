// SPDX-License-Identifier: GPL-2.0
/* The journal of CUDA locks (cuda_journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_journal.h"

uint64_t gp_proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* comm may hold spaces and parentheses: fields count from the
	 * last ')'; starttime is field 22, the 20th after it */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1)
		return 0;
	return v;
}

static int open_locked(const char *path)
{
	char dir[256], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

static int read_all(int fd, struct gp_cjentry *out, int max)
{
	char buf[GP_CUDA_JOURNAL_MAX * 32], *p, *nl;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int k = 0;

	if (n < 0)
		return -errno;
	buf[n] = 0;
	for (p = buf; *p && k < max; p = nl + 1) {
		unsigned long long st, hst = 0;
		int pid, holder = 0;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (sscanf(p, "%d %llu %d %llu", &pid, &st, &holder,
			   &hst) >= 2 && pid > 0)
			out[k++] = (struct gp_cjentry){ pid, st, holder, hst };
	}
	return k;
}

static int write_all(int fd, const struct gp_cjentry *e, int n)
{
	char buf[GP_CUDA_JOURNAL_MAX * 32];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%d %" PRIu64
				" %d %" PRIu64 "\n", e[i].pid, e[i].start,
				e[i].holder, e[i].hstart);
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		return -errno;
	return fsync(fd) ? -errno : 0;
}

int gp_cjournal_add(const char *path, pid_t pid, uint64_t start)
{
	struct gp_cjentry e[GP_CUDA_JOURNAL_MAX];
	int fd = open_locked(path), n, r;

	if (fd < 0)
		return fd;
	n = read_all(fd, e, GP_CUDA_JOURNAL_MAX);
	if (n >= 0 && n == GP_CUDA_JOURNAL_MAX)
		n = -ENOSPC;
	if (n < 0) {
		close(fd);
		return n;
	}
	e[n++] = (struct gp_cjentry){ pid, start, getpid(),
				      gp_proc_start_time(getpid()) };
	r = write_all(fd, e, n);
	close(fd);
	return r;
}

int gp_cjournal_remove(const char *path, pid_t pid, uint64_t start)
{
	struct gp_cjentry e[GP_CUDA_JOURNAL_MAX];
	int fd = open_locked(path), n, k = 0, r;

	if (fd < 0)
		return fd;
	n = read_all(fd, e, GP_CUDA_JOURNAL_MAX);
	for (int i = 0; i < n; i++)
		if (e[i].pid != pid || e[i].start != start)
			e[k++] = e[i];
	r = n < 0 ? n : k == n ? 0 : write_all(fd, e, k);
	close(fd);
	return r;
}

int gp_cjournal_read(const char *path, struct gp_cjentry *out, int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	flock(fd, LOCK_SH);
	n = read_all(fd, out, max);
	close(fd);
	return n;
}

/* A zombie (exited, not yet reaped: a SIGKILLed daemon whose parent has
 * not waited yet) holds nothing any more. */
static bool zombie(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

bool gp_cjournal_orphan(const struct gp_cjentry *e)
{
	return e->holder <= 0 || gp_proc_start_time(e->holder) != e->hstart ||
	       zombie(e->holder);
}

int gp_cjournal_release_all(const char *path, const struct gp_cuda_api *a,
			    void (*log)(void *ctx, const char *line),
			    void *ctx)
{
	struct gp_cjentry e[GP_CUDA_JOURNAL_MAX];
	char line[256];
	int fd = open_locked(path), n, left = 0, k = 0, r, st;

	if (fd < 0)
		return 0;	/* no journal: nothing was recorded */
	n = read_all(fd, e, GP_CUDA_JOURNAL_MAX);
	for (int i = 0; i < n; i++) {
		uint64_t now = gp_proc_start_time(e[i].pid);

		if (!gp_cjournal_orphan(&e[i])) {
			e[k++] = e[i];	/* a live holder's own */
			continue;
		}
		if (now != e[i].start) {
			snprintf(line, sizeof(line), "journal: pid %d %s: not "
				 "unlocked", e[i].pid, now ? "is another "
				 "process now (start time differs)" : "is gone");
			log(ctx, line);
			continue;
		}
		r = a && a->h ? gp_cuda_unlock(a, e[i].pid) : -1;
		if (r == GP_CU_SUCCESS || r == GP_CU_ILLEGAL_STATE ||
		    r == GP_CU_OPERATING_SYSTEM) {
			snprintf(line, sizeof(line), "journal: pid %d %s",
				 e[i].pid, r == GP_CU_SUCCESS ? "unlocked" :
				 "was not locked");
			log(ctx, line);
			continue;
		}
		st = -1;
		if (a && a->h)
			gp_cuda_state(a, e[i].pid, &st);
		snprintf(line, sizeof(line), "journal: pid %d: unlock failed "
			 "(CUresult %d, state %s): kept in the journal",
			 e[i].pid, r, gp_cuda_state_name(st));
		log(ctx, line);
		e[k++] = e[i];
		left++;
	}
	if (n > 0 && k != n)
		write_all(fd, e, k);
	close(fd);
	return left;
}
