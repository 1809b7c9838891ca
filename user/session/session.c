// SPDX-License-Identifier: GPL-2.0
/*
 * One debug session: target checks, ptrace seize, DBG_TRAP enable, the
 * runtime handshake and teardown. See session.h for the thread rule and
 * what the owner's loop must call; ptrace stops are session_ptrace.c's,
 * queue operations session_queues.c's.
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

/* ---- target checks ---------------------------------------------------- */

int session_check_pid(pid_t pid, struct gp_err *e)
{
	unsigned long flags = 0;
	char comm[32];
	long tgid;

	if (pid <= 0)
		return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "invalid pid %d",
				  pid);
	if (pid == 1)
		return gp_err_set(e, GP_EXIT_TARGET, 0, "refusing pid 1 "
				  "(init): stopping it would stall the whole "
				  "system");
	if (pid == getpid())
		return gp_err_set(e, GP_EXIT_TARGET, 0, "refusing pid %d: "
				  "that is gpreempt-ctl itself", pid);
	if (procfs_flags(pid, &flags) < 0)
		return gp_err_set(e, GP_EXIT_TARGET, ESRCH, "no process %d (it "
				  "exited, or is in another pid namespace: "
				  "KFD and gpreempt use host pids)", pid);
	procfs_comm(pid, comm, sizeof(comm));
	if (flags & PF_KTHREAD)
		return gp_err_set(e, GP_EXIT_TARGET, 0, "refusing pid %d (%s): "
				  "it is a kernel thread", pid, comm);
	tgid = procfs_status(pid, "Tgid");
	if (tgid > 0 && tgid != pid)
		return gp_err_set(e, GP_EXIT_TARGET, 0, "pid %d is a thread of "
				  "process %ld (%s): give the process id", pid,
				  tgid, comm);
	return 0;
}

bool session_has_kfd_process(pid_t pid)
{
	char path[96];

	snprintf(path, sizeof(path), KFD_SYSFS_PROC "/%d", (int)pid);
	return access(path, F_OK) == 0;
}

int session_check_target(pid_t pid, struct gp_err *e)
{
	char comm[32], path[96];

	if (session_check_pid(pid, e))
		return -1;
	if (!session_has_kfd_process(pid)) {
		snprintf(path, sizeof(path), KFD_SYSFS_PROC "/%d", (int)pid);
		procfs_comm(pid, comm, sizeof(comm));
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "pid %d (%s) has no KFD process (%s is absent): it "
			   "never opened /dev/kfd, so it has no GPU queues; "
			   "see 'gpreempt-ctl list'", pid, comm, path);
		return -1;
	}
	return 0;
}

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
