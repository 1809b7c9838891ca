// SPDX-License-Identifier: GPL-2.0
/*
 * LAYER 2 of 3, the debug-trap session: ptrace seize, DBG_TRAP enable,
 * the runtime handshake, the queue snapshot, release and close. Calls
 * down only: layer 1 (tracee.c for ptrace, session_ptrace.c for the
 * target checks) and user/kfd. Layer 3 (session_queues.c) calls it,
 * never the other way. The snapshot lives here, not in layer 3, because
 * session_open() takes the first one. See session.h for the thread rule
 * and what the owner's loop must call.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "exitcodes.h"
#include "procfs.h"
#include "session_int.h"
#include "util.h"

/* Bound on debug events handled per wake-up: the kernel reports the
 * same event until it is cleared, so a clear that fails must not spin. */
#define MAX_EVENTS_PER_WAKE 64

/* ---- events ----------------------------------------------------------- */

void session_mark_gone_if(struct session *s, int r)
{
	if (r == -ESRCH)
		s->enabled = false;
}

int session_handle_event(struct session *s, struct gp_err *e)
{
	struct kfd_runtime_info ri;
	uint64_t raised;
	char buf[64];
	int i, r;

	while (read(s->pipe_rd, buf, sizeof(buf)) > 0)
		;
	if (!s->tr.alive || !s->enabled)
		return 0;
	for (i = 0; i < MAX_EVENTS_PER_WAKE; i++) {
		/* Peek (clear nothing): the runtime info below can only be
		 * read while EC_PROCESS_RUNTIME is still raised. */
		r = kfd_dbg_query_event(s->kfd, s->pid, 0, &raised, NULL,
					NULL);
		if (r == -EAGAIN)
			return 0;
		if (r == -ESRCH) {
			/* gone: not an error of ours to report */
			session_mark_gone_if(s, r);
			return 0;
		}
		if (r < 0) {
			kfd_err(e, KFD_CALL_QUERY_EVENT, s->pid, -r);
			return -1;
		}
		if (raised & GP_EC_PROCESS_RUNTIME) {
			/* The target entered RUNTIME_ENABLE or _DISABLE
			 * and waits for us (ROCdbgapi answers the same). */
			if (kfd_dbg_runtime_info(s->kfd, s->pid, &ri) == 0)
				s->runtime_state = ri.runtime_state;
			/* RUNTIME_DISABLE deactivated debug, which resumed
			 * every queue: nothing is held any more. */
			if (s->runtime_state != DEBUG_RUNTIME_STATE_ENABLED)
				s->n_held = 0;
			else
				kfd_dbg_query_event(s->kfd, s->pid,
						    GP_EC_PROCESS_RUNTIME,
						    &raised, NULL, NULL);
			r = kfd_dbg_send_runtime_event(s->kfd, s->pid,
						       GP_EC_PROCESS_RUNTIME,
						       0, 0);
			if (r < 0) {
				session_mark_gone_if(s, r);
				kfd_err(e, KFD_CALL_SEND_RUNTIME_EVENT, s->pid,
					-r);
				return -1;
			}
		} else {
			/* Not subscribed by us; clear so it stops
			 * reporting. */
			kfd_dbg_query_event(s->kfd, s->pid, raised, &raised,
					    NULL, NULL);
		}
	}
	return 0;
}

/* ---- open / close ----------------------------------------------------- */

void session_free(struct session *s)
{
	tracee_close(&s->tr);
	if (s->pipe_rd >= 0)
		close(s->pipe_rd);
	if (s->pipe_wr >= 0)
		close(s->pipe_wr);
	free(s->snap);
	free(s->held);
	free(s);
}

struct session *session_open(struct kfd *kfd, pid_t pid,
			     struct session **detaching, struct gp_err *e)
{
	struct kfd_runtime_info ri;
	struct session *s;
	int fds[2], r, pidfd;
	long tracer;

