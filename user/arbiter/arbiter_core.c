// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter's process table and log (arbiter_int.h): the bottom of the
 * module; every other arbiter file may call it and it calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "text.h"
#include "util.h"

/*
 * Every decision is logged with its cause, and the log stays bounded: at
 * most ARB_LOG_PER_SEC lines a second, then one line saying how many were
 * dropped (the counters in `gpreempt-ctl policy` keep the totals).
 */
void alog(struct arbiter *a, const char *fmt, ...)
{
	uint64_t now = monotonic_ns();
	char buf[512];
	va_list ap;

	if (now - a->log_sec >= NSEC_PER_SEC) {
		if (a->log_dropped)
			dlog("arbiter: %llu log lines dropped in the last "
			     "second (at most %d/s; totals: gpreempt-ctl "
			     "policy)", (unsigned long long)a->log_dropped,
			     ARB_LOG_PER_SEC);
		a->log_sec = now;
		a->log_n = a->log_dropped = 0;
	}
	if (a->log_n++ >= ARB_LOG_PER_SEC) {
		a->log_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dlog("arbiter: %s", buf);
}

/* Said at start and reload: what a process may claim of itself. */
void arb_warn_spoofable(struct arbiter *a)
{
	const struct gp_sel *on = gp_classifier_spoofable(&a->cls,
							  GP_CLASS_ONLINE);
	const struct gp_sel *off = gp_classifier_spoofable(&a->cls,
							   GP_CLASS_OFFLINE);

	if (on)
		alog(a, "--online %s is spoofable (comm "
			"and cmdline are the process's own to choose; "
			"--allow-spoofable): any local user can make a process "
			"online", on->spec);
	if (off)
		alog(a, "--offline %s is spoofable (--allow-spoofable): a "
			"job can leave offline by renaming itself; add uid= or "
			"cgroup= (e.g. uid=1001,%s)", off->spec, off->spec);
}

const char *arb_spoofable(const struct arbiter *a)
{
	bool on = gp_classifier_spoofable(&a->cls, GP_CLASS_ONLINE);
	bool off = gp_classifier_spoofable(&a->cls, GP_CLASS_OFFLINE);

	return on && off ? "online,offline" : on ? "online" :
	       off ? "offline" : "none";
}

struct arb_proc *arb_find(struct arbiter *a, int pid)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].pid == pid)
			return &a->p[i];
	return NULL;
}

struct arb_proc *arb_add(struct arbiter *a, const struct gp_proc_desc *pd,
			 enum gp_pclass cls)
{
	struct arb_proc *p;

	if (a->n == ARB_MAX_PROCS)
		return NULL;
	p = &a->p[a->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pd->pid;
	p->uid = pd->uid;
	p->cls = cls;
	p->desc = *pd;
	/* shown only (log, replies, metrics): a process names itself, so
	 * no control character may reach a terminal or the wire */
	gp_text_safe(p->comm, sizeof(p->comm), pd->comm, sizeof(pd->comm));
	/* Exit is seen on the pidfd, never confused with a reused pid. */
	p->pidfd = syscall(SYS_pidfd_open, pd->pid, 0);
	return p;
}

/* KFD's per-process sysfs folder (a fixture tree in tests). */
const char *arb_kfd_proc_dir(const struct arbiter *a)
{
	return a->o->kfd_proc_dir ? a->o->kfd_proc_dir : KFD_SYSFS_PROC;
}

bool arb_shows(struct arbiter *a, const struct client *c, int pid)
{
	const struct arb_proc *p = arb_find(a, pid);

	return client_admin(c) ||
	       (p && p->uid == client_uid(c) && !peer_may_act(c, pid));
}
