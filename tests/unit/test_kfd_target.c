// SPDX-License-Identifier: GPL-2.0
/*
 * L0: which targets a session refuses before any ptrace or ioctl
 * (session_check_pid/target read only /proc and sysfs).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcodes.h"
#include "session.h"
#include "tap.h"

static int refused(pid_t pid, int want_exit, const char *word)
{
	struct gp_err e = {};

	if (!session_check_pid(pid, &e)) {
		printf("# pid %d accepted\n", pid);
		return 0;
	}
	if (e.exit != want_exit || (word && !strstr(e.msg, word))) {
		printf("# pid %d: exit %d '%s'\n", pid, e.exit, e.msg);
		return 0;
	}
	return 1;
}

TEST(pid_one)
{
	CHECK(refused(1, GP_EXIT_TARGET, "init"));
}

TEST(self)
{
	CHECK(refused(getpid(), GP_EXIT_TARGET, "gpreempt-ctl itself"));
}

TEST(bad_pid)
{
	CHECK(refused(0, GP_EXIT_USAGE, NULL));
	CHECK(refused(-5, GP_EXIT_USAGE, NULL));
}

TEST(gone)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	CHECK(refused(pid, GP_EXIT_TARGET, "no process"));
}

TEST(kernel_thread)
{
	/* pid 2 is kthreadd wherever there is a pid namespace root; in a
	 * container it may be a user process: then skip. */
	char buf[64] = "";
	FILE *f = fopen("/proc/2/comm", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	if (strncmp(buf, "kthreadd", 8)) {
		printf("# no kthreadd at pid 2, skipped\n");
		return;
	}
	CHECK(refused(2, GP_EXIT_TARGET, "kernel thread"));
}

static pid_t thread_tid;
static int thread_go;

static void *thread_fn(void *arg)
{
	thread_tid = syscall(SYS_gettid);
	while (!__atomic_load_n(&thread_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	return arg;
}

TEST(non_leader_thread)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, thread_fn, NULL) == 0);
	while (!__atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	CHECK(refused(thread_tid, GP_EXIT_TARGET, "is a thread of process"));
	__atomic_store_n(&thread_go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

TEST(ordinary_process_no_kfd)
{
	struct gp_err e = {};
	pid_t pid = fork();

	if (!pid) {
		pause();
		_exit(0);
	}
	/* Passes the cheap checks... */
	CHECK(session_check_pid(pid, &e) == 0);
	/* ...but has no KFD process (no GPU here, or never opened it). */
	CHECK(session_check_target(pid, &e) == -1);
	CHECK(e.exit == GP_EXIT_TARGET);
	CHECK(strstr(e.msg, "has no KFD process") != NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	RUN(pid_one);
	RUN(self);
	RUN(bad_pid);
	RUN(gone);
	RUN(kernel_thread);
	RUN(non_leader_thread);
	RUN(ordinary_process_no_kfd);
	return tap_done();
}
