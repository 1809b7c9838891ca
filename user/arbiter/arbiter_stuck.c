// SPDX-License-Identifier: GPL-2.0
/*
 * Processes whose /proc files did not answer within ARB_DESC_DEADLINE_NS
 * (arbiter_discover.c's scan, arbiter_defer.c's requests): remembered
 * while they live, so that no later read waits on them again (each such
 * read keeps a thread of its own: offjob.h).
 *
 * Bounded per owner, as every table of the daemon (guide: a tenant
 * cannot starve root or another tenant): a non-root uid keeps at most
 * ARB_STUCK_PER_UID records, all non-root uids together leave
 * ARB_STUCK_ROOT records to root, and nothing is ever pushed out. The
 * owner is the uid of the process's /proc folder: procfs answers that
 * stat from the task's credentials (pid_getattr -> task_dump_owner in
 * fs/proc/base.c, 6.12: task_lock and RCU, not the target's mmap lock),
 * so it does not wait on the process; a non-dumpable process shows as
 * root there, which only makes it count against root's room. A uid that
 * has its share is logged and counted (gpreempt_limit_hits_total
 * {cause="stuck_per_uid"}), and the scan describes none of its new
 * processes until one of its stuck ones exits (arb_stuck_room).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "util.h"

const char *arb_proc_root(const struct arbiter *a)
{
	return a->o->proc_root ? a->o->proc_root : "/proc";
}

const struct arb_stuck *arb_stuck_find(const struct arbiter *a, int pid)
{
	for (int i = 0; i < a->n_stuck; i++)
		if (a->stuck[i].pid == pid)
			return &a->stuck[i];
	return NULL;
}

int arb_stuck_owner(const struct arbiter *a, int pid, uid_t *uid)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d", arb_proc_root(a), pid);
	if (stat(path, &st))
		return -errno;
	*uid = st.st_uid;
	return 0;
}

int arb_stuck_room(const struct arbiter *a, uid_t uid)
{
	int mine = 0, others = 0;

	for (int i = 0; i < a->n_stuck; i++) {
		mine += a->stuck[i].uid == uid;
		others += a->stuck[i].uid != 0;
	}
	if (uid == 0)
		return a->n_stuck < ARB_MAX_STUCK ? 0 : -ENOSPC;
	if (mine >= ARB_STUCK_PER_UID)
		return -EDQUOT;
	return others < ARB_MAX_STUCK - ARB_STUCK_ROOT ? 0 : -ENOSPC;
}

int arb_stuck_add(struct arbiter *a, int pid, uid_t uid, const char *via)
{
	struct arb_stuck *s;
	int r;

	if (arb_stuck_find(a, pid))
		return 0;
	r = arb_stuck_room(a, uid);
	if (r) {
		alimit(r == -EDQUOT ? ARB_LIMIT_STUCK_UID : ARB_LIMIT_STUCK,
		       "pid %d of uid %u: its /proc files do not answer (%s); "
		       "not remembered: %s", pid, uid, via, r == -EDQUOT ?
		       "the uid has its share of stuck processes, none of its "
		       "new processes is described until one exits" :
		       "no room left, discovery paused until one exits");
		return r;
	}
	s = &a->stuck[a->n_stuck++];
	s->pid = pid;
	s->uid = uid;
	s->pidfd = syscall(SYS_pidfd_open, pid, 0);
	alog(a, "pid %d (uid %u): /proc/%d read stuck for %llu s (%s): left "
	     "unclassified while it lives (its memory lock held? a stalled "
	     "file system?)", pid, uid, pid,
	     (unsigned long long)(ARB_DESC_DEADLINE_NS / NSEC_PER_SEC), via);
	return 0;
}

int arb_stuck_err(struct gp_err *e, int pid)
{
	return gp_err_set(e, GP_EXIT_TARGET, EAGAIN, "pid %d: its /proc "
			  "files did not answer within %llu s (its memory lock "
			  "held? a stalled file system?): left unclassified "
			  "while it lives", pid, (unsigned long long)
			  (ARB_DESC_DEADLINE_NS / NSEC_PER_SEC));
}

void arb_stuck_forget_exited(struct arbiter *a)
{
	for (int i = a->n_stuck; i-- > 0;) {
		struct arb_stuck *s = &a->stuck[i];
		struct pollfd f = { s->pidfd, POLLIN, 0 };
		bool gone = s->pidfd < 0 ? kill(s->pid, 0) && errno == ESRCH :
			    poll(&f, 1, 0) > 0;

		if (gone) {
			if (s->pidfd >= 0)
				close(s->pidfd);
			*s = a->stuck[--a->n_stuck];
		}
	}
}

void arb_stuck_clear(struct arbiter *a)
{
	for (int i = 0; i < a->n_stuck; i++)
		if (a->stuck[i].pidfd >= 0)
			close(a->stuck[i].pidfd);
	a->n_stuck = 0;
}
