// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl suspend` and `resume` of a CUDA process without a daemon
 * (ctl_suspend.c hands over a pid with no KFD process when libcuda.so.1
 * loads): the backend interface (backend.h) on one process, the lock's
 * completion waited for on this thread's poll, the hold journaled and
 * guarded (a lock outlives its holder: docs/reliability.md).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "bk_cuda.h"
#include "ctl_cmd.h"
#include "exitcodes.h"
#include "session.h"
#include "util.h"

static struct gp_backend *cuda_of(const struct ctl_args *a)
{
	struct gp_bk_cuda_conf conf = {
		.journal = a->cuda_journal,
		.lock_timeout_ms = a->cuda_lock_timeout_ns / 1000000,
	};
	struct gp_backend *b = gp_bk_cuda_new(&conf);
	struct gp_err e = {};

	if (b && gp_bk_open(b, &e)) {
		gp_bk_cuda_destroy(b);
		return NULL;
	}
	return b;
}

struct gp_backend *ctl_cuda_backend(const struct ctl_args *a)
{
	if (session_has_kfd_process(a->pid))
		return NULL;
	return cuda_of(a);
}

static void glog(void *ctx, const char *line)
{
	fprintf(stderr, "gpreempt-ctl: %s\n", line);
}

/*
 * Wait on p's events and the signals until: until_done and its pending
 * operation finished (*dn), the deadline (0: none), a signal that ends a
 * hold (*sig), or the target's exit. 0 done/deadline, 1 gone, 2 signal.
 */
static int wait_on(struct gp_bproc *p, int sfd, uint64_t deadline,
		   bool until_done, struct gp_bk_done *dn, int *sig)
{
	struct pollfd f[2] = { { sfd, POLLIN, 0 },
			       { gp_bk_event_fd(p), POLLIN, 0 } };
	struct signalfd_siginfo si;
	struct gp_err e = {};
	uint64_t now;
	int timeout;

	for (;;) {
		timeout = 1000;
		if (deadline) {
			now = monotonic_ns();
			if (now >= deadline && !until_done)
				return 0;
			if (now < deadline &&
			    (deadline - now) / 1000000 + 1 < 1000)
				timeout = (deadline - now) / 1000000 + 1;
		}
		if (poll(f, 2, timeout) < 0 && errno != EINTR)
			return 1;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (session_signal_ends_hold(si.ssi_signo) && !*sig)
				*sig = si.ssi_signo;
		if (gp_bk_handle(p, &e))
			return 1;
		if (until_done) {
			if (gp_bk_take_done(p, dn))
				return 0;
			continue;	/* a signal waits for the lock */
		}
		if (*sig)
			return 2;
	}
}

static void step(const struct ctl_out *o, const char *type, pid_t pid,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void step(const struct ctl_out *o, const char *type, pid_t pid,
		 const char *fmt, ...)
{
	char text[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ctl_print_step(o, type, pid, "backend", "cuda", text);
}

int ctl_cmd_suspend_cuda(const struct ctl_args *a, struct gp_backend *b)
{
	struct ctl_out o = ctl_out_of(a);
	struct gp_bk_done dn = {};
	struct session_op op = {};
	struct gp_bproc *p = NULL;
	struct gp_err e = {};
	pid_t pid = a->pid;
	sigset_t old;
	int sfd = -1, ret = 0, r, sig = 0;
	char t[32];

	if (session_check_pid(pid, &e)) {
		ret = ctl_report(&o, &e);
		goto out;
	}
	/* the guardian first: before any thread (the lock's) starts */
	if (gp_bk_cuda_start(b, false, glog, NULL, &e)) {
		ret = ctl_report(&o, &e);
		goto out;
	}
	sfd = ctl_signals(&o, &old, &ret);
	if (sfd < 0)
		goto out;
	p = gp_bk_attach(b, pid, NULL, &e);
	if (!p) {
		ret = ctl_report(&o, &e);
		goto out;
	}
	r = gp_bk_suspend(p, a->queues, a->n_queues, 0, &op, &e);
	session_op_free(&op);
	if (r == GP_BK_PENDING) {
		if (wait_on(p, sfd, 0, true, &dn, &sig)) {
			gp_err_set(&e, GP_EXIT_TARGET, ESRCH, "pid %d exited "
				   "while it was being locked", pid);
			ret = ctl_report(&o, &e);
			goto out;
		}
		r = dn.r;
		e = dn.e;
		op = dn.op;
	}
	if (r) {
		ret = ctl_report(&o, &e);
		goto out;
	}
	fmt_ns(t, sizeof(t), op.ns);
	step(&o, "suspend", pid, "locked pid %d (CUDA checkpoint lock, %s): "
	     "its kernels in flight finished, its next CUDA calls block",
	     pid, t);
	if (sig)
		goto out;	/* Ctrl-C during the lock: unlock at once */
	if (a->for_ns) {
		fmt_ns(t, sizeof(t), a->for_ns);
		step(&o, "hold", pid, "holding pid %d for %s (SIGINT/SIGTERM "
		     "resumes now)", pid, t);
	} else {
		step(&o, "hold", pid, "holding pid %d until SIGINT/SIGTERM "
		     "(Ctrl-C)", pid);
	}
	r = wait_on(p, sfd, a->for_ns ? monotonic_ns() + a->for_ns : 0,
		    false, &dn, &sig);
	if (r == 1) {
		step(&o, "target_exit", pid, "pid %d exited while held", pid);
		goto out;
	}
	session_op_free(&op);
	r = gp_bk_resume(p, NULL, 0, &op, &e);
	if (r)
		ret = ctl_report(&o, &e);
	else {
		fmt_ns(t, sizeof(t), op.ns);
		step(&o, "resume", pid, "unlocked pid %d (%s)", pid, t);
	}
out:
	if (p) {
		/* waits for a lock in flight, then unlocks what it holds */
		while (!gp_bk_release(p))
			usleep(10 * 1000);
		gp_bk_free(p);
	}
	session_op_free(&op);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	gp_bk_cuda_destroy(b);
	return ret;
}

int ctl_cmd_resume_cuda(const struct ctl_args *a, struct gp_backend *b)
{
	struct ctl_out o = ctl_out_of(a);
	struct gp_err e = {};
	int r, ret = 0;

	if (session_check_pid(a->pid, &e)) {
		ret = ctl_report(&o, &e);
	} else if ((r = gp_bk_cuda_unlock_pid(b, a->pid, &e)) < 0) {
		ret = ctl_report(&o, &e);
	} else {
		step(&o, "resume", a->pid, r ? "unlocked pid %d" :
		     "pid %d was not locked", a->pid);
	}
	gp_bk_cuda_destroy(b);
	return ret;
}
