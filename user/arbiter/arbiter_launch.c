// SPDX-License-Identifier: GPL-2.0
/*
 * --detect launch: the launch detector (detect_launch.h) in the daemon.
 * Every online process the arbiter knows is scanned for its GPU runtime
 * library (libamdhip64 or libcuda: detect_libs.h) in a child process
 * (it reads the process's /proc/PID/maps and the library's ELF, files
 * the tenant controls: the loop never waits on another process), which
 * writes its result to a pipe and is killed at a deadline: a scan that
 * spins or blocks leaves no thread behind, as an abandoned thread did
 * (issue 31, N3: one more spinning root thread every 15 s); then its
 * pid-scoped uprobes are attached from the loop (BPF calls only). Edges
 * from the ring become policy activity with the launch detector as the
 * source, one per pid. A busy period ends when a sync call or KFD's
 * WAIT_EVENTS ioctl returns (an idle edge) or --launch-grace after the
 * last launch (read from the BPF state at the deadline).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "daemon_module.h"
#include "detect_launch.h"
#include "offjob.h"
#include "text.h"
#include "util.h"

#define ARBL_SCAN_DEADLINE_NS (5 * NSEC_PER_SEC)
#define ARBL_RETRY_NS NSEC_PER_SEC	/* no runtime loaded yet: look again */
#define ARBL_MAX_JOBS 4		/* scan processes, running or unreaped */

struct arbl_res {	/* what a scan's process writes to its pipe */
	int err;
	struct gp_dl_lib lib;
};

struct arbl_scan {	/* one scan's process */
	pid_t child;
	int fd;			/* the pipe's read end, non-blocking */
	uint64_t started;
	size_t got;		/* bytes of res read so far */
	struct arbl_res res;
};

enum { ARBL_NEW, ARBL_SCANNING, ARBL_ATTACHED, ARBL_UNWATCHED };

struct arbl_proc {
	int pid, state, last_err;
	bool busy;
	uint64_t retry_at;
	uint64_t last_launch;	/* BPF's last_ns when last seen */
	struct arbl_scan *job;	/* its scan, in a child process */
};

/* Killed scan processes not reaped yet (one stuck in the kernel, in D
 * state, is reaped at a later tick): counted in the jobs' bound, kept
 * across a reload. */
static struct {
	int n;
	pid_t pid[ARBL_MAX_JOBS];
} zombies;

static struct arbl {
	bool on;
	int n, jobs;
	uint64_t next_check;
	struct gp_dl dl;
	struct arbl_proc p[ARB_MAX_PROCS];
} arbl;

static void reap(void)
{
	int i;

	for (i = 0; i < zombies.n;)
		if (waitpid(zombies.pid[i], NULL, WNOHANG) != 0)
			zombies.pid[i] = zombies.pid[--zombies.n];
		else
			i++;
}

/* A scan over (done or not): its process killed and reaped, or left to
 * reap later; its slot freed. */
static void scan_end(struct arbl_proc *lp)
{
	struct arbl_scan *s = lp->job;

	if (!s)
		return;
	kill(s->child, SIGKILL);
	if (waitpid(s->child, NULL, WNOHANG) == 0 &&
	    zombies.n < ARBL_MAX_JOBS)
		zombies.pid[zombies.n++] = s->child;
	close(s->fd);
	free(s);
	lp->job = NULL;
	arbl.jobs--;
}

/* In the child: scan, write the result, end. Nothing of the daemon's is
 * touched; the parent's death kills it (PR_SET_PDEATHSIG). */
static void __attribute__((noreturn)) scan_child(pid_t parent, int pid,
						 int wfd, int wake)
{
	struct arbl_res *r = calloc(1, sizeof(*r));
	const char *p = (const char *)r;
	size_t left = sizeof(*r);
	uint64_t one = 1;
	ssize_t k;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent || !r)
		_exit(1);
	r->err = gp_dl_scan("/proc", pid, &r->lib);
	while (left) {	/* the pipe holds 64 KiB: never waits */
		k = write(wfd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(1);
		p += k;
		left -= k;
	}
	/* wake the loop (offjob.h's counter: the arbiter polls it) */
	if (wake >= 0)
		k = write(wake, &one, sizeof(one));
	_exit(0);
}