	/*
	 * The process, not its number, from before the checks on: if it
	 * dies and its pid is reused before the seize, tracee_seize() sees
	 * it and the stranger is let go untouched.
	 */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 && pid > 0 && errno == ESRCH)
		return gp_err_set(e, GP_EXIT_TARGET, ESRCH, "no process %d "
				  "(it exited, or is in another pid namespace: "
				  "KFD and gpreempt use host pids)", pid), NULL;
	if (session_check_target(pid, e))
		goto refuse;
	tracer = procfs_tracer(pid);
	if (tracer > 0) {
		char comm[32];

		procfs_comm((pid_t)tracer, comm, sizeof(comm));
		if (!strcmp(comm, "gpreempt-ctl"))
			gp_err_set(e, GP_EXIT_BUSY, EBUSY,
				   "pid %d is held by gpreempt-ctl pid %ld: "
				   "a suspension lives as long as its holder; "
				   "stop it (kill -INT %ld) to resume, or use "
				   "the daemon for both", pid, tracer, tracer);
		else
			gp_err_set(e, GP_EXIT_BUSY, EBUSY,
				   "pid %d is already traced by pid %ld (%s), "
				   "e.g. rocgdb or strace; one tracer per "
				   "process: stop it first", pid, tracer,
				   comm);
		goto refuse;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		goto refuse;
	}
	s->kfd = kfd;
	s->pid = pid;
	s->tr.pidfd = pidfd;
	s->pipe_rd = s->pipe_wr = -1;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "pipe: %s",
			   strerror(errno));
		goto fail;
	}
	s->pipe_rd = fds[0];
	s->pipe_wr = fds[1];

	r = tracee_seize(&s->tr, pid, pidfd);
	if (r == -ESRCH && s->tr.alive) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH, "pid %d exited during "
			   "the attach (the pid may already name another "
			   "process, which was left alone)", pid);
		goto fail;
	}
	if (r == -EPERM) {
		kfd_ptrace_denied(e, pid, caps_have(CAP_SYS_PTRACE),
				  procfs_tracer(pid), procfs_yama_scope());
		goto fail;
	}
	if (r < 0) {
		kfd_err(e, KFD_CALL_PTRACE, pid, -r);
		goto fail;
	}
	r = kfd_dbg_enable(kfd, pid, s->pipe_wr, GP_EC_PROCESS_RUNTIME, &ri);
	if (r < 0) {
		kfd_err(e, KFD_CALL_ENABLE, pid, -r);
		goto fail;
	}
	s->enabled = true;
	s->runtime_state = ri.runtime_state;
	r = kfd_dbg_set_exceptions(kfd, pid, GP_EC_PROCESS_RUNTIME);
	if (r < 0) {
		kfd_err(e, KFD_CALL_SET_EXCEPTIONS, pid, -r);
		goto fail;
	}
	if (session_snapshot(s, e))
		goto fail;
	return s;
fail:
	if (!detaching || session_release(s))
		session_close(s);
	else
		*detaching = s;	/* the caller finishes the detach */
	return NULL;
refuse:
	if (pidfd >= 0)
		close(pidfd);
	return NULL;
}

/* ---- the queue snapshot (every operation above refreshes it) ------ */

int session_snapshot(struct session *s, struct gp_err *e)
{
	struct kfd_queue_snapshot_entry *buf;
	uint32_t num, filled = 0;
	int r, tries;

	if (!session_alive(s)) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH,
			   "pid %d has exited", s->pid);
		return -1;
	}
	for (tries = 0; tries < 4; tries++) {
		if (s->cap_snap < 16) {
			buf = realloc(s->snap, 16 * sizeof(*buf));
			if (!buf)
				goto nomem;
			s->snap = buf;
			s->cap_snap = 16;
		}
		num = filled = s->cap_snap;
		r = kfd_dbg_queue_snapshot(s->kfd, s->pid, s->snap, &num);
		if (r < 0) {
			session_mark_gone_if(s, r);
			kfd_err(e, KFD_CALL_SNAPSHOT, s->pid, -r);
			return -1;
		}
		if (num <= s->cap_snap) {
			s->n_snap = num;
			return 0;
		}
		/* More queues than room: grow (with slack, as ROCdbgapi
		 * does) and ask again. */
		buf = realloc(s->snap, (num + 16) * sizeof(*buf));
		if (!buf)
			goto nomem;
		s->snap = buf;
		s->cap_snap = num + 16;
	}
	/*
	 * Still growing after 4 tries (queues created as fast as we ask):
	 * keep what the last call filled. The buffer grew after it, and the
	 * entries past `filled` were never written.
	 */
	s->n_snap = filled;
	return 0;
nomem:
	gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
	return -1;
}

/* How long session_close() (one-shot holders) waits for the detach. */
#define DETACH_WAIT_MS 2000

/* ---- release and close (tracee.c does the ptrace work) -------------- */

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

/* ---- accessors -------------------------------------------------------- */

pid_t session_pid(const struct session *s)
{
	return s->pid;
}

int session_event_fd(const struct session *s)
{
	return s->pipe_rd;
}

bool session_alive(const struct session *s)
{
	return s->tr.alive && s->enabled && !s->tr.detaching;
}

uint32_t session_runtime_state(const struct session *s)
{
	return s->runtime_state;
}

uint32_t session_suspended_count(const struct session *s)
{
	return s->n_held;
}

const struct kfd_queue_snapshot_entry *
session_queues(const struct session *s, uint32_t *n)
{
	*n = s->n_snap;
	return s->snap;
}
