// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl suspend` and `resume` acting directly (no daemon): one
 * session, held by this process's main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "caps.h"
#include "ctl_cmd.h"
#include "exitcodes.h"
#include "json.h"
#include "names.h"
#include "util.h"

int ctl_prepare(const struct ctl_out *o, const char *cmd, pid_t pid,
		struct kfd *k)
{
	struct gp_err e = {};

	if (session_check_pid(pid, &e))
		return ctl_report(o, &e);
	if (!caps_have(CAP_SYS_PTRACE)) {
		gp_err_set(&e, GP_EXIT_PRIV, EPERM,
			   "%s needs root (CAP_SYS_PTRACE): gpreempt-ctl "
			   "becomes the target's ptrace tracer; run it with "
			   "sudo", cmd);
		return ctl_report(o, &e);
	}
	if (kfd_open_debug(k, &e))
		return ctl_report(o, &e);
	return 0;
}

static void print_attach(const struct ctl_out *o, struct session *s,
			 uint64_t ns)
{
	const struct kfd_queue_snapshot_entry *q;
	char t[32], tn[NAMES_NUM_LEN];
	uint32_t n, i;
	struct json j;

	q = session_queues(s, &n);
	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "attach");
		json_s64(&j, "pid", session_pid(s));
		json_str(&j, "runtime_state",
			 kfd_runtime_state_name(session_runtime_state(s)));
		json_u64(&j, "queues", n);
		json_u64(&j, "attach_ns", ns);
		json_end(&j);
		return;
	}
	fmt_ns(t, sizeof(t), ns);
	printf("attached to pid %d: runtime %s, %u queue%s (attach %s)\n",
	       session_pid(s), kfd_runtime_state_name(session_runtime_state(s)),
	       n, n == 1 ? "" : "s", t);
	for (i = 0; o->verbose && i < n; i++)
		printf("  queue %-6u gpu 0x%x %-12s ring %u bytes at 0x%llx\n",
		       q[i].queue_id, q[i].gpu_id,
		       names_or_num(names_ioc_queue_type(q[i].queue_type),
				    q[i].queue_type, tn, sizeof(tn)),
		       q[i].ring_size,
		       (unsigned long long)q[i].ring_base_address);
	fflush(stdout);
}

