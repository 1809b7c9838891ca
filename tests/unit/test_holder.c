// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, no KFD): what a holder (the one-shot `gpreempt-ctl suspend`
 * or the daemon) does with signals, and the ptrace side of a session:
 * the real kernel's ptrace and signals, no stand-in. KFD itself is not
 * needed for any of it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "session.h"
#include "tap.h"
#include "tracee.h"
#include "util.h"

/* How long the target's slow part lasts: longer than the old 2 s bound. */
#define SLOW_NS (3 * NSEC_PER_SEC)

/*
 * Ctrl-Z on a holder in a terminal must not stop it: a stopped holder
 * cannot end its hold, so --for would be stretched until SIGCONT. The
 * child is its own process group with us, its parent, in another one of
 * the same session, so the kernel does not drop SIGTSTP as it does for
 * orphaned groups.
 */
TEST(holder_ignores_job_control_stops)
{
	static const int sigs[] = { SIGTSTP, SIGTTIN, SIGTTOU };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct signalfd_siginfo si;
		sigset_t old;
		pid_t c;
		int st = 0, fd;

		c = fork();
		if (c == 0) {
			setpgid(0, 0);
			fd = session_signalfd(&old);
			if (fd < 0)
				_exit(3);
			raise(sigs[i]);
			/* seen on the signalfd, so the loop can say so */
			if (read(fd, &si, sizeof(si)) != sizeof(si) ||
			    (int)si.ssi_signo != sigs[i])
				_exit(4);
			_exit(session_signal_ends_hold(sigs[i]) ? 5 : 0);
		}
		CHECK(c > 0);
		if (c <= 0)
			return;
		CHECK(waitpid(c, &st, WUNTRACED) == c);
		if (WIFSTOPPED(st)) {
			printf("# %s stopped the holder\n", strsignal(sigs[i]));
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
			CHECK(0);
			continue;
		}
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			printf("# %s: child status 0x%x\n", strsignal(sigs[i]),
			       st);
	}
	CHECK(session_signal_ends_hold(SIGINT));
	CHECK(session_signal_ends_hold(SIGTERM));
	CHECK(session_signal_ends_hold(SIGHUP));
	CHECK(!session_signal_ends_hold(SIGCHLD));
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *late_thread(void *arg)
{
	sleep_ns(SLOW_NS);
	return NULL;	/* the last thread: the process exits 0 */
}

enum slow { SLOW_VFORK, SLOW_LEADER_EXIT };

/*
 * The target T, a child of P, itself our child, so that T's parent is
 * not its tracer (as in real use). On a byte from go, T becomes slow
 * to stop: it waits SLOW_NS for a vfork child, or its leader exits while
 * a thread lives on for SLOW_NS. P waits for T and exits 0.
 */
