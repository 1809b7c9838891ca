/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in /proc served over /dev/fuse, for L1 tests of reads that must
 * stay off the daemon's loop (test_policy_pstuck.c). The folder of each
 * "stalled" pid is found and stat'ed (owned by its uid), but every READ
 * of its files is left unanswered, as a stalled FUSE server leaves it;
 * the "live" pid's files (status, comm, cmdline, cgroup, stat) read as
 * the test wrote them. Killing the server fails the waiting reads: its
 * /dev/fuse fd closes.
 *	struct fuse_proc p = { .mnt = dir, .stall = {{ pid, 0 }}, .nstall = 1,
 *			       .live = pid2 };
 *	fuse_proc_file(&p, FP_COMM, "sleep\n", 6);
 *	if (fork() == 0) fuse_proc_serve(&p);	// never returns
 */
#ifndef GP_FUSE_PROC_H
#define GP_FUSE_PROC_H

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { FP_STATUS, FP_COMM, FP_CMDLINE, FP_CGROUP, FP_STAT, FP_NFILES };

struct fuse_proc {
	const char *mnt;
	struct { pid_t pid; uid_t uid; } stall[8];
	int nstall;
	pid_t live;
	char files[FP_NFILES][256];
	size_t len[FP_NFILES];
};

static const char *const fuse_proc_names[FP_NFILES] = {
	"status", "comm", "cmdline", "cgroup", "stat" };

static inline void fuse_proc_file(struct fuse_proc *p, int k, const void *s,
				  size_t n)
{
	p->len[k] = n < sizeof(p->files[k]) ? n : sizeof(p->files[k]);
	memcpy(p->files[k], s, p->len[k]);
}

/* Nodes: 1 the root, 3 the live pid, 10+k its k-th file, 100+i the i-th
 * stalled pid, 20 any file of a stalled one. */
static inline void fuse_proc_attr(const struct fuse_proc *p, uint64_t node,
				  struct fuse_attr *a)
{
	bool dir = node <= 3 || node >= 100;

	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->uid = node >= 100 ? p->stall[node - 100].uid : 0;
	a->nlink = 1;
	a->blksize = 4096;
	a->mode = dir ? S_IFDIR | 0555 : S_IFREG | 0444;
	a->size = dir ? 0 : 4096;
}

static inline uint64_t fuse_proc_lookup(const struct fuse_proc *p,
					uint64_t parent, const char *name)
{
	char pid[16];

	if (parent == FUSE_ROOT_ID) {
		for (int i = 0; i < p->nstall; i++) {
			snprintf(pid, sizeof(pid), "%d", p->stall[i].pid);
			if (!strcmp(name, pid))
				return 100 + i;
		}
		snprintf(pid, sizeof(pid), "%d", p->live);
		return strcmp(name, pid) ? 0 : 3;
	}
	if (parent >= 100)
		return 20;
	for (int k = 0; parent == 3 && k < FP_NFILES; k++)
		if (!strcmp(name, fuse_proc_names[k]))
			return 10 + k;
	return 0;
}

/* One FUSE request's reply: the header and n bytes of body. */
static inline void fuse_proc_reply(int f, uint64_t unique, int err,
				   const void *body, size_t n)
{
	char buf[512];
	struct fuse_out_header *h = (void *)buf;

	h->len = sizeof(*h) + n;
	h->error = err;
	h->unique = unique;
	if (n)
		memcpy(buf + sizeof(*h), body, n);
	if (write(f, buf, h->len) < 0)
		_exit(2);
}

/* Mounts /dev/fuse on p->mnt and serves it until killed. */
static inline void fuse_proc_serve(const struct fuse_proc *p)
{
	static char buf[1 << 17];
	int f = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	char opts[128];

	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,"
		 "group_id=0", f);
	if (f < 0 || mount("gp-fuse-proc", p->mnt, "fuse",
			   MS_NOSUID | MS_NODEV, opts))
		_exit(1);
	for (;;) {
		ssize_t n = read(f, buf, sizeof(buf));
		struct fuse_in_header *in = (void *)buf;
		void *body = buf + sizeof(*in);

		if (n < (ssize_t)sizeof(*in)) {
			if (n < 0 && errno == EINTR)
				continue;
			_exit(n < 0 ? 3 : 0);
		}
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = body;
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
					 ii->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_write = 4096, .max_background = 4,
				.congestion_threshold = 4, .time_gran = 1 };

			fuse_proc_reply(f, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = {
				.nodeid = fuse_proc_lookup(p, in->nodeid, body) };

			if (!e.nodeid) {
				fuse_proc_reply(f, in->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_proc_attr(p, e.nodeid, &e.attr);
			fuse_proc_reply(f, in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { 0 };

			fuse_proc_attr(p, in->nodeid, &a.attr);
			fuse_proc_reply(f, in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			/* direct I/O: every read reaches us, no page cache */
			struct fuse_open_out o = { .fh = 1,
				.open_flags = FOPEN_DIRECT_IO };

			fuse_proc_reply(f, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *r = body;
			int k = (int)in->nodeid - 10;

			if (k < 0 || k >= FP_NFILES)
				break;		/* the stall */
			if (r->offset >= p->len[k])
				fuse_proc_reply(f, in->unique, 0, NULL, 0);
			else
				fuse_proc_reply(f, in->unique, 0,
						p->files[k] + r->offset,
						p->len[k] - r->offset);
			break;
		}
		case FUSE_INTERRUPT:
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			fuse_proc_reply(f, in->unique, 0, NULL, 0);
			break;
		default:
			fuse_proc_reply(f, in->unique, -ENOSYS, NULL, 0);
		}
	}
}

#endif
