// SPDX-License-Identifier: GPL-2.0
/*
 * --detect launch: the launch detector (detect_launch.h) in the daemon.
 * Every online process the arbiter knows is scanned for its libamdhip64
 * by a job off the loop (offjob.h: it reads the process's /proc/PID/maps
 * and the library's ELF: the loop never waits on another process), with
 * a deadline; then its pid-scoped uprobes are attached from the loop (BPF
 * calls only). Edges from the ring become policy activity with the
 * launch detector as the source, one per pid. A busy period ends when a
 * sync call or KFD's WAIT_EVENTS ioctl returns (an idle edge) or
 * --launch-grace after the last launch (read from the BPF state at the
 * deadline).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "daemon_module.h"
#include "detect_launch.h"
#include "offjob.h"
#include "util.h"

#define ARBL_SCAN_DEADLINE_NS (5 * NSEC_PER_SEC)
#define ARBL_RETRY_NS NSEC_PER_SEC	/* HIP not loaded yet: look again */
#define ARBL_MAX_JOBS 4

struct arbl_scan {	/* a job's (offjob.h) argument and result */
	int err;
	struct gp_dl_lib lib;
};

enum { ARBL_NEW, ARBL_SCANNING, ARBL_ATTACHED, ARBL_UNWATCHED };

struct arbl_proc {
	int pid, state, last_err;
	bool busy;
	uint64_t retry_at;
	struct gp_offjob *job;	/* its scan, off the loop */
};

static struct arbl {
	bool on;
	int n, jobs;
	uint64_t next_check;
	struct gp_dl dl;
	struct arbl_proc p[ARB_MAX_PROCS];
} arbl;

static void scan_run(void *arg)
{
	struct arbl_scan *s = arg;

	s->err = gp_dl_scan("/proc", s->lib.pid, &s->lib);
}

static struct gp_offjob *scan_start(int pid, uint64_t now)
{
	struct arbl_scan *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->lib.pid = pid;
	return gp_offjob_start(scan_run, s, free, now, NULL);
}

static struct arbl_proc *lfind(int pid)
{
	int i;

	for (i = 0; i < arbl.n; i++)
		if (arbl.p[i].pid == pid)
			return &arbl.p[i];
	return NULL;
}

static void set_busy(struct daemon *d, struct arbl_proc *lp, bool busy,
		     const char *why)
{
	struct arbiter *a = arb_of(d);
	uint64_t now = monotonic_ns();

	if (lp->busy == busy)
		return;
	lp->busy = busy;
	arb_feed(a, &(struct gp_activity){ .pid = lp->pid, .busy = busy,
		 .kind = GP_SRC_LAUNCH, .id = (uint32_t)lp->pid, .t_ns = now });
	alog(a, "launches of pid %d: %s (%s)", lp->pid,
	     busy ? "busy" : "idle", why);
}

static void on_edge(void *ctx, const struct gp_edge *e)
{
	struct daemon *d = ctx;
	struct arbl_proc *lp = lfind(e->pid);

	if (!lp)
		return;
	if (e->kind == GP_EDGE_BUSY)
		set_busy(d, lp, true, e->entry < GP_ENT_MAX ?
			 gp_dl_entries[e->entry].sym : "launch");
	else
		set_busy(d, lp, false, e->entry == GP_ENT_WAIT_EVENTS ?
			 "KFD WAIT_EVENTS returned" : "sync returned");
}

/* The ring was readable (daemon_io_add): edges to the policy now. */
static void launch_ready(struct daemon *d, void *ud)
{
	gp_dl_drain(&arbl.dl);
}

void arbl_start(struct daemon *d)
{
	int err;

	memset(&arbl, 0, sizeof(arbl));
	if (!arb_of(d)->o->detect_launch)
		return;
	err = gp_dl_open(&arbl.dl, arb_of(d)->o->launch_grace_ns, on_edge, d);
	if (err) {
		dlog("arbiter: launch detection off: cannot load its BPF "
		     "programs: %s%s", strerror(-err), err == -EPERM ?
		     " (needs CAP_BPF and CAP_PERFMON, or root)" : "");
		return;
	}
	if (daemon_io_add(d, gp_dl_fd(&arbl.dl), launch_ready, NULL))
		dlog_at(LOG_ERR, "arbiter: the daemon's loop has no room for "
			"the launch detector's fd (DAEMON_MAX_IO): edges are "
			"read at each tick only");
	arbl.on = true;
	dlog("arbiter: launch detection on: libamdhip64 launch uprobes in "
	     "each online process, --launch-grace %llu ms, KFD WAIT_EVENTS "
	     "hook: %s%s%s%s",
	     (unsigned long long)(arb_of(d)->o->launch_grace_ns / NSEC_PER_MSEC),
	     arbl.dl.wait_how, arbl.dl.wait_why[0] ? " (" : "",
	     arbl.dl.wait_why[0] ? arbl.dl.wait_why : "",
	     arbl.dl.wait_why[0] ? ")" : "");
	if (!arbl.dl.wait_links[0])
		dlog("arbiter: launch detection: a busy period ends at a sync "
		     "call's return or after --launch-grace");
}

