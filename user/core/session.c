// SPDX-License-Identifier: GPL-2.0
/*
 * One debug session: ptrace seize, DBG_TRAP enable, the runtime
 * handshake, signal pass-through, suspend/resume and teardown. See
 * session.h for the thread rule and what the owner's loop must call.
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
#include "session.h"
#include "util.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
/* How long session_close() waits for the target's interrupt stop. */
#define DETACH_WAIT_MS 2000
/* Bound on debug events handled per wake-up: the kernel reports the
 * same event until it is cleared, so a clear that fails must not spin. */
#define MAX_EVENTS_PER_WAKE 64

struct session {
	struct kfd *kfd;
	pid_t pid;
	int pipe_rd, pipe_wr;
	bool alive;
	bool enabled;		/* DBG_TRAP ENABLE succeeded */
	uint32_t runtime_state;
	uint64_t attached_ns;
	struct kfd_queue_snapshot_entry *snap;
	uint32_t n_snap, cap_snap;
	uint32_t *held;		/* ids this session suspended */
	uint32_t n_held, cap_held;
};

/* ---- target checks ---------------------------------------------------- */

/* Reads /proc/<pid>/<name> into buf (NUL-terminated). Length or -errno. */
static int read_proc(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return (int)n;
}

/* The value of "Key:\t<num>" in /proc/<pid>/status, or -1. */
static long status_field(pid_t pid, const char *key)
{
	char buf[4096], *p;
	size_t klen = strlen(key);

	if (read_proc(pid, "status", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtol(p + klen + 1, NULL, 10);
	}
	return -1;
}

static void comm_of(pid_t pid, char *comm, size_t len)
{
	if (read_proc(pid, "comm", comm, len) <= 0)
		snprintf(comm, len, "?");
	comm[strcspn(comm, "\n")] = 0;
}

int session_check_pid(pid_t pid, struct gp_err *e)
{
	char buf[1024], comm[32], *p;
	unsigned long flags = 0;
	long tgid;
	int i;

	if (pid <= 0) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "invalid pid %d", pid);
		return -1;
	}
	if (pid == 1) {
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "refusing pid 1 (init): stopping it would stall "
			   "the whole system");
		return -1;
	}
	if (pid == getpid()) {
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "refusing pid %d: that is gpreempt-ctl itself",
			   pid);
		return -1;
	}
	if (read_proc(pid, "stat", buf, sizeof(buf)) < 0) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH,
			   "no process %d (it exited, or is in another pid "
			   "namespace: KFD and gpreempt use host pids)", pid);
		return -1;
	}
	/* Field 9 (flags) counts from after the ")" closing comm. */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	comm_of(pid, comm, sizeof(comm));
	if (flags & PF_KTHREAD) {
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "refusing pid %d (%s): it is a kernel thread", pid,
			   comm);
		return -1;
	}
	tgid = status_field(pid, "Tgid");
	if (tgid > 0 && tgid != pid) {
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "pid %d is a thread of process %ld (%s): give the "
			   "process id", pid, tgid, comm);
		return -1;
	}
	return 0;
}

int session_check_target(pid_t pid, struct gp_err *e)
{
	char comm[32], path[96];

	if (session_check_pid(pid, e))
		return -1;
	snprintf(path, sizeof(path), KFD_SYSFS_PROC "/%d", (int)pid);
	if (access(path, F_OK)) {
		comm_of(pid, comm, sizeof(comm));
		gp_err_set(e, GP_EXIT_TARGET, 0,
			   "pid %d (%s) has no KFD process (%s is absent): it "
			   "never opened /dev/kfd, so it has no GPU queues; "
			   "see 'gpreempt-ctl list'", pid, comm, path);
		return -1;
	}
	return 0;
}

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
static void detach(struct session *s)
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

/* ---- events ----------------------------------------------------------- */

/*
 * ESRCH from KFD: the target's KFD process is gone (it exited, or
 * exec'd). The ptrace link may outlive it until session_handle_wait()
 * reaps the exit, and session_close() still detaches if it does not.
 */
static void mark_gone_if(struct session *s, int r)
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
	if (!s->alive || !s->enabled)
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
			mark_gone_if(s, r);
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
				mark_gone_if(s, r);
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

static void session_free(struct session *s)
{
	if (s->pipe_rd >= 0)
		close(s->pipe_rd);
	if (s->pipe_wr >= 0)
		close(s->pipe_wr);
	free(s->snap);
	free(s->held);
	free(s);
}