/* Ctrl-Z while holding: a stopped holder could not end the hold. */
static void print_ignored(const struct ctl_out *o, pid_t pid, int sig)
{
	char text[160];

	snprintf(text, sizeof(text), "%s ignored while holding pid %d: the "
		 "hold ends at --for or on SIGINT/SIGTERM", strsignal(sig),
		 pid);
	ctl_print_step(o, "signal_ignored", pid, "signal",
		       sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", text);
}

/*
 * Signals that end a hold, plus SIGCHLD (ptrace stops of the target),
 * are blocked from the start and read from a signalfd: one arriving
 * during the attach is acted on once the session exists, so the
 * teardown always runs.
 */
/* Why a hold ended. */
enum hold_end {
	HOLD_TIMEOUT,
	HOLD_SIGNAL,
	HOLD_TARGET_EXIT,
	HOLD_RUNTIME,		/* the target's runtime became ENABLED */
	HOLD_ERROR,
};

/*
 * The one-shot holder's event loop: the session's dbg pipe (runtime
 * handshakes), the signalfd (SIGINT/SIGTERM/SIGHUP end it, SIGCHLD means
 * ptrace stops to pass on) and the deadline (for_ns, 0: none). With
 * until_runtime it also ends once the target's runtime is enabled.
 */
static enum hold_end hold(const struct ctl_out *o, struct session *s,
			  int sfd, uint64_t for_ns, bool until_runtime,
			  int *sig)
{
	uint64_t deadline = for_ns ? monotonic_ns() + for_ns : 0;
	struct signalfd_siginfo si;
	struct pollfd p[2];
	struct gp_err e = {};
	int timeout, r;
	uint64_t now;

	p[0].fd = sfd;
	p[0].events = POLLIN;
	p[1].fd = session_event_fd(s);
	p[1].events = POLLIN;
	for (;;) {
		if (until_runtime && session_runtime_state(s) ==
		    DEBUG_RUNTIME_STATE_ENABLED)
			return HOLD_RUNTIME;
		/* Poll at least every second for target exits that a lost
		 * SIGCHLD would hide; poll once even past the deadline, so
		 * pending signals are seen first. */
		timeout = 1000;
		if (deadline) {
			now = monotonic_ns();
			if (now >= deadline)
				timeout = 0;
			else if ((deadline - now) / 1000000 + 1 < 1000)
				timeout = (deadline - now) / 1000000 + 1;
		}
		r = poll(p, 2, timeout);
		if (r < 0 && errno != EINTR)
			return HOLD_ERROR;
		/* Query even without a byte: KFD writes it from a work item,
		 * after the event is already visible. */
		if (session_handle_event(s, &e))
			ctl_report(o, &e);
		while (r > 0 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (session_signal_ends_hold(si.ssi_signo)) {
				*sig = si.ssi_signo;
				return HOLD_SIGNAL;
			}
			if (si.ssi_signo != SIGCHLD)
				print_ignored(o, session_pid(s), si.ssi_signo);
		}
		if (session_handle_wait(s))
			return HOLD_TARGET_EXIT;
		if (deadline && monotonic_ns() >= deadline)
			return HOLD_TIMEOUT;
	}
}

static void print_signal(const struct ctl_out *o, pid_t pid, int sig)
{
	char text[96];

	snprintf(text, sizeof(text), "%s: releasing pid %d", strsignal(sig),
		 pid);
	ctl_print_step(o, "signal", pid, "signal",
		       sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", text);
}

static void print_target_exit(const struct ctl_out *o, pid_t pid)
{
	char text[64];

	snprintf(text, sizeof(text), "pid %d exited while held", pid);
	ctl_print_step(o, "target_exit", pid, NULL, NULL, text);
}

static void print_detach(const struct ctl_out *o, pid_t pid)
{
	char text[64];

	snprintf(text, sizeof(text), "detached from pid %d", pid);
	ctl_print_step(o, "detach", pid, NULL, NULL, text);
}

static void print_runtime(const struct ctl_out *o, struct session *s,
			  const char *text)
{
	ctl_print_step(o, "runtime", session_pid(s), "runtime_state",
		       kfd_runtime_state_name(session_runtime_state(s)), text);
}

/*
 * --wait-runtime on a process still starting up: it may not have opened
 * /dev/kfd yet (ROCr does in hsa_init, before RUNTIME_ENABLE), and
 * without a KFD process there is nothing to attach to. Wait for it within
 * the same budget (until deadline), ending early on SIGINT/SIGTERM/SIGHUP
 * (HOLD_SIGNAL) or when the pid is gone. sysfs does not notify a new
 * directory, so its KFD_SYSFS_PROC entry is polled every 10 ms. Other
 * outcomes (HOLD_TIMEOUT) are left to session_open() to report.
 */
static enum hold_end wait_kfd_process(const struct ctl_out *o, pid_t pid,
				      int sfd, uint64_t deadline, int *sig)
{
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	struct signalfd_siginfo si;
	struct gp_err e = {};
	char text[160], t[32];

	if (session_has_kfd_process(pid) || session_check_pid(pid, &e))
		return HOLD_TIMEOUT;
	fmt_ns(t, sizeof(t), deadline - monotonic_ns());
	snprintf(text, sizeof(text), "waiting up to %s for pid %d to open "
		 "/dev/kfd", t, pid);
	ctl_print_step(o, "wait_kfd", pid, NULL, NULL, text);
	while (monotonic_ns() < deadline && !session_has_kfd_process(pid) &&
	       !session_check_pid(pid, &e)) {
		if (poll(&p, 1, 10) < 0 && errno != EINTR)
			break;
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (session_signal_ends_hold(si.ssi_signo)) {
				*sig = si.ssi_signo;
				return HOLD_SIGNAL;
			}
		}
	}
	return HOLD_TIMEOUT;
}

/*
 * Attach, optionally wait for the runtime, suspend, hold, resume: what
 * `suspend` does without a daemon. The arguments are read here only;
 * every printer gets the output mode and a result.
 */
int ctl_cmd_suspend(const struct ctl_args *a)
{
	struct ctl_out o = ctl_out_of(a);
	struct session_op op = {}, rop = {};
	struct session *s = NULL;
	struct gp_backend *b;
	struct gp_err e = {};
	struct kfd k = { .fd = -1 };
	char text[160], t[32];
	pid_t pid = a->pid;
	sigset_t old;
	int sfd = -1, ret, rret, sig = 0;
	uint64_t t0, now, wait_end, left;
	enum hold_end end;

	if (ctl_via_daemon(a, &ret))
		return ret;
	if ((b = ctl_cuda_backend(a)))
		return ctl_cmd_suspend_cuda(a, b);
	ret = ctl_prepare(&o, "suspend", pid, &k);
	if (ret)
		return ret;
	sfd = ctl_signals(&o, &old, &ret);
	if (sfd < 0)
		goto cleanup;
	t0 = monotonic_ns();
	/* One --wait-runtime budget for the KFD process and its runtime. */
	wait_end = t0 + a->wait_runtime_ns;
	if (a->wait_runtime_ns &&
	    wait_kfd_process(&o, pid, sfd, wait_end, &sig) == HOLD_SIGNAL) {
		print_signal(&o, pid, sig);
		goto cleanup;
	}
	t0 = monotonic_ns();
	s = session_open(&k, pid, NULL, &e);
	if (!s) {
		ret = ctl_report(&o, &e);
		goto cleanup;
	}
	print_attach(&o, s, monotonic_ns() - t0);
	/* Ctrl-C during the attach: leave without suspending anything. */
	end = hold(&o, s, sfd, 1, false, &sig);
	if (end == HOLD_SIGNAL) {
		print_signal(&o, pid, sig);
		goto cleanup;
	}
	if (end == HOLD_TARGET_EXIT) {
		print_target_exit(&o, pid);
		ret = GP_EXIT_TARGET;
		goto cleanup;
	}

	if (session_runtime_state(s) != DEBUG_RUNTIME_STATE_ENABLED &&
	    a->wait_runtime_ns) {
		now = monotonic_ns();
		/* 1: hold() reads 0 as "no deadline" */
		left = wait_end > now ? wait_end - now : 1;
		fmt_ns(t, sizeof(t), left);
		snprintf(text, sizeof(text), "waiting up to %s for pid %d's "
			 "runtime to enable debug support", t, pid);
		ctl_print_step(&o, "wait_runtime", pid, NULL, NULL, text);
		end = hold(&o, s, sfd, left, true, &sig);
		if (end == HOLD_SIGNAL) {
			print_signal(&o, pid, sig);
			ret = GP_EXIT_OK;
			goto cleanup;
		}
		if (end == HOLD_TARGET_EXIT) {
			print_target_exit(&o, pid);
			ret = GP_EXIT_TARGET;
			goto cleanup;
		}
		snprintf(text, sizeof(text), "pid %d runtime %s", pid,
			 kfd_runtime_state_name(session_runtime_state(s)));
		print_runtime(&o, s, text);
	}

	ret = session_suspend(s, a->queues, a->n_queues, a->grace_period,
			      &op, &e);
	ctl_print_op(&o, &op);
	if (ret && ret != GP_EXIT_PARTIAL) {
		ctl_report(&o, &e);
		goto cleanup;
	}
	if (ret == GP_EXIT_PARTIAL && !o.json)
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);

	if (a->for_ns) {
		fmt_ns(t, sizeof(t), a->for_ns);
		snprintf(text, sizeof(text), "holding pid %d for %s "
			 "(SIGINT/SIGTERM resumes now)", pid, t);
	} else {
		snprintf(text, sizeof(text), "holding pid %d until SIGINT/"
			 "SIGTERM (Ctrl-C)", pid);
	}
	ctl_print_step(&o, "hold", pid, NULL, NULL, text);
	end = hold(&o, s, sfd, a->for_ns, false, &sig);

	if (end == HOLD_TARGET_EXIT) {
		print_target_exit(&o, pid);
		goto cleanup;
	}
	if (end == HOLD_SIGNAL)
		print_signal(&o, pid, sig);
	if (session_runtime_state(s) != DEBUG_RUNTIME_STATE_ENABLED) {
		/* The target disabled its runtime while held (ROCr shutdown):
		 * KFD resumed its queues then; RESUME would only get EPERM. */
		snprintf(text, sizeof(text), "pid %d disabled its runtime "
			 "while held: KFD already resumed its queues", pid);
		print_runtime(&o, s, text);
		goto cleanup;
	}
	rret = session_resume(s, a->queues, a->n_queues, &rop, &e);
	ctl_print_op(&o, &rop);
	if (rret && rret != GP_EXIT_PARTIAL)
		ret = ctl_report(&o, &e);
cleanup:
	if (s) {
		session_close(s);
		print_detach(&o, pid);
	}
	session_op_free(&op);
	session_op_free(&rop);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	kfd_close(&k);
	return ret;
}

int ctl_cmd_resume(const struct ctl_args *a)
{
	struct ctl_out o = ctl_out_of(a);
	struct session_op op = {};
	struct gp_backend *b;
	struct session *s;
	struct gp_err e = {};
	struct kfd k = { .fd = -1 };
	int ret;

	if (ctl_via_daemon(a, &ret))
		return ret;
	if ((b = ctl_cuda_backend(a)))
		return ctl_cmd_resume_cuda(a, b);
	ret = ctl_prepare(&o, "resume", a->pid, &k);
	if (ret)
		return ret;
	s = session_open(&k, a->pid, NULL, &e);
	if (!s) {
		ret = ctl_report(&o, &e);
		goto cleanup;
	}
	ret = session_resume(s, a->queues, a->n_queues, &op, &e);
	ctl_print_op(&o, &op);
	if (ret)
		ctl_report(&o, &e);
	session_close(s);
	print_detach(&o, a->pid);
	session_op_free(&op);
cleanup:
	kfd_close(&k);
	return ret;
}