static void lremove(struct daemon *d, struct arbl_proc *lp)
{
	set_busy(d, lp, false, "no longer online");
	if (lp->state == ARBL_ATTACHED)
		gp_dl_detach(&arbl.dl, lp->pid);
	if (lp->job) {
		gp_offjob_put(lp->job);
		arbl.jobs--;
	}
	*lp = arbl.p[--arbl.n];
}

void arbl_stop(struct daemon *d)
{
	if (!arbl.on)
		return;
	while (arbl.n)
		lremove(d, &arbl.p[0]);
	daemon_io_remove(d, gp_dl_fd(&arbl.dl));
	gp_dl_close(&arbl.dl);
	arbl.on = false;
}

/* A scan ended (or ran out of time): attach, or say why not. */
static void scan_done(struct daemon *d, struct arbl_proc *lp, uint64_t now)
{
	struct arbiter *a = arb_of(d);
	struct arbl_scan *s = gp_offjob_arg(lp->job);
	char why[GP_DL_REASON] = "";
	int n = s->err;

	if (!n) {
		n = gp_dl_attach(&arbl.dl, &s->lib, why, sizeof(why));
		if (n >= 0) {
			lp->state = ARBL_ATTACHED;
			alog(a, "launches of pid %d: %d probes in %s%s%s", lp->pid,
			     n, s->lib.path, s->lib.reason[0] ? "; " : "",
			     s->lib.reason);
		}
	} else {
		snprintf(why, sizeof(why), "%s", s->lib.reason);
	}
	if (n < 0) {
		/* once per cause, then quietly again later */
		if (n != lp->last_err)
			alog(a, "launches of pid %d: not watched: %s", lp->pid, why);
		lp->last_err = n;
		lp->state = ARBL_UNWATCHED;
		lp->retry_at = now + (n == -ENOENT ? ARBL_RETRY_NS :
				      10 * ARBL_RETRY_NS);
	}
	gp_offjob_put(lp->job);
	lp->job = NULL;
	arbl.jobs--;
}

static void check_grace(struct daemon *d, struct arbl_proc *lp, uint64_t now)
{
	struct gp_launch_state st;
	uint64_t grace = arb_of(d)->o->launch_grace_ns, end;

	if (!lp->busy || gp_dl_state(&arbl.dl, lp->pid, &st))
		return;
	end = st.last_ns + grace;
	if (now >= end) {
		gp_dl_set_idle(&arbl.dl, lp->pid);
		set_busy(d, lp, false, "no launch for --launch-grace");
	} else if (!arbl.next_check || end < arbl.next_check) {
		arbl.next_check = end;
	}
}

void arbl_tick(struct daemon *d)
{
	struct arbiter *a = arb_of(d);
	uint64_t now = monotonic_ns();
	struct arbl_proc *lp;
	int i;

	if (!arbl.on)
		return;
	gp_dl_drain(&arbl.dl);
	for (i = 0; i < a->n && arbl.n < ARB_MAX_PROCS; i++)
		if (a->p[i].cls == GP_CLASS_ONLINE && !lfind(a->p[i].pid))
			arbl.p[arbl.n++] = (struct arbl_proc){ .pid = a->p[i].pid };
	arbl.next_check = 0;
	for (i = 0; i < arbl.n;) {
		struct arb_proc *p;

		lp = &arbl.p[i];
		p = arb_find(a, lp->pid);
		if (!p || p->cls != GP_CLASS_ONLINE) {
			lremove(d, lp);
			continue;
		}
		if ((lp->state == ARBL_NEW || lp->state == ARBL_UNWATCHED) &&
		    now >= lp->retry_at && arbl.jobs < ARBL_MAX_JOBS) {
			lp->job = scan_start(lp->pid, now);
			if (lp->job) {
				arbl.jobs++;
				lp->state = ARBL_SCANNING;
			}
		} else if (lp->state == ARBL_SCANNING) {
			if (gp_offjob_done(lp->job)) {
				scan_done(d, lp, now);
			} else if (gp_offjob_late(lp->job, now,
						  ARBL_SCAN_DEADLINE_NS)) {
				alog(a, "launches of pid %d: not watched: "
				     "reading its maps or library took over 5 s",
				     lp->pid);
				gp_offjob_put(lp->job);
				lp->job = NULL;
				arbl.jobs--;
				lp->state = ARBL_UNWATCHED;
				lp->retry_at = now + 10 * ARBL_RETRY_NS;
			}
		}
		check_grace(d, lp, now);
		i++;
	}
}

uint64_t arbl_deadline(const struct daemon *d)
{
	return arbl.on ? arbl.next_check : 0;
}
