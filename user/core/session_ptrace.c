// SPDX-License-Identifier: GPL-2.0
/*
 * A session's ptrace side: reaping the target's stops so it behaves as
 * if untraced, detaching, and the signalfd a holder's loop polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exitcodes.h"
#include "procfs.h"
#include "session_int.h"
#include "util.h"

/* How long session_close() waits for the target's interrupt stop. */
#define DETACH_WAIT_MS 2000

/* ---- ptrace ----------------------------------------------------------- */

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/*
 * Resume the tracee from one ptrace stop so that it behaves as if
 * untraced (PTRACE_SEIZE semantics, ptrace(2) "Group-stop" and
 * "Signal-delivery-stop").
 */
static void pass_stop(pid_t pid, int status)
{
	int sig = WSTOPSIG(status);
	int event = status >> 16;

	if (event == PTRACE_EVENT_STOP) {
		if (is_stop_signal(sig))
			/* group-stop: stay stopped until SIGCONT */
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else
			/* PTRACE_INTERRUPT or SIGCONT-after-LISTEN */
			ptrace(PTRACE_CONT, pid, 0, 0);
	} else if (event) {
		ptrace(PTRACE_CONT, pid, 0, 0);
	} else {
		/* signal-delivery-stop: deliver the signal after all */
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
}

int session_handle_wait(struct session *s)
{
	int status;
	pid_t r;

	while (s->alive) {
		r = waitpid(s->pid, &status, __WALL | WNOHANG);
		if (r == 0)
			return 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* ECHILD: no longer our tracee, so it is gone */
			s->alive = false;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			s->alive = false;
			break;
		}
		if (WIFSTOPPED(status))
			pass_stop(s->pid, status);
	}
	return session_alive(s) ? 0 : 1;
}

/*
 * PTRACE_DETACH needs a stopped tracee: interrupt it, wait for the stop
 * (passing on any signal stop met on the way), then detach. A signal
 * stop is detached with its signal, so nothing is lost.
 */
void session_detach(struct session *s)
{
	struct timespec ts = { 0, 1000000 };
	int status, i;
	pid_t r;

	if (!s->alive)
		return;
	if (ptrace(PTRACE_INTERRUPT, s->pid, 0, 0) < 0) {
		s->alive = errno != ESRCH;
		return;
	}
	for (i = 0; i < DETACH_WAIT_MS; i++) {
		r = waitpid(s->pid, &status, __WALL | WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r > 0 && !WIFSTOPPED(status))) {
			s->alive = false;
			return;
		}
		if (r == 0) {
			nanosleep(&ts, NULL);
			continue;
		}
		if ((status >> 16) == PTRACE_EVENT_STOP) {
			/* interrupt or group stop: a group-stopped tracee
			 * stays stopped after detach, as it should */
			ptrace(PTRACE_DETACH, s->pid, 0, 0);
			return;
		}
		if (status >> 16) {
			ptrace(PTRACE_CONT, s->pid, 0, 0);
			continue;
		}
		ptrace(PTRACE_DETACH, s->pid, 0,
		       (void *)(long)WSTOPSIG(status));
		return;
	}
	/* Still running after DETACH_WAIT_MS (e.g. in an uninterruptible
	 * sleep): the kernel detaches it when this process exits. */
}

int session_signalfd(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	/*
	 * A shell starts background jobs with SIGINT ignored, and an
	 * ignored signal is dropped, never pending: restore the default
	 * so the signalfd sees every stop request.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		sigprocmask(SIG_SETMASK, old, NULL);
	}
	return fd;
}
