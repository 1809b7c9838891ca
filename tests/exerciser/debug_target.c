// SPDX-License-Identifier: GPL-2.0
/*
 * The "debugger" scenario: a forked child plays the ROCr target (opens
 * /dev/kfd, RUNTIME_ENABLE, then idles), the parent plays ROCdbgapi
 * (PTRACE_SEIZE, DBG_TRAP ENABLE with a pipe as dbg_fd, exceptions,
 * snapshot, SUSPEND/RESUME, DISABLE), then kills and reaps the child.
 *
 * KFD accepts DBG_TRAP on another process only from the thread that is
 * ptrace-attached to its thread-group leader (ptrace_parent() ==
 * current), so the whole parent side runs on this one thread.
 *
 * order=before is ROCdbgapi's attach-to-spawned order: ENABLE first; the
 * child's RUNTIME_ENABLE then blocks in the kernel until the debugger sees
 * the '.' KFD writes to dbg_fd, queries the event and answers with
 * SEND_RUNTIME_EVENT(EC_PROCESS_RUNTIME). An eventfd cannot be dbg_fd:
 * KFD writes one byte and eventfd_write() wants eight.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ex.h"

/* What ROCr hands KFD as r_debug: the address of its _amdgpu_r_debug. */
static char fake_r_debug[64];

/* 1: got a byte, 0: timeout, -1: EOF or error. */
static int wait_byte(int fd, unsigned int timeout_ms, char *c)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t now, tmo;
	ssize_t n;
	int ret;

	for (;;) {
		now = now_ns();
		if (now >= end)
			return 0;
		tmo = (end - now) / 1000000 + 1;
		ret = poll(&p, 1, tmo > INT_MAX ? INT_MAX : (int)tmo);
		if (ret < 0 && errno == EINTR) {
			if (ex_stop)
				return -1;
			continue;
		}
		if (ret <= 0)
			return ret;
		n = read(fd, c, 1);
		if (n == 1)
			return 1;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (!n)
			errno = EPIPE;	/* the other end is gone */
		return -1;
	}
}

static void line_errno(const char *step, int pid, int ret, int err,
		       uint64_t ns)
{
	struct ioc r = { .ret = ret, .err = err, .ns = ns };
	struct jl j;

	jl_begin(&j, step);
	jl_int(&j, "pid", pid);
	jl_ioc(&j, &r);
	jl_end(&j, false);
}

static void __attribute__((noreturn))
child(const char *kfd_path, int parent_kfd, const struct dt_opts *o,
      int to_parent, int from_parent)
{
	struct kfd_ioctl_runtime_enable_args rt;
	struct ioc r;
	struct jl j;
	int fd, me = getpid();
	uint64_t t0;
	char c;

	/* Our handlers write to the parent's signal pipe: not in here. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	/* A KFD fd only works in the process that opened it. */
	if (parent_kfd >= 0)
		close(parent_kfd);
	/* Start after the parent's fork line: output in causal order. */
	if (wait_byte(from_parent, -1u, &c) != 1)
		_exit(1);
	t0 = now_ns();
	fd = open(kfd_path, O_RDWR | O_CLOEXEC);
	line_errno("target-open", me, fd, fd < 0 ? errno : 0, now_ns() - t0);
	if (fd < 0)
		_exit(1);
	if (o->before) {
		if (write(to_parent, "o", 1) != 1 ||
		    wait_byte(from_parent, -1u, &c) != 1)
			_exit(1);
	}

	memset(&rt, 0, sizeof(rt));
	rt.r_debug = o->r_debug_set ? o->r_debug : (uintptr_t)fake_r_debug;
	rt.mode_mask = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK |
		       KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK;
	kfd_call(fd, AMDKFD_IOC_RUNTIME_ENABLE, &rt, &r, "runtime-enable");
	jl_begin(&j, "target-runtime-enable");
	jl_int(&j, "pid", me);
	jl_ioc(&j, &r);
	jl_hex(&j, "r_debug", rt.r_debug);
	jl_hex(&j, "capabilities", rt.capabilities_mask);
	jl_end(&j, false);
	if (write(to_parent, "r", 1) != 1)
		_exit(1);

	/* Idle like a GPU program until the parent kills us. */
	while (read(from_parent, &c, 1) != 0) {
		if (errno != EINTR)
			break;
	}
	_exit(0);
}

void ex_seize(int pid)
{
	uint64_t t0 = now_ns();
	struct ioc r;
	struct jl j;

	r.ret = ptrace(PTRACE_SEIZE, pid, 0, 0);
	r.err = r.ret ? errno : 0;
	r.ns = now_ns() - t0;
	jl_begin(&j, "seize");
	jl_int(&j, "pid", pid);
	jl_ioc(&j, &r);
	jl_end(&j, false);
}

void ex_poll_event(int fd, unsigned int timeout_ms)
{
	uint64_t t0 = now_ns();
	struct ioc r = { 0 };
	char data[8] = "";
	struct jl j;
	int got;

	got = wait_byte(fd, timeout_ms, data);
	r.ns = now_ns() - t0;
	r.ret = got;
	if (!got)
		r.err = ETIMEDOUT;
	if (got > 0) {
		/* KFD may have queued several; drain the O_NONBLOCK pipe */
		while (read(fd, data + 1, sizeof(data) - 2) > 0)
			;
	} else if (got < 0) {
		r.err = errno ?: EIO;
	}
	jl_begin(&j, "poll-event");
	jl_ioc(&j, &r);
	jl_str(&j, "data", data);
	jl_end(&j, false);
}