struct session *session_open(struct kfd *kfd, pid_t pid, struct gp_err *e)
{
	struct kfd_runtime_info ri;
	struct session *s;
	int fds[2], r;
	long tracer;

	if (session_check_target(pid, e))
		return NULL;
	tracer = status_field(pid, "TracerPid");
	if (tracer > 0) {
		char comm[32];

		comm_of((pid_t)tracer, comm, sizeof(comm));
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
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	s->kfd = kfd;
	s->pid = pid;
	s->pipe_rd = s->pipe_wr = -1;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "pipe: %s",
			   strerror(errno));
		goto fail;
	}
	s->pipe_rd = fds[0];
	s->pipe_wr = fds[1];

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
		kfd_err(e, KFD_CALL_PTRACE, pid, errno);
		goto fail;
	}
	s->alive = true;
	r = kfd_dbg_enable(kfd, pid, s->pipe_wr, GP_EC_PROCESS_RUNTIME, &ri);
	if (r < 0) {
		kfd_err(e, KFD_CALL_ENABLE, pid, -r);
		goto fail;
	}
	s->enabled = true;
	s->runtime_state = ri.runtime_state;
	s->attached_ns = monotonic_ns();
	r = kfd_dbg_set_exceptions(kfd, pid, GP_EC_PROCESS_RUNTIME);
	if (r < 0) {
		kfd_err(e, KFD_CALL_SET_EXCEPTIONS, pid, -r);
		goto fail;
	}
	if (session_snapshot(s, e))
		goto fail;
	return s;
fail:
	session_close(s);
	return NULL;
}

void session_close(struct session *s)
{
	struct gp_err e;

	if (!s)
		return;
	session_handle_wait(s);
	if (s->alive && s->enabled) {
		/* Answer a pending runtime handshake first: DISABLE does not
		 * release a target blocked in RUNTIME_ENABLE. */
		session_handle_event(s, &e);
		if (s->n_held)
			kfd_dbg_resume(s->kfd, s->pid, s->held, s->n_held);
		/* DISABLE resumes every queue still suspended. */
		kfd_dbg_disable(s->kfd, s->pid);
	}
	/*
	 * detach() interrupts the leader after DISABLE: if it raced into
	 * RUNTIME_ENABLE between the drain above and DISABLE, its
	 * down_interruptible() returns -EINTR, the runtime retries the
	 * ioctl and, debug now off, it returns at once.
	 */
	detach(s);
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
	return s->alive && s->enabled;
}

uint32_t session_runtime_state(const struct session *s)
{
	return s->runtime_state;
}

uint64_t session_attached_ns(const struct session *s)
{
	return s->attached_ns;
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

/* ---- queues ----------------------------------------------------------- */

int session_snapshot(struct session *s, struct gp_err *e)
{
	struct kfd_queue_snapshot_entry *buf;
	uint32_t num;
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
		num = s->cap_snap;
		r = kfd_dbg_queue_snapshot(s->kfd, s->pid, s->snap, &num);
		if (r < 0) {
			mark_gone_if(s, r);
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
	s->n_snap = s->cap_snap;
	return 0;
nomem:
	gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
	return -1;
}

bool session_is_suspended(const struct session *s, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < s->n_held; i++)
		if (s->held[i] == id)
			return true;
	return false;
}

static int held_add(struct session *s, uint32_t id)
{
	uint32_t *p;

	if (session_is_suspended(s, id))
		return 0;
	if (s->n_held == s->cap_held) {
		p = realloc(s->held, (s->cap_held + 16) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->held = p;
		s->cap_held += 16;
	}
	s->held[s->n_held++] = id;
	return 0;
}

static void held_del(struct session *s, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < s->n_held; i++) {
		if (s->held[i] == id) {
			s->held[i] = s->held[--s->n_held];
			return;
		}
	}
}

void session_op_free(struct session_op *op)
{
	if (op) {
		free(op->q);
		op->q = NULL;
	}
}

/* Append ids not yet in the list (dedup keeps results one per queue). */
static uint32_t add_ids(uint32_t *dst, uint32_t n, const uint32_t *src,
			uint32_t m)
{
	uint32_t i, j;

	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++)
			if (dst[j] == src[i])
				break;
		if (j == n)
			dst[n++] = src[i];
	}
	return n;
}