static struct arbl_scan *scan_start(int pid, uint64_t now)
{
	struct arbl_scan *s;
	pid_t parent = getpid();
	int p[2], wake = gp_offjob_wakefd();

	reap();
	if (arbl.jobs + zombies.n >= ARBL_MAX_JOBS)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (pipe2(p, O_CLOEXEC)) {
		free(s);
		return NULL;
	}
	s->child = fork();
	if (s->child == 0) {
		close(p[0]);
		scan_child(parent, pid, p[1], wake);
	}
	close(p[1]);
	if (s->child < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK)) {
		if (s->child > 0) {
			kill(s->child, SIGKILL);
			waitpid(s->child, NULL, 0);
		}
		close(p[0]);
		free(s);
		return NULL;
	}
	s->fd = p[0];
	s->started = now;
	return s;
}

/* Read what the child wrote: 1 all of it, 0 not yet, -1 it ended
 * without (crashed, killed). */
static int scan_read(struct arbl_scan *s)
{
	ssize_t k;

	while (s->got < sizeof(s->res)) {
		k = read(s->fd, (char *)&s->res + s->got,
			 sizeof(s->res) - s->got);
		if (k > 0)
			s->got += k;
		else if (k < 0 && errno == EINTR)
			continue;
		else
			return k < 0 && errno == EAGAIN ? 0 : -1;
	}
	return 1;
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
		set_busy(d, lp, true, gp_dl_entry_name(e->entry) ?: "launch");
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
	dlog("arbiter: launch detection on: launch uprobes in the GPU "
	     "runtime library (libamdhip64 or libcuda) of each online "
	     "process, --launch-grace %llu ms, KFD WAIT_EVENTS "
	     "hook: %s%s%s%s",
	     (unsigned long long)(arb_of(d)->o->launch_grace_ns / NSEC_PER_MSEC),
	     arbl.dl.wait_how, arbl.dl.wait_why[0] ? " (" : "",
	     arbl.dl.wait_why[0] ? arbl.dl.wait_why : "",
	     arbl.dl.wait_why[0] ? ")" : "");
	if (!arbl.dl.wait_links[0])
		dlog("arbiter: launch detection: a busy period ends at a sync "
		     "call's return or after --launch-grace");
}

static void lremove(struct daemon *d, struct arbl_proc *lp, const char *why)
{
	set_busy(d, lp, false, why);
	if (lp->state == ARBL_ATTACHED)
		gp_dl_detach(&arbl.dl, lp->pid);
	scan_end(lp);
	*lp = arbl.p[--arbl.n];
}

void arbl_stop(struct daemon *d)
{
	if (!arbl.on)
		return;
	while (arbl.n)
		lremove(d, &arbl.p[0], "launch detection off");
	daemon_io_remove(d, gp_dl_fd(&arbl.dl));
	gp_dl_close(&arbl.dl);
	arbl.on = false;
}

/* A scan ended (its result read, or its process died): attach, or say
 * why not. */
