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

#include "ctl_cmd.h"
#include "exitcodes.h"
#include "json.h"
#include "util.h"

#define CAP_SYS_PTRACE_BIT 19

bool ctl_has_cap(int cap)
{
	char buf[4096], *p;
	unsigned long long eff;
	FILE *f = fopen("/proc/self/status", "re");
	bool has = false;

	if (!f)
		return geteuid() == 0;
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "CapEff:", 7))
			continue;
		p = buf + 7;
		eff = strtoull(p, NULL, 16);
		has = (eff >> cap) & 1;
		break;
	}
	fclose(f);
	return has;
}

int ctl_prepare(const struct ctl_args *a, struct kfd *k)
{
	struct gp_err e = {};

	if (session_check_pid(a->pid, &e))
		return ctl_report(a, &e);
	if (!ctl_has_cap(CAP_SYS_PTRACE_BIT)) {
		gp_err_set(&e, GP_EXIT_PRIV, EPERM,
			   "%s needs root (CAP_SYS_PTRACE): gpreempt-ctl "
			   "becomes the target's ptrace tracer; run it with "
			   "sudo", ctl_cmd_name(a->cmd));
		return ctl_report(a, &e);
	}
	if (kfd_open_debug(k, &e))
		return ctl_report(a, &e);
	return 0;
}

static void print_attach(const struct ctl_args *a, struct session *s,
			 uint64_t ns)
{
	const struct kfd_queue_snapshot_entry *q;
	char t[32];
	uint32_t n, i;
	struct json j;

	q = session_queues(s, &n);
	if (a->json) {
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
	ctl_fmt_ns(t, sizeof(t), ns);
	printf("attached to pid %d: runtime %s, %u queue%s (attach %s)\n",
	       session_pid(s), kfd_runtime_state_name(session_runtime_state(s)),
	       n, n == 1 ? "" : "s", t);
	for (i = 0; a->verbose && i < n; i++)
		printf("  queue %-6u gpu 0x%x %-12s ring %u bytes at 0x%llx\n",
		       q[i].queue_id, q[i].gpu_id,
		       kfd_queue_type_name(q[i].queue_type), q[i].ring_size,
		       (unsigned long long)q[i].ring_base_address);
	fflush(stdout);
}

static void print_line(const struct ctl_args *a, const char *type,
		       pid_t pid, const char *key, const char *val,
		       const char *text)
{
	struct json j;

	if (a->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", type);
		json_s64(&j, "pid", pid);
		if (key)
			json_str(&j, key, val);
		json_end(&j);
		return;
	}
	printf("%s\n", text);
	fflush(stdout);
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
static enum hold_end hold(const struct ctl_args *a, struct session *s,
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
			ctl_report(a, &e);
		while (r > 0 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD) {
				*sig = si.ssi_signo;
				return HOLD_SIGNAL;
			}
		}
		if (session_handle_wait(s))
			return HOLD_TARGET_EXIT;
		if (deadline && monotonic_ns() >= deadline)
			return HOLD_TIMEOUT;
	}
}

