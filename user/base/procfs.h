/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc readers, one home: a process's comm, its tracer, its status
 * fields, its flags and its uids. Every function takes a pid and reads
 * /proc/<pid>/<file> once; none keeps state. procfs_read_at() takes the
 * root too, so a caller's tests can hand it a fixture (select.c's).
 */
#ifndef GP_PROCFS_H
#define GP_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define PROCFS_YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

/* /proc/<pid>/<name> into buf (NUL-terminated). Length or -errno. */
int procfs_read(pid_t pid, const char *name, char *buf, size_t len);
/* The same under another root (tests hand it a fixture tree). */
int procfs_read_at(const char *root, pid_t pid, const char *name, char *buf,
		   size_t len);
/* The number after "Key:" in /proc/<pid>/status, or -1. */
long procfs_status(pid_t pid, const char *key);
/* comm without its "\n"; "?" when unreadable. Returns buf. */
char *procfs_comm(pid_t pid, char *buf, size_t len);
/* TracerPid, 0 when not traced or unreadable. */
pid_t procfs_tracer(pid_t pid);
/* The flags field of /proc/<pid>/stat (PF_*). 0 and -errno if absent. */
int procfs_flags(pid_t pid, unsigned long *flags);
/* Real, effective, saved and fs uid from "Uid:". 0 or -errno. */
int procfs_uids(pid_t pid, uid_t uids[4]);

/*
 * The cgroup v2 path of pid (the "0::" line of /proc/<pid>/cgroup, as the
 * reader's cgroup namespace shows it) into buf. Length, -ENOENT when the
 * process has no v2 line (cgroup v1 only), or -errno.
 */
int procfs_cgroup2(pid_t pid, char *buf, size_t len);
/* Is cgroup path under prefix, by whole components ("/a" holds "/a" and
 * "/a/b", not "/ab")? A path with a ".." component (a cgroup outside the
 * reader's namespace) is under nothing but "/". */
int procfs_cgroup_under(const char *path, const char *prefix);

/* /proc/sys/kernel/yama/ptrace_scope (0..3), or -1 without Yama. */
long procfs_yama_scope(void);

#endif
