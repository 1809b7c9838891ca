// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector's user side: find the process's GPU runtime
 * library (libamdhip64 or libcuda: detect_libs.c) in its /proc/PID/maps,
 * and the entry points' file offsets in its .dynsym.
 * Everything read here is the tenant's: maps lines are read whole (a
 * mapped path may be longer than PATH_MAX: a cut line's tail must not
 * read as an entry of its own), the file is the mapping itself
 * (/proc/PID/map_files) or a regular file with the mapping's device and
 * inode, opened with O_NOCTTY|O_NONBLOCK (never a terminal for the
 * daemon, never a FIFO's wait), and the ELF is read with pread into
 * private buffers within bounds (a file truncated meanwhile reads short,
 * where an mmap would SIGBUS). detect_elf.c reads the ELF.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "detect_launch.h"
#include "text.h"

bool gp_dl_parse_map(const char *s, size_t len, struct gp_dl_map *m)
{
	char perms[8];
	int pos = 0;

	memset(m, 0, sizeof(*m));
	m->rt = m->also = -1;
	/* a line is one string: sscanf must not run past its end */
	if (!len || memchr(s, 0, len) != s + len - 1)
		return false;
	if (sscanf(s, "%llx-%llx %7s %llx %x:%x %llu %n", &m->start, &m->end,
		   perms, &m->off, &m->maj, &m->min, &m->ino, &pos) < 7)
		return false;
	if (pos && (size_t)pos < len) {
		const char *p = s + pos;
		size_t n = strcspn(p, "\n");

		m->rt = gp_dl_runtime_of(p, n);
		m->deleted = n >= 10 && !memcmp(p + n - 10, " (deleted)", 10);
		/* for messages: control bytes and invalid UTF-8 as '?' */
		gp_text_safe(m->path, sizeof(m->path), p, n);
		/* for the path walk (open_mapped's fallback), whole or not */
		if (n < sizeof(m->raw))
			memcpy(m->raw, p, n);
		else
			m->raw_cut = true;
	}
	return true;
}

/*
 * The first GPU runtime library's mapping in maps, read whole line by
 * whole line (getline: any length). One runtime is probed per process:
 * when both are mapped, HIP's (the AMD runtime this detector was built
 * for), and m->also names the other. 1 found, 0 not, -errno read error.
 */
int gp_dl_maps_find(FILE *f, struct gp_dl_map *m)
{
	struct gp_dl_map *t = malloc(sizeof(*t));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int found = 0, also = -1;

	if (!t)
		return -ENOMEM;
	errno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (!gp_dl_parse_map(line, n + 1, t) || !t->ino || t->rt < 0)
			continue;
		if (!found) {
			*m = *t;
			found = 1;
		} else if (t->rt != m->rt) {
			if (t->rt == GP_RT_HIP) {
				also = m->rt;
				*m = *t;
			} else {
				also = t->rt;
			}
			break;	/* both runtimes seen */
		}
	}
	if (!found && ferror(f))
		found = errno ? -errno : -EIO;
	if (found > 0)
		m->also = also;
	free(t);
	free(line);
	return found;
}

