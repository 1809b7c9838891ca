// SPDX-License-Identifier: GPL-2.0
/*
 * New KFD processes described off the loop (guide: the loop never waits
 * on another process's /proc files). Describing one reads its /proc
 * files (select.c: status, comm, cmdline, cgroup, stat), and
 * /proc/PID/cmdline reads the process's own memory (get_mm_cmdline ->
 * access_remote_vm in fs/proc/base.c) under its mmap lock, which the
 * process's own threads can hold. (Its argv pages themselves cannot
 * stall the read: FOLL_ANON refuses file-backed ones since v4.18, and a
 * userfaultfd page answers SIGBUS there: tests/unit/test_policy_pstuck.c.)
 * So the scan hands the new pids to a job (offjob.h) and a later tick
 * classifies what it read. A job not done within ARB_DESC_DEADLINE_NS
 * leaves its thread behind: the pid it was reading is left unclassified
 * for as long as it lives, with the reason, shown by `policy` to admins
 * ("unclassified" lines) and refused by busy/idle/classify; the scan goes
 * on without it. Those records are bounded per owner (arbiter_stuck.c):
 * a new pid whose owner has its share is not described (no new thread
 * for it) until one of the owner's stuck processes exits.
 *
 * Only a process the selectors class (online, offline, or both: a
 * conflict) joins the arbiter's table: one they leave alone is
 * remembered apart (its pid and pidfd, ARB_IGNORED_MAX of them, so it is
 * not described again at every scan) and forgotten when it exits or at a
 * reload (new selectors may class it). Any user's KFD processes used to
 * fill the 128-entry table unclassed, with no log line and no count,
 * and then online processes were refused (issue 31, W1). A full table is
 * logged and counted (limit arbiter_processes).
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "offjob.h"
#include "util.h"

#define ARB_IGNORED_MAX 256

/* KFD processes no selector classes: not in the table, not described
 * again while they live (their pidfd says when they exit). */
static struct {
	int n;
	int pid[ARB_IGNORED_MAX];
	int pidfd[ARB_IGNORED_MAX];
} ign;

static bool ignored(int pid)
{
	for (int i = 0; i < ign.n; i++)
		if (ign.pid[i] == pid)
			return true;
	return false;
}

static void ignore(int pid)
{
	int fd;

	if (ign.n == ARB_IGNORED_MAX)
		return;		/* described again at the next scan */
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return;
	ign.pid[ign.n] = pid;
	ign.pidfd[ign.n++] = fd;
}

static void ignored_forget_exited(void)
{
	for (int i = 0; i < ign.n;) {
		struct pollfd f = { ign.pidfd[i], POLLIN, 0 };

		if (poll(&f, 1, 0) > 0) {
			close(ign.pidfd[i]);
			ign.pid[i] = ign.pid[--ign.n];
			ign.pidfd[i] = ign.pidfd[ign.n];
		} else {
			i++;
		}
	}
}

void arb_ignored_clear(void)
{
	while (ign.n)
		close(ign.pidfd[--ign.n]);
}

struct arb_desc_job {
	char root[256];		/* /proc, or --proc-root's stand-in */
	int n;
	atomic_int cur;		/* index being read */
	int pid[ARB_DESC_MAX];
	int err[ARB_DESC_MAX];
	struct gp_proc_desc d[ARB_DESC_MAX];
};

static void describe(void *arg)
{
	struct arb_desc_job *j = arg;

	for (int i = 0; i < j->n; i++) {
		atomic_store(&j->cur, i);
		j->err[i] = gp_proc_describe(j->root, j->pid[i], &j->d[i]);
	}
}

/* A finished job's descriptions into the classifier. */
static void take(struct daemon *d, struct arb_desc_job *j)
{
	struct arbiter *a = arb_of(d);

	for (int i = 0; i < j->n; i++)
		if (!j->err[i] && !arb_find(a, j->pid[i]))
			arb_discover_desc(d, &j->d[i]);
}

/* A finished job's descriptions, or a late one's pid remembered stuck:
 * every round (a job's end wakes the loop), not only at a scan. */
void arb_discover_take(struct daemon *d, uint64_t now)
{
	struct arbiter *a = arb_of(d);
	struct arb_desc_job *j;
	uid_t uid;
	int pid;

	if (a->dj && gp_offjob_done(a->dj)) {
		take(d, gp_offjob_arg(a->dj));
		gp_offjob_put(a->dj);
		a->dj = NULL;
	} else if (a->dj && gp_offjob_late(a->dj, now, ARB_DESC_DEADLINE_NS)) {
		j = gp_offjob_arg(a->dj);
		pid = j->pid[atomic_load(&j->cur)];
		if (!arb_stuck_owner(a, pid, &uid))
			arb_stuck_add(a, pid, uid, "the scan");
		gp_offjob_put(a->dj);	/* the thread frees it */
		a->dj = NULL;
	}
}

void arb_discover_tick(struct daemon *d, const int *pids, int n,
		       uint64_t now)
{
	struct arbiter *a = arb_of(d);
	struct arb_desc_job *j;
	int err = 0;
	uid_t uid;

	arb_stuck_forget_exited(a);
	ignored_forget_exited();
	arb_discover_take(d, now);
	/* One job at a time; none while the table of stuck ones is full
	 * (each holds a thread). */
	if (a->dj || arb_stuck_room(a, 0))
		return;
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	snprintf(j->root, sizeof(j->root), "%s", arb_proc_root(a));
	/* An owner with its share of stuck ones: none of its new pids
	 * (its stuck reads could not be remembered). */
	for (int i = 0; i < n && j->n < ARB_DESC_MAX; i++)
		if (pids[i] != getpid() && !arb_find(a, pids[i]) &&
		    !ignored(pids[i]) &&
		    !arb_stuck_find(a, pids[i]) &&
		    !arb_stuck_owner(a, pids[i], &uid) &&
		    !arb_stuck_room(a, uid))
			j->pid[j->n++] = pids[i];
	if (!j->n) {
		free(j);
		return;
	}
	a->dj = gp_offjob_start(describe, j, free, now, &err);
	if (!a->dj)
		alog(a, "cannot describe new processes off the loop: %s "
		     "(retried at the next scan)", strerror(-err));
}

void arb_discover_stop(struct arbiter *a)
{
	gp_offjob_put(a->dj);
	a->dj = NULL;
	arb_stuck_clear(a);
	arb_ignored_clear();
}

/* A KFD process not seen before, described: classify it. */
void arb_discover_desc(struct daemon *d, const struct gp_proc_desc *pd)
{
	struct arbiter *a = arb_of(d);
	enum gp_pclass cls;
	struct arb_proc *p;
	char err[512];

	if (gp_classify(&a->cls, pd, &cls, err, sizeof(err))) {
		/* Logged once: the entry stays, class none. */
		p = arb_add(a, pd, GP_CLASS_NONE);
		if (p)
			p->conflict = true;
		else
			alimit(ARB_LIMIT_PROCS, "pid %d of uid %u (in both "
			       "classes) not tracked", pd->pid, pd->uid);
		alog(a, "%s: left alone", err);
		return;
	}
	if (cls == GP_CLASS_NONE) {
		ignore(pd->pid);
		return;
	}
	p = arb_add(a, pd, cls);
	if (!p) {
		alimit(ARB_LIMIT_PROCS, "%s pid %d of uid %u not arbitrated",
		       gp_pclass_name(cls), pd->pid, pd->uid);
		return;
	}
	alog(a, "found %s pid %d (%s)", gp_pclass_name(cls), pd->pid,
	     p->comm);
}
