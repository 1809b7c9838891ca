/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One debug session: this process holding one target's KFD debug state.
 * Used by the one-shot `gpreempt-ctl suspend` and by the daemon, which
 * holds many sessions in one single-threaded poll loop.
 *
 * LAYERS, each calling only down (user/session/README.md):
 *  1. ptrace primitives: tracee.c (seize, pass stops on, detach without
 *     blocking) and session_ptrace.c (target checks, the holder's
 *     signalfd); they take pids, never a session;
 *  2. the debug-trap session: session.c (open = attach + enable, the
 *     runtime handshake, the queue snapshot, release, close);
 *  3. queue operations: session_queues.c (suspend and resume of a
 *     subset, each queue's result).
 *
 * THREAD RULE. session_open() PTRACE_SEIZEs the target's thread-group
 * leader, and KFD accepts DBG_TRAP ops only from the thread that is the
 * leader's ptrace parent (kfd-reference.md section 2). Every function
 * below must therefore run on the thread that called session_open() for
 * that session. Run the whole daemon loop on one thread.
 *
 * What the owner's event loop must do for every live session:
 *  1. poll session_event_fd() for POLLIN and call session_handle_event():
 *     it answers the runtime handshake (EC_PROCESS_RUNTIME ->
 *     SEND_RUNTIME_EVENT), so a target that enables (or disables) its
 *     runtime after the attach never stays blocked in the kernel;
 *  2. on SIGCHLD (block it and poll a signalfd, or a self-pipe), call
 *     session_handle_wait(): it reaps the ptrace stops of this target
 *     (waitpid(pid, __WALL|WNOHANG)), re-injects signals so the target
 *     behaves as if untraced, keeps group-stops stopped with
 *     PTRACE_LISTEN, and notices the target's exit. Calling it when
 *     nothing is pending is harmless; calling it periodically (e.g. every
 *     poll timeout) is a good safety net;
 *  3. on every exit path (normal end, error, SIGINT, SIGTERM, SIGHUP)
 *     session_release(), which resumes what it suspended, DISABLEs debug
 *     (the kernel then resumes all queues) and begins the detach, then
 *     session_detach_poll() until done and session_free() (a one-shot
 *     holder that exits next may call session_close()).
 * If the holder is SIGKILLed, the kernel's mm-release notifier of the
 * holder DISABLEs debug on every target, which resumes their queues.
 *
 * Suspend/resume on a session cost one ioctl each (microseconds on MES,
 * one device-wide preemption on HWS GPUs); attaching is the slow part.
 */
#ifndef GP_SESSION_H
#define GP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "kfd.h"

struct session;

/*
 * The checks of session_check_target() that need no KFD: pid 1, this
 * process, no such pid, a kernel thread, a non-leader thread. Callers run
 * it before touching /dev/kfd so bad targets are refused on any machine.
 */
int session_check_pid(pid_t pid, struct gp_err *e);

/* Has pid opened /dev/kfd (KFD_SYSFS_PROC/<pid> exists)? */
bool session_has_kfd_process(pid_t pid);

/*
 * Refuse targets gpreempt must never touch, with a message and exit code
 * in e (GP_EXIT_TARGET): pid 1, this process, a kernel thread, a pid that
 * does not exist, a pid with no KFD process
 * (/sys/class/kfd/kfd/proc/<pid> absent), a thread that is not a
 * thread-group leader. 0 if acceptable, -1 otherwise. Does not attach.
 */
int session_check_target(pid_t pid, struct gp_err *e);

/*
 * Attach to pid: check it (session_check_target), PTRACE_SEIZE its leader
 * (no stop), create the non-blocking dbg pipe, DBG_TRAP ENABLE with
 * EC_PROCESS_RUNTIME, SET_EXCEPTIONS_ENABLED, and a first queue snapshot
 * (clearing EC_QUEUE_NEW). kfd must stay open for the session's life and
 * may be shared by many sessions. NULL on failure, with e filled (exit
 * codes: 8 target, 9 busy/another debugger, 7 no debug API, 3 privilege).
 * Everything done before the failure is undone; when the detach that
 * undoes the attach cannot finish at once (tracee.h) and detaching is
 * not NULL, *detaching gets the session to finish with
 * session_detach_poll() and session_free(); with NULL, session_close().
 */
struct session *session_open(struct kfd *kfd, pid_t pid,
			     struct session **detaching, struct gp_err *e);

/*
 * Block SIGINT, SIGTERM, SIGHUP, SIGCHLD and the job-control stops
 * (SIGTSTP, SIGTTIN, SIGTTOU: a stopped holder would stretch its hold)
 * and return a non-blocking signalfd for them (-errno on failure; *old
 * gets the previous mask), so a holder's poll loop turns every stop
 * request into session_close(), every ptrace stop into
 * session_handle_wait(), and ignores the rest.
 */
int session_signalfd(sigset_t *old);
/* SIGINT, SIGTERM, SIGHUP end a hold; the other signals of the set do not. */
bool session_signal_ends_hold(int sig);

/*
 * Teardown without blocking (the daemon): resume what this session
 * suspended, DISABLE (the kernel resumes every queue), begin the detach.
 * 1 when the target is detached or gone, 0 when the detach is pending:
 * poll session_detach_poll() on SIGCHLD and periodically until it
 * returns 1, then session_free(). Never free a session before: its
 * target would stay traced, stopped or an unreaped zombie (tracee.h).
 */
int session_release(struct session *s);
int session_detach_poll(struct session *s);
void session_free(struct session *s);
/*
 * One-shot holders: release, wait for the detach up to 2 s, free. NULL
 * ok. The caller must exit soon after: the kernel completes a detach
 * left pending when its tracer exits.
 */
void session_close(struct session *s);

pid_t session_pid(const struct session *s);
/* Read end of the dbg pipe: POLLIN -> session_handle_event(). */
int session_event_fd(const struct session *s);
/* false once the target exited or vanished; only session_close() left. */
bool session_alive(const struct session *s);
/* The target's runtime state (DEBUG_RUNTIME_STATE_*), as last seen. */
uint32_t session_runtime_state(const struct session *s);
/* Number of queues this session holds suspended. */
uint32_t session_suspended_count(const struct session *s);

/*
 * Drain the dbg pipe and every pending debug event; answer
 * EC_PROCESS_RUNTIME with SEND_RUNTIME_EVENT. Call it on POLLIN, and
 * cheaply on any wake-up: KFD writes the pipe byte from a work item,
 * after the event is already visible. 0 (also when the target turned
 * out to be gone: session_alive() is then false), or -1 with e filled
 * on an unexpected KFD error.
 */
int session_handle_event(struct session *s, struct gp_err *e);

/*
 * Reap pending ptrace stops of the target without blocking. Returns 1 if
 * the target is gone (exited or killed), 0 otherwise.
 */
int session_handle_wait(struct session *s);

/* Result of one suspend or resume call. */
struct session_qres {
	uint32_t id;		/* queue id as requested */
	enum kfd_qstatus status;
};

/*
 * The result of one suspend or resume: made by session_suspend/_resume,
 * carried over the daemon's socket (proto.h formats and parses it) and
 * printed by the CLI, one type all the way.
 */
struct session_op {
	enum kfd_call call;	/* KFD_CALL_SUSPEND or KFD_CALL_RESUME */
	pid_t pid;		/* the target */
	int ret;		/* queues acted on (>= 0), or -errno */
	uint64_t ns;		/* duration of the ioctl */
	uint64_t snapshot_ns;	/* duration of the snapshot before, or 0 */
	uint32_t n;		/* queues requested */
	uint32_t n_ok, n_invalid, n_error;
	uint32_t nq;		/* entries in q: n, or fewer in a daemon's
				 * reply (cut at PROTO_MAX_QUEUES) */
	struct session_qres *q;	/* from session_*: malloc'd, free with
				 * session_op_free(); from a reply: points
				 * into the proto_reply, never freed */
};

void session_op_free(struct session_op *op);

/*
 * Suspend ids[0..n), or when n == 0 every queue of a fresh snapshot.
 * A snapshot is always taken first so queues created since the last one
 * are accepted. grace_period: 1K-GPU-cycle units (see kfd.h). Fills op
 * (always, even on failure: op->ret). Returns 0 if every queue is ok,
 * GP_EXIT_PARTIAL if some were invalid or failed, or another exit code
 * with e filled when the ioctl itself failed.
 */
int session_suspend(struct session *s, const uint32_t *ids, uint32_t n,
		    uint32_t grace_period, struct session_op *op,
		    struct gp_err *e);
/*
 * Resume ids[0..n), or when n == 0 every queue this session suspended
 * plus every queue of a fresh snapshot. Same returns as session_suspend.
 */
int session_resume(struct session *s, const uint32_t *ids, uint32_t n,
		   struct session_op *op, struct gp_err *e);

/*
 * The last queue snapshot (taken at open and before every suspend or
 * resume; session_snapshot() refreshes it). Valid until the next call.
 */
int session_snapshot(struct session *s, struct gp_err *e);
const struct kfd_queue_snapshot_entry *
session_queues(const struct session *s, uint32_t *n);
/* Is queue id currently suspended by this session? */
bool session_is_suspended(const struct session *s, uint32_t id);

#endif