static void scan_done(struct daemon *d, struct arbl_proc *lp, uint64_t now,
		      bool whole)
{
	struct arbiter *a = arb_of(d);
	struct arbl_res *s = &lp->job->res;
	char why[GP_DL_REASON] = "", pre[48], t[PATH_MAX];
	int n = whole ? s->err : -ECHILD;

	/* the child parsed hostile input: its strings end, its pid is the
	 * one asked for, its path is under that process's /proc folder */
	s->lib.pid = lp->pid;
	s->lib.path[sizeof(s->lib.path) - 1] = 0;
	s->lib.open_path[sizeof(s->lib.open_path) - 1] = 0;
	s->lib.reason[sizeof(s->lib.reason) - 1] = 0;
	/* and its text is escaped again for the log (text.h) */
	gp_text_safe(t, sizeof(t), s->lib.path, sizeof(s->lib.path));
	snprintf(s->lib.path, sizeof(s->lib.path), "%s", t);
	gp_text_safe(t, sizeof(s->lib.reason), s->lib.reason,
		     sizeof(s->lib.reason));
	memcpy(s->lib.reason, t, strlen(t) + 1);
	snprintf(pre, sizeof(pre), "/proc/%d/", lp->pid);
	if (!n && (strncmp(s->lib.open_path, pre, strlen(pre)) ||
		   strstr(s->lib.open_path, "/../")))
		n = -ECHILD;

	if (!n) {
		n = gp_dl_attach(&arbl.dl, &s->lib, why, sizeof(why));
		if (n >= 0) {
			lp->state = ARBL_ATTACHED;
			alog(a, "launches of pid %d: %d probes in %s (%s)%s%s",
			     lp->pid, n, s->lib.path,
			     gp_dl_runtimes[s->lib.rt].name,
			     s->lib.reason[0] ? "; " : "", s->lib.reason);
		}
	} else if (n != -ECHILD) {
		snprintf(why, sizeof(why), "%s", s->lib.reason);
	} else {
		snprintf(why, sizeof(why), "the scan's process ended with "
			 "no result (crashed or killed)");
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
	scan_end(lp);
}

/* The loop wakes by then at the latest (arbl_deadline). */
static void deadline(uint64_t t)
{
	if (!arbl.next_check || t < arbl.next_check)
		arbl.next_check = t;
}

static void check_grace(struct daemon *d, struct arbl_proc *lp, uint64_t now)
{
	struct gp_launch_state st;
	uint64_t grace = arb_of(d)->o->launch_grace_ns, end;

	if (!lp->busy || gp_dl_state(&arbl.dl, lp->pid, &st))
		return;
	/* launches since the last look are work: they renew the busy, so
	 * --busy-max bounds a launcher's silence, never its work (issue 31,
	 * N4: a server launching every 1 ms, never syncing, lost its busy
	 * at --busy-max and offline ran under it) */
	if (st.last_ns != lp->last_launch) {
		lp->last_launch = st.last_ns;
		gp_policy_activity(&arb_of(d)->pol, now, lp->pid,
				   &arb_of(d)->act);
	}
	/* look again well within --busy-max */
	if (arb_of(d)->cfg.busy_max_ns)
		deadline(now + arb_of(d)->cfg.busy_max_ns / 2);
	end = st.last_ns + grace;
	if (now >= end) {
		gp_dl_set_idle(&arbl.dl, lp->pid);
		set_busy(d, lp, false, "no launch for --launch-grace");
	} else {
		deadline(end);
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
	reap();
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
			lremove(d, lp, "no longer online");
			continue;
		}
		if ((lp->state == ARBL_NEW || lp->state == ARBL_UNWATCHED) &&
		    now >= lp->retry_at && arbl.jobs < ARBL_MAX_JOBS) {
			lp->job = scan_start(lp->pid, now);
			if (lp->job) {
				arbl.jobs++;
				lp->state = ARBL_SCANNING;
				deadline(now + ARBL_SCAN_DEADLINE_NS);
			}
		} else if (lp->state == ARBL_SCANNING) {
			int r = scan_read(lp->job);

			if (r) {
				scan_done(d, lp, now, r > 0);
			} else if (now - lp->job->started >=
				   ARBL_SCAN_DEADLINE_NS) {
				alog(a, "launches of pid %d: not watched: "
				     "reading its maps or library took over 5 s "
				     "(the scan's process is killed)", lp->pid);
				scan_end(lp);
				lp->last_err = -ETIMEDOUT;
				lp->state = ARBL_UNWATCHED;
				lp->retry_at = now + 10 * ARBL_RETRY_NS;
			} else {
				deadline(lp->job->started +
					 ARBL_SCAN_DEADLINE_NS);
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