static pid_t spawn(enum slow how, int *go, pid_t *tpid)
{
	int pg[2], pp[2];
	pid_t p, t;
	char c;

	if (pipe(pg) || pipe(pp))
		return -1;
	p = fork();
	if (p == 0) {
		t = fork();
		if (t == 0) {
			pthread_t th;

			if (read(pg[0], &c, 1) != 1)
				_exit(1);
			if (how == SLOW_VFORK) {
				if (vfork() == 0) {
					sleep_ns(SLOW_NS);
					_exit(0);
				}
				for (;;)
					pause();
			}
			pthread_create(&th, NULL, late_thread, NULL);
			pthread_exit(NULL);
		}
		if (write(pp[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		while (waitpid(t, NULL, 0) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pg[0]);
	close(pp[1]);
	if (p < 0 || read(pp[0], tpid, sizeof(*tpid)) != sizeof(*tpid))
		return -1;
	close(pp[0]);
	*go = pg[1];
	return p;
}

static char proc_state(pid_t pid)
{
	char buf[512], *p;

	if (procfs_read(pid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/*
 * Detach from a target that is slow to stop. Every call returns at
 * once (the daemon's loop must never block), the detach finishes once
 * the target can stop, and after it the target is neither traced nor
 * stopped, and its parent can reap it.
 */
static void detach_slow(enum slow how)
{
	uint64_t t0, dt, worst = 0, end;
	struct tracee tr;
	pid_t p, t;
	int go, st, done;

	p = spawn(how, &go, &t);
	CHECK(p > 0);
	if (p <= 0)
		return;
	CHECK(tracee_seize(&tr, t, -1) == 0);
	CHECK(write(go, "g", 1) == 1);
	/* let it get slow: in vfork, or a zombie leader */
	for (end = monotonic_ns() + NSEC_PER_SEC; monotonic_ns() < end;) {
		sleep_ns(20 * NSEC_PER_MSEC);
		tracee_reap(&tr);
		if (how == SLOW_LEADER_EXIT ? proc_state(t) == 'Z' :
		    proc_state(t) == 'D' || proc_state(t) == 'S')
			break;
	}
	sleep_ns(100 * NSEC_PER_MSEC);
	t0 = monotonic_ns();
	done = tracee_detach_begin(&tr);
	worst = monotonic_ns() - t0;
	for (end = t0 + 3 * SLOW_NS; !done && monotonic_ns() < end;) {
		sleep_ns(10 * NSEC_PER_MSEC);
		t0 = monotonic_ns();
		done = tracee_detach_poll(&tr);
		dt = monotonic_ns() - t0;
		worst = dt > worst ? dt : worst;
	}
	printf("# detach done=%d, longest call %.1f ms\n", done,
	       worst / 1e6);
	CHECK(done);
	/* the old code returned after 2000 ms; a loaded host is slower */
	CHECK(worst < 200 * NSEC_PER_MSEC);
	/* after the slow part the target is free: not 't', no tracer */
	sleep_ns(SLOW_NS);
	if (how == SLOW_VFORK) {
		printf("# target state %c, TracerPid %d\n", proc_state(t),
		       (int)procfs_tracer(t));
		CHECK(proc_state(t) != 't' && proc_state(t) != 'T');
		CHECK(procfs_tracer(t) == 0);
		kill(t, SIGKILL);
	}
	/* its parent can reap it: P exits */
	for (end = monotonic_ns() + 2 * NSEC_PER_SEC;
	     waitpid(p, &st, WNOHANG) == 0; sleep_ns(10 * NSEC_PER_MSEC)) {
		if (monotonic_ns() > end) {
			printf("# the target's parent cannot reap it "
			       "(state %c)\n", proc_state(t));
			CHECK(0);
			/* clean up: reap the tracee's exit ourselves */
			kill(t, SIGKILL);
			waitpid(t, &st, __WALL);
			waitpid(p, &st, 0);
			break;
		}
	}
	close(go);
}

TEST(detach_waits_for_vfork_without_blocking)
{
	detach_slow(SLOW_VFORK);
}

TEST(detach_reaps_leader_that_exited_first)
{
	detach_slow(SLOW_LEADER_EXIT);
}

/*
 * A pid that names another process by the time of the seize: the
 * pidfd taken before the checks names the dead one, so the seize is
 * undone and the stranger is left untraced.
 */
TEST(seize_refuses_a_recycled_pid)
{
	pid_t a, b;
	int pidfd, st, done = 0;
	struct tracee tr;
	uint64_t end;

	a = fork();
	if (a == 0)
		for (;;)
			pause();
	pidfd = syscall(SYS_pidfd_open, a, 0);
	CHECK(pidfd >= 0);
	kill(a, SIGKILL);
	waitpid(a, &st, 0);
	/* b plays the process that got a's pid */
	b = fork();
	if (b == 0)
		for (;;)
			pause();
	sleep_ns(50 * NSEC_PER_MSEC);
	CHECK(tracee_seize(&tr, b, pidfd) == -ESRCH);
	CHECK(tr.alive);	/* seized: the caller lets it go */
	done = tracee_detach_begin(&tr);
	for (end = monotonic_ns() + 2 * NSEC_PER_SEC;
	     !done && monotonic_ns() < end; sleep_ns(NSEC_PER_MSEC))
		done = tracee_detach_poll(&tr);
	CHECK(done);
	tracee_close(&tr);
	/*
	 * The detach wakes the stranger out of pause(): it is 'R' until the
	 * scheduler runs it, which under two CPU hogs took longer than the
	 * check (6 of 10 runs failed niced beside a hog on its CPU). Left
	 * stopped it would stay 't' or 'T' and never reach 'S'.
	 */
	for (end = monotonic_ns() + 10 * NSEC_PER_SEC;
	     proc_state(b) != 'S' && monotonic_ns() < end;
	     sleep_ns(NSEC_PER_MSEC))
		;
	printf("# stranger: state %c, TracerPid %d\n", proc_state(b),
	       (int)procfs_tracer(b));
	CHECK(procfs_tracer(b) == 0 && proc_state(b) == 'S');
	kill(b, SIGKILL);
	waitpid(b, &st, 0);
}

int main(void)
{
	RUN(holder_ignores_job_control_stops);
	RUN(detach_waits_for_vfork_without_blocking);
	RUN(detach_reaps_leader_that_exited_first);
	RUN(seize_refuses_a_recycled_pid);
	return tap_done();
}
