// SPDX-License-Identifier: GPL-2.0
/* The ptrace side of a session: seize, pass stops on, detach (tracee.h). */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracee.h"

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

/*
 * A detaching tracee's stop: detach from it (a group-stopped tracee
 * stays stopped after detach, as it should; a signal stop is detached
 * with its signal, so nothing is lost). Returns 1 when detached, 0 when
 * the stop was not the one to detach at.
 */
static int detach_at(pid_t pid, int status)
{
	int event = status >> 16;

	if (event == PTRACE_EVENT_STOP) {
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return 1;
	}
	if (event) {
		ptrace(PTRACE_CONT, pid, 0, 0);
		return 0;
	}
	ptrace(PTRACE_DETACH, pid, 0, (void *)(long)WSTOPSIG(status));
	return 1;
}

int tracee_seize(struct tracee *t, pid_t pid, int pidfd)
{
	t->pid = pid;
	t->pidfd = pidfd;
	t->detaching = false;
	t->alive = ptrace(PTRACE_SEIZE, pid, 0, 0) == 0;
	if (!t->alive)
		return -errno;
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0))
		return -ESRCH;	/* the checked process died: a stranger? */
	return 0;
}

void tracee_close(struct tracee *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

/*
 * Reap what waitpid() reports, without blocking. Exits end everything;
 * stops are passed on, or detached at when detaching. 1 when the tracee
 * is gone or detached, 0 while it is still ours.
 */
static int reap(struct tracee *t)
{
	int status;
	pid_t r;

	while (t->alive) {
		r = waitpid(t->pid, &status, __WALL | WNOHANG);
		if (r == 0)
			return 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* ECHILD: no longer our tracee, so it is gone */
			t->alive = false;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->alive = false;
			break;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (!t->detaching) {
			pass_stop(t->pid, status);
		} else if (detach_at(t->pid, status)) {
			t->alive = false;
			break;
		}
	}
	t->detaching = false;
	return 1;
}

int tracee_reap(struct tracee *t)
{
	if (t->detaching)
		return tracee_detach_poll(t);
	return reap(t);
}

int tracee_detach_begin(struct tracee *t)
{
	if (!t->alive)
		return 1;
	t->detaching = true;
	/*
	 * ESRCH here is no proof the tracee is gone: a zombie leader
	 * whose threads run on refuses the interrupt, yet its exit is
	 * still ours to reap. Only waitpid() says when it is over.
	 */
	ptrace(PTRACE_INTERRUPT, t->pid, 0, 0);
	return reap(t);
}

int tracee_detach_poll(struct tracee *t)
{
	if (!t->detaching)
		return 1;
	return reap(t);
}