static FILE *open_maps(const char *proc_root, pid_t pid)
{
	char p[PATH_MAX];
	FILE *f;
	int fd;

	snprintf(p, sizeof(p), "%s/%d/maps", proc_root, pid);
	fd = open(p, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* 0: fd is the mapping's file; -EINVAL not a regular file; -ESTALE
 * another file (replaced since it was mapped). */
static int same_file(int fd, const struct gp_dl_map *m)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return st.st_ino == m->ino && major(st.st_dev) == m->maj &&
	       minor(st.st_dev) == m->min ? 0 : -ESTALE;
}

#define OPEN_FLAGS (O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)

/*
 * The mapped file, opened as the mapping itself: /proc/PID/map_files/
 * START-END (the kernel's link to the mapping's file: no path of the
 * tenant's is walked; needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE).
 * Without that capability: the path through the process's root, first
 * with O_PATH (no device's open runs, no FIFO waits), checked to be a
 * regular file with the mapping's device and inode, then reopened
 * through /proc/self/fd (the inode just checked). Either way fstat on
 * the fd must show that file. lib->open_path names it for the uprobes.
 */
static int open_mapped(const char *proc_root, pid_t pid,
		       const struct gp_dl_map *m, struct gp_dl_lib *lib)
{
	char p[64];
	int fd, pfd, err;

	snprintf(lib->open_path, sizeof(lib->open_path),
		 "%s/%d/map_files/%llx-%llx", proc_root, pid, m->start, m->end);
	fd = open(lib->open_path, OPEN_FLAGS);
	if (fd >= 0 || (errno != EPERM && errno != EACCES && errno != ENOENT))
		goto check;
	if (m->deleted)
		return -ESTALE;
	if (m->raw_cut || m->raw[0] != '/')
		return -ENAMETOOLONG;
	/* through the process's root: a container's file is reachable too */
	if ((size_t)snprintf(lib->open_path, sizeof(lib->open_path),
			     "%s/%d/root%s", proc_root, pid, m->raw) >=
	    sizeof(lib->open_path))
		return -ENAMETOOLONG;
	pfd = open(lib->open_path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	err = same_file(pfd, m);
	if (err) {
		close(pfd);
		return err;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	fd = open(p, OPEN_FLAGS);
	close(pfd);
check:
	if (fd < 0)
		return -errno;
	err = same_file(fd, m);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int find_lib(const char *proc_root, pid_t pid, struct gp_dl_map *m)
{
	FILE *f = open_maps(proc_root, pid);
	int r;

	if (!f)
		return -errno;
	r = gp_dl_maps_find(f, m);
	fclose(f);
	return r;
}

int gp_dl_scan(const char *proc_root, pid_t pid, struct gp_dl_lib *lib)
{
	struct gp_dl_map *m;
	int err, fd;

	memset(lib, 0, sizeof(*lib));
	lib->pid = pid;
	m = malloc(sizeof(*m));
	if (!m) {
		snprintf(lib->reason, sizeof(lib->reason), "out of memory");
		return -ENOMEM;
	}
	err = find_lib(proc_root, pid, m);
	if (!err) {
		err = -ENOENT;
		snprintf(lib->reason, sizeof(lib->reason),
			 "no GPU runtime library (libamdhip64 or libcuda) mapped "
			 "(not a GPU process, or its runtime not loaded yet)");
		goto out;
	}
	if (err < 0) {
		snprintf(lib->reason, sizeof(lib->reason),
			 "cannot read /proc/%d/maps: %s", pid, strerror(-err));
		goto out;
	}
	snprintf(lib->path, sizeof(lib->path), "%s", m->path);
	lib->rt = m->rt;
	lib->dev = makedev(m->maj, m->min);
	lib->ino = m->ino;
	fd = open_mapped(proc_root, pid, m, lib);
	if (fd < 0) {
		err = fd;
		snprintf(lib->reason, sizeof(lib->reason), "%.160s %s", m->path,
			 err == -ESTALE ? (m->deleted ?
			 "was deleted after it was mapped: restart the process to watch it" :
			 "is no longer the mapped file (replaced): restart the process to watch it") :
			 err == -EINVAL ? "is not a regular file (not read)" :
			 err == -ENAMETOOLONG ? "has a path too long to open" :
			 "cannot be opened");
		if (err != -ESTALE && err != -ENAMETOOLONG && err != -EINVAL)
			snprintf(lib->reason + strlen(lib->reason),
				 sizeof(lib->reason) - strlen(lib->reason),
				 ": %s", strerror(-err));
		goto out;
	}
	err = gp_dl_resolve_fd(fd, m->path, m->rt, lib->off, &lib->nlaunch,
			       lib->reason, sizeof(lib->reason));
	close(fd);
	if (!err && m->also >= 0) {
		size_t u = strlen(lib->reason);

		snprintf(lib->reason + u, sizeof(lib->reason) - u,
			 "%s%s library also mapped, not probed (one runtime "
			 "per process: %s's)", u ? "; " : "",
			 gp_dl_runtimes[m->also].name,
			 gp_dl_runtimes[m->rt].name);
	}
out:
	free(m);
	return err;
}

int gp_dl_resolve(const char *file, int rt, unsigned long long off[GP_ENT_MAX],
		  int *nlaunch, char *reason, size_t len)
{
	char name[PATH_MAX];
	int fd, err;

	gp_text_safe(name, sizeof(name), file, strlen(file));
	fd = open(file, OPEN_FLAGS);
	if (fd < 0) {
		err = -errno;
		memset(off, 0, sizeof(off[0]) * GP_ENT_MAX);
		*nlaunch = 0;
		snprintf(reason, len, "cannot open %.160s: %s", name,
			 strerror(-err));
		return err;
	}
	err = gp_dl_resolve_fd(fd, name, rt, off, nlaunch, reason, len);
	close(fd);
	return err;
}

unsigned long long gp_dl_entry_addr(const char *proc_root,
				    const struct gp_dl_lib *lib, int e)
{
	struct gp_dl_map m;
	unsigned long long a = 0, off = lib->off[e];
	FILE *f = off ? open_maps(proc_root, lib->pid) : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while (f && (n = getline(&line, &cap, f)) > 0)
		if (gp_dl_parse_map(line, n + 1, &m) && m.ino == lib->ino &&
		    off >= m.off && off < m.off + (m.end - m.start)) {
			a = m.start + off - m.off;
			break;
		}
	free(line);
	if (f)
		fclose(f);
	return a;
}
