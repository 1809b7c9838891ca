// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (root; real userfaultfd, real daemon loop): a watched queue whose
 * counters sit on a page that never resolves. A forked child registers a
 * page with userfaultfd (missing mode, not user-mode-only, so the
 * daemon's remote read faults into it) and never serves the fault; the
 * daemon is told to watch that page as a queue's wptr/rptr. Its loop
 * must keep answering (policy, status), name the pid unwatched with the
 * reason after the poll's deadline (ARB_QPOLL_DEADLINE_NS, 2 s), and exit
 * on SIGTERM with the stuck reader thread still in the fault. Before the
 * poll ran off the loop the daemon froze here: alarm() bounds the test
 * so it fails rather than hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "daemon_harness.h"
#include "arbiter.h"
#include "daemon.h"
#include "gp_notify.h"
#include "util.h"

static char dir[] = "/tmp/gp-qstuck-XXXXXX", sock[64], ready[64], logf[64];
static pid_t dpid, child;
static int fd = -1;
static char reply[8192];
static unsigned long page;

static void on_alarm(int sig)
{
	static const char m[] = "not ok - bounded out: the daemon froze\n";

	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(1);
	if (dpid > 0)
		kill(dpid, SIGKILL);
	if (child > 0)
		kill(child, SIGKILL);
	_exit(1);
}

static int ask(const char *req)
{
	return daemon_ask(fd, req, reply, sizeof(reply), 10000);
}

/* The child: one page under userfaultfd, never served. */
static int start_child(void)
{
	int p[2];

	if (pipe(p))
		return -1;
	child = fork();
	if (child == 0) {
		struct uffdio_api api = { .api = UFFD_API };
		struct uffdio_register reg = { .mode =
			UFFDIO_REGISTER_MODE_MISSING };
		long u = syscall(SYS_userfaultfd, O_CLOEXEC);
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned long a = 0;

		if (u >= 0 && m != MAP_FAILED &&
		    !ioctl(u, UFFDIO_API, &api)) {
			reg.range.start = (unsigned long)m;
			reg.range.len = 4096;
			if (!ioctl(u, UFFDIO_REGISTER, &reg))
				a = (unsigned long)m;
		}
		if (write(p[1], &a, sizeof(a)) != sizeof(a) || !a)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (child < 0 || read(p[0], &page, sizeof(page)) != sizeof(page))
		page = 0;
	close(p[0]);
	return page ? 0 : -1;
}

static int start_daemon(void)
{
	fd = daemon_spawn(&dpid, child, "10ms", sock, ready, logf, 0);
	return fd < 0 ? -1 : 0;
}

TEST(stuck_read_leaves_the_loop_answering)
{
	char req[200], key[96];
	int i, ok = 0;

	snprintf(req, sizeof(req), "watch pid=%d queue=1 wptr=0x%lx "
		 "rptr=0x%lx\n", child, page, page + 8);
	CHECK(ask(req) == 0);
	snprintf(key, sizeof(key), "unwatched pid=%d reason=\"memory read "
		 "stuck\"", child);
	/* every request answered (10 s each at most); the verdict within
	 * 60 s of requests (deadline 2 s: slack for a loaded host) */
	for (i = 0; i < 600 && !ok; i++) {
		if (ask("policy\n") != 0)
			break;
		ok = strstr(reply, key) != NULL;
		if (!ok)
			usleep(100000);
	}
	CHECK(ok);
	CHECK(ok && !strstr(reply, "\nwatch pid="));
	CHECK(ask("status\n") == 0);
	/* not re-added: said so */
	CHECK(ask(req) != 0 && strstr(reply, "memory read stuck"));
}

int main(void)
{
	char cmd[128];
	int st = 0, i;

	if (geteuid()) {
		printf("1..0 # SKIP needs root (userfaultfd for remote "
		       "faults)\n");
		return 0;
	}
	signal(SIGALRM, on_alarm);
	alarm(300);
	if (!mkdtemp(dir) || start_child()) {
		printf("not ok 1 - set-up (temp dir, userfaultfd child: %s)\n",
		       strerror(errno));
		if (child > 0)
			kill(child, SIGKILL);
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	if (start_daemon()) {
		printf("not ok 1 - the daemon did not start (log %s)\n", logf);
		kill(child, SIGKILL);
		return 1;
	}
	RUN(stuck_read_leaves_the_loop_answering);
	close(fd);
	kill(dpid, SIGTERM);
	for (i = 0; i < 600 && waitpid(dpid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	printf("%sok %d - daemon exits on SIGTERM with a reader stuck\n",
	       i < 600 && WIFEXITED(st) ? "" : "not ", ++tap_n);
	if (!(i < 600 && WIFEXITED(st)))
		tap_failed++;
	if (i == 600)
		kill(dpid, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (!tap_failed && system(cmd))
		return 1;
	return tap_done();
}