/*
 * The shared body of suspend and resume: snapshot, build the id array,
 * one ioctl, decode every word.
 */
static int queue_op(struct session *s, enum kfd_call call,
		    const uint32_t *ids, uint32_t n, uint32_t grace,
		    struct session_op *op, struct gp_err *e)
{
	uint32_t *words = NULL, nw = 0, i, dummy = 0;
	int r;

	memset(op, 0, sizeof(*op));
	op->call = call;
	op->ret = -ESRCH;
	if (!session_alive(s)) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH, "pid %d has exited",
			   s->pid);
		return e->exit;
	}
	/* A queue created since the last snapshot is refused (INVALID)
	 * until a snapshot has cleared its EC_QUEUE_NEW. */
	if (session_snapshot(s, e)) {
		op->ret = -e->err;
		return e->exit;
	}
	op->snapshot_ns = s->kfd->last_ns;

	words = calloc(n + s->n_snap + s->n_held + 1, sizeof(*words));
	if (!words) {
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		op->ret = -ENOMEM;
		return e->exit;
	}
	if (n) {
		nw = add_ids(words, 0, ids, n);
	} else {
		if (call == KFD_CALL_RESUME)
			nw = add_ids(words, nw, s->held, s->n_held);
		for (i = 0; i < s->n_snap; i++)
			nw = add_ids(words, nw, &s->snap[i].queue_id, 1);
	}
	op->q = calloc(nw + 1, sizeof(*op->q));
	if (!op->q) {
		free(words);
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		op->ret = -ENOMEM;
		return e->exit;
	}
	for (i = 0; i < nw; i++)
		op->q[i].id = words[i];
	op->n = nw;

	/* Called even with no queue: the kernel's permission checks (runtime
	 * enabled?) still run and tell the user what is wrong. */
	if (call == KFD_CALL_SUSPEND)
		r = kfd_dbg_suspend(s->kfd, s->pid, nw ? words : &dummy, nw,
				    grace);
	else
		r = kfd_dbg_resume(s->kfd, s->pid, nw ? words : &dummy, nw);
	op->ns = s->kfd->last_ns;
	op->ret = r;
	if (r < 0) {
		mark_gone_if(s, r);
		if ((r == -EPERM || r == -EACCES) &&
		    s->runtime_state != DEBUG_RUNTIME_STATE_ENABLED)
			gp_err_set(e, GP_EXIT_TARGET, -r,
				   "%s on pid %d failed: %s: the target's "
				   "runtime has not enabled debug support "
				   "(runtime state %s): ROCr calls "
				   "RUNTIME_ENABLE at start-up only with "
				   "KFD >= 1.13 and GPU firmware that "
				   "supports debugging; a process without a "
				   "ROCm runtime cannot be suspended",
				   kfd_call_name(call), s->pid, strerror(-r),
				   kfd_runtime_state_name(s->runtime_state));
		else
			kfd_err(e, call, s->pid, -r);
		free(words);
		return e->exit;
	}
	for (i = 0; i < nw; i++) {
		op->q[i].status = kfd_queue_word_status(words[i]);
		switch (op->q[i].status) {
		case KFD_Q_OK:
			op->n_ok++;
			if (call == KFD_CALL_SUSPEND)
				held_add(s, op->q[i].id);
			else
				held_del(s, op->q[i].id);
			break;
		case KFD_Q_INVALID:
			op->n_invalid++;
			if (call == KFD_CALL_RESUME)
				held_del(s, op->q[i].id);
			break;
		case KFD_Q_ERROR:
			op->n_error++;
			break;
		}
	}
	free(words);
	if (op->n_invalid || op->n_error) {
		gp_err_set(e, GP_EXIT_PARTIAL, 0,
			   "%s on pid %d: %u of %u queues invalid, %u failed",
			   kfd_call_name(call), s->pid, op->n_invalid, nw,
			   op->n_error);
		return GP_EXIT_PARTIAL;
	}
	return GP_EXIT_OK;
}

int session_suspend(struct session *s, const uint32_t *ids, uint32_t n,
		    uint32_t grace_period, struct session_op *op,
		    struct gp_err *e)
{
	return queue_op(s, KFD_CALL_SUSPEND, ids, n, grace_period, op, e);
}

int session_resume(struct session *s, const uint32_t *ids, uint32_t n,
		   struct session_op *op, struct gp_err *e)
{
	return queue_op(s, KFD_CALL_RESUME, ids, n, 0, op, e);
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