static void print_signal(const struct ctl_args *a, int sig)
{
	char text[96];

	snprintf(text, sizeof(text), "%s: releasing pid %d", strsignal(sig),
		 a->pid);
	print_line(a, "signal", a->pid, "signal",
		   sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", text);
}

static void print_target_exit(const struct ctl_args *a)
{
	char text[64];

	snprintf(text, sizeof(text), "pid %d exited while held", a->pid);
	print_line(a, "target_exit", a->pid, NULL, NULL, text);
}

int ctl_cmd_suspend(const struct ctl_args *a)
{
	struct session_op op = {}, rop = {};
	struct session *s = NULL;
	struct gp_err e = {};
	struct kfd k = { .fd = -1 };
	char text[160], t[32];
	sigset_t old;
	int sfd = -1, ret, rret, sig = 0;
	uint64_t t0;
	enum hold_end end;

	if (ctl_via_daemon(a, &ret))
		return ret;
	ret = ctl_prepare(a, &k);
	if (ret)
		return ret;
	/* A closed stdout must not kill us before the teardown. */
	signal(SIGPIPE, SIG_IGN);
	sfd = session_signalfd(&old);
	if (sfd < 0) {
		gp_err_set(&e, GP_EXIT_FAILURE, -sfd, "signalfd: %s",
			   strerror(-sfd));
		ret = ctl_report(a, &e);
		goto cleanup;
	}
	t0 = monotonic_ns();
	s = session_open(&k, a->pid, &e);
	if (!s) {
		ret = ctl_report(a, &e);
		goto cleanup;
	}
	print_attach(a, s, monotonic_ns() - t0);
	/* Ctrl-C during the attach: leave without suspending anything. */
	end = hold(a, s, sfd, 1, false, &sig);
	if (end == HOLD_SIGNAL) {
		print_signal(a, sig);
		goto cleanup;
	}
	if (end == HOLD_TARGET_EXIT) {
		print_target_exit(a);
		ret = GP_EXIT_TARGET;
		goto cleanup;
	}

	if (session_runtime_state(s) != DEBUG_RUNTIME_STATE_ENABLED &&
	    a->wait_runtime_ns) {
		ctl_fmt_ns(t, sizeof(t), a->wait_runtime_ns);
		snprintf(text, sizeof(text), "waiting up to %s for pid %d's "
			 "runtime to enable debug support", t, a->pid);
		print_line(a, "wait_runtime", a->pid, NULL, NULL, text);
		end = hold(a, s, sfd, a->wait_runtime_ns, true, &sig);
		if (end == HOLD_SIGNAL) {
			print_signal(a, sig);
			ret = GP_EXIT_OK;
			goto cleanup;
		}
		if (end == HOLD_TARGET_EXIT) {
			print_target_exit(a);
			ret = GP_EXIT_TARGET;
			goto cleanup;
		}
		snprintf(text, sizeof(text), "pid %d runtime %s", a->pid,
			 kfd_runtime_state_name(session_runtime_state(s)));
		print_line(a, "runtime", a->pid, "runtime_state",
			   kfd_runtime_state_name(session_runtime_state(s)),
			   text);
	}

	ret = session_suspend(s, a->queues, a->n_queues, a->grace_period,
			      &op, &e);
	ctl_print_op(a, a->pid, &op);
	if (ret && ret != GP_EXIT_PARTIAL) {
		ctl_report(a, &e);
		goto cleanup;
	}
	if (ret == GP_EXIT_PARTIAL && !a->json)
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);

	if (a->for_ns) {
		ctl_fmt_ns(t, sizeof(t), a->for_ns);
		snprintf(text, sizeof(text), "holding pid %d for %s "
			 "(SIGINT/SIGTERM resumes now)", a->pid, t);
	} else {
		snprintf(text, sizeof(text), "holding pid %d until SIGINT/"
			 "SIGTERM (Ctrl-C)", a->pid);
	}
	print_line(a, "hold", a->pid, NULL, NULL, text);
	end = hold(a, s, sfd, a->for_ns, false, &sig);

	if (end == HOLD_TARGET_EXIT) {
		print_target_exit(a);
		goto cleanup;
	}
	if (end == HOLD_SIGNAL)
		print_signal(a, sig);
	if (session_runtime_state(s) != DEBUG_RUNTIME_STATE_ENABLED) {
		/* The target disabled its runtime while held (ROCr shutdown):
		 * KFD resumed its queues then; RESUME would only get EPERM. */
		snprintf(text, sizeof(text), "pid %d disabled its runtime "
			 "while held: KFD already resumed its queues", a->pid);
		print_line(a, "runtime", a->pid, "runtime_state",
			   kfd_runtime_state_name(session_runtime_state(s)),
			   text);
		goto cleanup;
	}
	rret = session_resume(s, a->queues, a->n_queues, &rop, &e);
	ctl_print_op(a, a->pid, &rop);
	if (rret && rret != GP_EXIT_PARTIAL)
		ret = ctl_report(a, &e);
cleanup:
	if (s) {
		session_close(s);
		snprintf(text, sizeof(text), "detached from pid %d", a->pid);
		print_line(a, "detach", a->pid, NULL, NULL, text);
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
	struct session_op op = {};
	struct session *s;
	struct gp_err e = {};
	struct kfd k = { .fd = -1 };
	char text[96];
	int ret;

	if (ctl_via_daemon(a, &ret))
		return ret;
	ret = ctl_prepare(a, &k);
	if (ret)
		return ret;
	s = session_open(&k, a->pid, &e);
	if (!s) {
		ret = ctl_report(a, &e);
		goto cleanup;
	}
	ret = session_resume(s, a->queues, a->n_queues, &op, &e);
	ctl_print_op(a, a->pid, &op);
	if (ret)
		ctl_report(a, &e);
	session_close(s);
	snprintf(text, sizeof(text), "detached from pid %d", a->pid);
	print_line(a, "detach", a->pid, NULL, NULL, text);
	session_op_free(&op);
cleanup:
	kfd_close(&k);
	return ret;
}
