// SPDX-License-Identifier: GPL-2.0
/*
 * LAYER 1 of 3, beside tracee.c (the ptrace primitives): what a holder
 * checks before it seizes a pid (a process of its own that KFD knows, not
 * init, a kernel thread or a thread), and the signalfd its loop polls.
 * Takes pids, never a session: it calls nothing above it.
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
#include "session.h"
#include "util.h"

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
