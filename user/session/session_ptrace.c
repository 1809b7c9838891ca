// SPDX-License-Identifier: GPL-2.0
/*
 * A session's teardown and ptrace side (the ptrace work is tracee.c's),
 * and the signalfd a holder's loop polls.
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

/* How long session_close() (one-shot holders) waits for the detach. */
#define DETACH_WAIT_MS 2000

/* ---- ptrace (tracee.c does the work) --------------------------------- */

int session_handle_wait(struct session *s)
{
	tracee_reap(&s->tr);
	return session_alive(s) ? 0 : 1;
}

/*
 * DISABLE before the detach: if the leader raced into RUNTIME_ENABLE
 * between the drain and DISABLE, the interrupt of the detach makes its
 * down_interruptible() return -EINTR, the runtime retries the ioctl and,
 * debug now off, it returns at once.
 */
int session_release(struct session *s)
{
	struct gp_err e;

	tracee_reap(&s->tr);
	if (s->tr.alive && s->enabled && !s->tr.detaching) {
		/* Answer a pending runtime handshake first: DISABLE does not
		 * release a target blocked in RUNTIME_ENABLE. */
		session_handle_event(s, &e);
		if (s->n_held)
			kfd_dbg_resume(s->kfd, s->pid, s->held, s->n_held);
		/* DISABLE resumes every queue still suspended. */
		kfd_dbg_disable(s->kfd, s->pid);
		s->enabled = false;
		s->n_held = 0;
	}
	return tracee_detach_begin(&s->tr);
}

int session_detach_poll(struct session *s)
{
	return tracee_detach_poll(&s->tr);
}

void session_close(struct session *s)
{
	struct timespec ts = { 0, NSEC_PER_MSEC };
	uint64_t end = monotonic_ns() + DETACH_WAIT_MS * NSEC_PER_MSEC;

	if (!s)
		return;
	/* a one-shot holder exits right after: what is left undone here
	 * the kernel finishes when it does (exit_ptrace) */
	for (int done = session_release(s); !done && monotonic_ns() < end;
	     done = session_detach_poll(s))
		nanosleep(&ts, NULL);
	session_free(s);
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
	/*
	 * Job-control stops too: a holder stopped by Ctrl-Z cannot end its
	 * hold, so --for would last until SIGCONT. Blocked, they never stop
	 * us; the loop reads them and says they are ignored.
	 */
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGTTIN);
	sigaddset(&set, SIGTTOU);
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

bool session_signal_ends_hold(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}