static void reap(int pid)
{
	struct jl j;
	int st = 0;
	pid_t w;

	kill(pid, SIGKILL);
	/* As its tracer we may see ptrace stops before the exit. */
	do {
		w = waitpid(pid, &st, __WALL);
	} while ((w < 0 && errno == EINTR) ||
		 (w == pid && !WIFEXITED(st) && !WIFSIGNALED(st)));
	jl_begin(&j, "target-exit");
	jl_int(&j, "pid", pid);
	if (w == pid && WIFSIGNALED(st))
		jl_int(&j, "signal", WTERMSIG(st));
	else if (w == pid)
		jl_int(&j, "status", WEXITSTATUS(st));
	else
		jl_int(&j, "errno", errno);
	jl_end(&j, false);
}

static void dbg_op(int kfd, int pid, uint32_t op, const struct dt_opts *o,
		   int dbg_fd, uint64_t mask, bool mask_set)
{
	struct dbg_req q;
	struct ioc r;

	memset(&q, 0, sizeof(q));
	q.pid = pid;
	q.op = op;
	q.dbg_fd = dbg_fd;
	q.mask = mask;
	q.mask_set = mask_set;
	q.grace = o->grace;
	q.nq = o->nq;
	memcpy(q.qids, o->qids, sizeof(q.qids[0]) * o->nq);
	dbg_call(kfd, &q, &r, NULL);
}

static void close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0 && fds[1] != fds[0])
		close(fds[1]);
}

/*
 * ROCdbgapi's dbg_fd is the write end of an O_NONBLOCK pipe. dbgfd=eventfd
 * exists to show why: KFD writes one byte, eventfd wants eight.
 */
static int make_dbg_fd(int fds[2], bool use_eventfd)
{
	if (!use_eventfd)
		return pipe2(fds, O_NONBLOCK | O_CLOEXEC);
	fds[0] = fds[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return fds[0] < 0 ? -1 : 0;
}

int debug_target(int kfd, const char *kfd_path, const struct dt_opts *o)
{
	int c2p[2] = { -1, -1 }, p2c[2] = { -1, -1 }, ev[2] = { -1, -1 };
	uint64_t t0 = now_ns(), errors0;
	unsigned long long probe_errors = 0;
	struct timespec hold;
	struct jl j;
	int pid, got;
	char c;

	if (pipe2(c2p, O_CLOEXEC) || pipe2(p2c, O_CLOEXEC) ||
	    make_dbg_fd(ev, o->eventfd)) {
		line_errno("debug-target", 0, -1, errno, 0);
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		line_errno("debug-target", 0, -1, errno, 0);
		goto out;
	}
	if (pid == 0) {
		close(c2p[0]);
		close(p2c[1]);
		child(kfd_path, kfd, o, c2p[1], p2c[0]);
	}
	close(c2p[1]);
	close(p2c[0]);
	c2p[1] = p2c[0] = -1;
	errors0 = ex_stats.errors;

	jl_begin(&j, "fork");
	jl_int(&j, "pid", pid);
	jl_str(&j, "order", o->before ? "before" : "after");
	jl_str(&j, "dbgfd", o->eventfd ? "eventfd" : "pipe");
	jl_end(&j, false);
	if (write(p2c[1], "s", 1) != 1) {
		line_errno("target-go", pid, -1, errno, 0);
		goto kill;
	}

	got = wait_byte(c2p[0], o->timeout_ms, &c);
	if (got != 1) {
		line_errno("target-wait", pid, -1, got ? EIO : ETIMEDOUT, 0);
		goto kill;
	}

	if (o->eperm) {
		/* Not ptraced yet: KFD must refuse (EPERM on 6.12). */
		dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_ENABLE, o, ev[1], 0, false);
		probe_errors = ex_stats.errors - errors0;
	}
	ex_seize(pid);
	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_ENABLE, o, ev[1], 0, false);

	if (o->before) {
		if (write(p2c[1], "g", 1) != 1) {
			line_errno("target-go", pid, -1, errno, 0);
			goto kill;
		}
		ex_poll_event(ev[0], o->timeout_ms);
		dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT, o, -1,
		       KFD_EC_MASK(EC_PROCESS_RUNTIME), true);
		dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT, o, -1,
		       KFD_EC_MASK(EC_PROCESS_RUNTIME), true);
		got = wait_byte(c2p[0], o->timeout_ms, &c);
		if (got != 1)
			line_errno("target-wait", pid, -1,
				   got ? EIO : ETIMEDOUT, 0);
	}

	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED, o, -1, 0,
	       false);
	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT, o, -1, 0, false);
	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, o, -1, 0, false);
	if (o->hold_ms) {
		hold.tv_sec = o->hold_ms / 1000;
		hold.tv_nsec = (o->hold_ms % 1000) * 1000000L;
		while (nanosleep(&hold, &hold) && errno == EINTR && !ex_stop)
			;
	}
	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_RESUME_QUEUES, o, -1, 0, false);
	dbg_op(kfd, pid, KFD_IOC_DBG_TRAP_DISABLE, o, -1, 0, false);
kill:
	reap(pid);
	jl_begin(&j, "debug-target");
	jl_int(&j, "pid", pid);
	jl_str(&j, "order", o->before ? "before" : "after");
	jl_int(&j, "errors", ex_stats.errors - errors0 - probe_errors);
	jl_int(&j, "duration_ns", now_ns() - t0);
	jl_end(&j, false);
out:
	close_pair(c2p);
	close_pair(p2c);
	close_pair(ev);
	return 0;
}
