/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ptrace side of a session, alone so that it runs (and is tested)
 * without KFD: seize a process with PTRACE_SEIZE (no stop), pass every
 * stop on so it behaves as if untraced, and detach without ever
 * blocking.
 *
 * DETACH. PTRACE_DETACH needs the tracee in a ptrace stop, so a detach
 * is PTRACE_INTERRUPT then, once the stop is reported, PTRACE_DETACH.
 * The stop can come late: a tracee waiting for a vfork child, or in any
 * killable or uninterruptible sleep, stops only when that ends; a
 * thread-group leader that exited before its threads is reported only
 * when the last thread exits, and until its tracer reaps that report
 * its parent cannot reap it. So a detach is begun, then polled (on
 * SIGCHLD, which the stop raises, and periodically) until it is done,
 * and the owner keeps the tracee until then: giving up after a timeout
 * left the tracee stopped in state 't' for good, or a zombie nobody
 * reaps, for as long as the tracer lived.
 */
#ifndef GP_TRACEE_H
#define GP_TRACEE_H

#include <stdbool.h>
#include <sys/types.h>

struct tracee {
	pid_t pid;
	int pidfd;		/* the process, not the number; -1 none */
	bool alive;		/* seized, exit not seen yet */
	bool detaching;		/* detach begun, not finished */
};

/*
 * PTRACE_SEIZE pid (no stop). pidfd (or -1): a pidfd_open() of pid made
 * before the caller checked the process; t keeps it (tracee_close()).
 * After the seize the pidfd must still name a live process: then the
 * pid was never free, so the seized process is the one checked. If it
 * is gone, the pid may have been recycled to a stranger: -ESRCH with
 * t->alive true, and the caller detaches (tracee_detach_begin()) as
 * after any failure that follows a seize. 0, or -errno (t->alive false).
 */
int tracee_seize(struct tracee *t, pid_t pid, int pidfd);
/* Close the pidfd. After the detach is done. */
void tracee_close(struct tracee *t);
/*
 * Reap the tracee's pending stops without blocking and pass each on
 * (signals re-delivered, group-stops kept with PTRACE_LISTEN). 1 once
 * the tracee is gone (exited or killed), 0 otherwise.
 */
int tracee_reap(struct tracee *t);
/*
 * Begin detaching. 1 when already done (the tracee is gone), else 0:
 * call tracee_detach_poll() until it returns 1. Never blocks.
 */
int tracee_detach_begin(struct tracee *t);
/* 1 when detached or gone (t->detaching false), 0 while pending. */
int tracee_detach_poll(struct tracee *t);

#endif
