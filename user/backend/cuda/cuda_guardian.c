// SPDX-License-Identifier: GPL-2.0
/* The guardian of CUDA locks (cuda_guardian.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cuda_api.h"
#include "cuda_guardian.h"
#include "cuda_journal.h"
#include "exitcodes.h"

static void glog(void *ctx, const char *line)
{
	fprintf(stderr, "gpreempt guardian of pid %d: %s\n", *(pid_t *)ctx,
		line);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* The child: wait for the holder, then release what it recorded. */
static void guard(int pidfd, pid_t holder, const char *journal,
		  uint32_t lock_timeout_ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	struct gp_cuda_api a;
	struct gp_err e = {};
	struct gp_cjentry ent[GP_CUDA_JOURNAL_MAX];
	uint64_t until;
	char line[160];
	sigset_t all;
	int n, st, i, mine;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	setsid();
	prctl(PR_SET_NAME, "gp-guardian", 0, 0, 0);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	n = gp_cjournal_read(journal, ent, GP_CUDA_JOURNAL_MAX);
	for (i = mine = 0; i < n; i++)
		mine += ent[i].holder == holder;
	if (!mine)
		_exit(0);	/* a clean exit: nothing of its holder's */
	if (gp_cuda_load(&a, &e)) {
		glog(&holder, e.msg);
		_exit(GP_EXIT_NO_CUDA);
	}
	snprintf(line, sizeof(line), "the holder died: unlocking what %s "
		 "records", journal);
	glog(&holder, line);
	/* a lock in flight when the holder died may land up to its
	 * timeout later: release again until then */
	until = now_ms() + lock_timeout_ms + 1000;
	gp_cjournal_release_all(journal, &a, glog, &holder);
	while (now_ms() <= until) {
		usleep(100 * 1000);
		for (int i = 0; i < n; i++) {
			st = -1;
			/* its holder's only (now gone), never a live one's */
			if (ent[i].holder != holder ||
			    gp_proc_start_time(ent[i].pid) != ent[i].start ||
			    gp_cuda_state(&a, ent[i].pid, &st) ||
			    st != GP_CU_STATE_LOCKED)
				continue;
			snprintf(line, sizeof(line), "pid %d locked late: "
				 "unlock: CUresult %d", ent[i].pid,
				 gp_cuda_unlock(&a, ent[i].pid));
			glog(&holder, line);
		}
	}
	_exit(0);
}

pid_t gp_cuda_guardian_start(const char *journal, uint32_t lock_timeout_ms,
			     struct gp_err *e)
{
	pid_t holder = getpid(), g;
	int pidfd = syscall(SYS_pidfd_open, holder, 0);

	if (pidfd < 0)
		return gp_err_set(e, GP_EXIT_FAILURE, errno, "pidfd_open: %s",
				  strerror(errno));
	fflush(NULL);
	g = fork();
	if (g < 0) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "cannot fork the CUDA "
			   "guardian: %s", strerror(errno));
		close(pidfd);
		return -1;
	}
	if (!g) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* stdin and stdout to /dev/null (a pipe kept open would hold
		 * its reader), stderr for the log, the pidfd; no others */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		if (pidfd != 3) {
			dup2(pidfd, 3);
			pidfd = 3;
		}
		syscall(SYS_close_range, 4, ~0U, 0);
		guard(pidfd, holder, journal, lock_timeout_ms);
	}
	close(pidfd);
	return g;
}
