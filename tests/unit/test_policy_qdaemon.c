// SPDX-License-Identifier: GPL-2.0
/*
 * The queue feed's daemon glue (user/detect/qfeed.c in the real daemon
 * loop; the feed itself is in test_policy_qfeed.c):
 *  - L1: the daemon without BPF privileges (in a user namespace: no
 *    CAP_BPF in the initial one) says so once in its log and in `policy`,
 *    and notify still works.
 *  - L1: the real daemon loop with a KFD sysfs tree listing a stand-in
 *    queue nobody saw created ("aql-standin", standin.h): `policy` names
 *    it unwatched, with why; the debugfs MQD dump, a FIFO nobody writes,
 *    is read off the loop, which keeps answering.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "arbiter.h"
#include "daemon.h"
#include "gp_notify.h"
#include "mqd.h"
#include "standin.h"
#include "util.h"

/* ---- the daemon without BPF privileges ---- */

static char dir[] = "/tmp/gp-qfeed-XXXXXX", sock[64], ready[64], logf[64];

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static pid_t daemon_in_userns(void)
{
	char on[32], *argv[] = { "daemon", "-s", sock, "--ready", ready,
		"--detect", "notify,queues", "--online", on, "--offline",
		"uid=0,comm=no-such-job", NULL };
	struct daemon_opts o;
	pid_t pid;

	/* the client's own pid: the daemon's user namespace makes the
	 * client a tenant there, which signals for its own process only */
	snprintf(on, sizeof(on), "pid=%d", getpid());
	pid = fork();
	if (pid == 0) {
		/* root in a new user namespace: no CAP_BPF where BPF is
		 * checked (the initial namespace), uid 0 kept for clients */
		if (unshare(CLONE_NEWUSER) ||
		    put("/proc/self/setgroups", "deny") ||
		    put("/proc/self/uid_map", "0 0 1") ||
		    put("/proc/self/gid_map", "0 0 1"))
			_exit(98);
		if (!freopen(logf, "w", stderr) ||
		    daemon_module_add(&arbiter_module) ||
		    daemon_parse(11, argv, &o, stdout, stderr))
			_exit(99);
		_exit(daemon_main(&o));
	}
	return pid;
}

static char reply[8192];

static int ask(int fd, const char *req)
{
	size_t n = 0;

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return -1;
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, 5000) <= 0)
			return -1;
		r = read(fd, reply + n, sizeof(reply) - 1 - n);
		if (r <= 0)
			return -1;
		n += r;
		reply[n] = 0;
		if (strstr(reply, "\nok\n") || !strncmp(reply, "ok\n", 3))
			return 0;
		if (strstr(reply, "err "))
			return 1;
	}
}

TEST(no_bpf_privilege_said_and_notify_works)
{
	char req[64], *log = NULL;
	pid_t d;
	int fd = -1, i, st;

	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	d = daemon_in_userns();
	for (i = 0; i < 100 && access(ready, F_OK); i++)
		usleep(50000);
	CHECK(!access(ready, F_OK));
	fd = gp_notify_open(sock);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(ask(fd, "policy\n") == 0);
		CHECK(strstr(reply, "tracer state=off ") != NULL);
		CHECK(strstr(reply, "why=no-bpf-privilege ") != NULL);
		/* its own pid: the daemon is in another user namespace, so
		 * this client is a tenant there (docs/reliability.md) */
		snprintf(req, sizeof(req), "busy pid=%d\n", getpid());
		CHECK(ask(fd, req) == 0);
		CHECK(ask(fd, "policy\n") == 0);
		CHECK(strstr(reply, "online_busy=1 ") != NULL);
		close(fd);
	}
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(gp_mqd_slurp(logf, &log) == 0);
	if (log) {
		char *p = strstr(log, "embedded tracer off: ");

		/* one line, and it says what to do */
		CHECK(p && !strstr(p + 1, "embedded tracer off: "));
		CHECK(p && strstr(p, "CAP_BPF") != NULL);
		if (tap_cur_failed)
			printf("# daemon log:\n%s", log);
	}
	free(log);
}

/*
 * A daemon (argv: 11 words naming sock and ready) on a KFD sysfs tree and
 * a debugfs kfd folder of the test's (NULL: the machine's), socket, ready
 * and log files numbered n in the temp dir; returns once it is ready.
 */
static pid_t daemon_on_tree(int n, char **argv, const char *kfd,
			    const char *dbg)
{
	struct daemon_opts o;
	pid_t d;

	snprintf(sock, sizeof(sock), "%s/s%d", dir, n);
	snprintf(ready, sizeof(ready), "%s/ready%d", dir, n);
	snprintf(logf, sizeof(logf), "%s/log%d", dir, n);
	d = fork();
	if (d == 0) {
		if (!freopen(logf, "w", stderr) ||
		    daemon_module_add(&arbiter_module) ||
		    daemon_parse(11, argv, &o, stdout, stderr))
			_exit(99);
		/* the arbiter is the one module registered */
		((struct arbiter_opts *)o.mod_opts[0])->kfd_proc_dir = kfd;
		((struct arbiter_opts *)o.mod_opts[0])->debugfs_kfd_dir = dbg;
		_exit(daemon_main(&o));
	}
	for (int i = 0; i < 100 && access(ready, F_OK); i++)
		usleep(50000);
	return d;
}

/* `policy` asked again until its reply holds want (2 s at most). */
static bool policy_until(int fd, const char *want)
{
	for (int i = 0; fd >= 0 && i < 100; i++) {
		if (ask(fd, "policy\n"))
			return false;
		if (strstr(reply, want))
			return true;
		usleep(20000);
	}
	return false;
}

/* The connection closed, the daemon asked to stop: it exits 0. */
static void daemon_done(pid_t d, int fd)
{
	int st;

	if (tap_cur_failed)
		printf("# policy:\n%s", reply);
	if (fd >= 0)
		close(fd);
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * The daemon's glue: a KFD sysfs tree (a temp dir as the arbiter's
 * kfd_proc_dir) lists one compute queue of the online stand-in that no
 * tracer saw created, and this host has no debugfs MQD dump: `policy`
 * names it unwatched with that reason, and shows the tracer's line.
 */
TEST(daemon_policy_names_unwatched_queues)
{
	char on[32], kfd[96], qd[160], *argv[] = { "daemon", "-s", sock,
		"--ready", ready, "--detect", "queues", "--online", on,
		"--offline", "uid=0,comm=no-such-job", NULL };
	char want[800];
	pid_t d;
	int fd;

	snprintf(on, sizeof(on), "pid=%d", child);
	snprintf(kfd, sizeof(kfd), "%s/kfd", dir);
	snprintf(qd, sizeof(qd), "%s/%d/queues/0", kfd, child);
	snprintf(want, sizeof(want), "mkdir -p %s && echo 19004 > %s/gpuid "
		 "&& echo 0 > %s/type && echo 4096 > %s/size", qd, qd, qd, qd);
	CHECK(system(want) == 0);
	d = daemon_on_tree(2, argv, kfd, NULL);
	fd = gp_notify_open(sock);
	CHECK(fd >= 0);
	snprintf(want, sizeof(want), "unwatched pid=%d queue=0 gpu_id=19004 "
		 "reason=%s\n", child,
		 access(GP_DEBUGFS_MQDS, F_OK) ? "before-daemon-no-debugfs" :
		 "before-daemon-not-in-mqd");
	CHECK(policy_until(fd, want));	/* the first scan: 100 ms */
	CHECK(strstr(reply, "\ntracer state=") != NULL);
	CHECK(strstr(reply, "kfd_queues=1 watched=0") != NULL);
	daemon_done(d, fd);
}

/*
 * The MQD dump is read off the loop: here it is a FIFO nobody writes
 * yet, so a read blocks as KFD's does while a process's mutex is held.
 * The daemon still answers at once; once the dump arrives (empty), the
 * queue it was read for gets its reason.
 */
TEST(daemon_answers_while_the_mqd_dump_blocks)
{
	char on[32], kfd[96], dbg[96], fifo[128], qd[192], *argv[] = {
		"daemon", "-s", sock, "--ready", ready, "--detect", "queues",
		"--online", on, "--offline", "uid=0,comm=no-such-job", NULL };
	char want[1200];
	uint64_t t0;
	pid_t d;
	int fd, wfd;

	snprintf(on, sizeof(on), "pid=%d", child);
	snprintf(kfd, sizeof(kfd), "%s/kfd3", dir);
	snprintf(dbg, sizeof(dbg), "%s/debugfs3", dir);
	snprintf(fifo, sizeof(fifo), "%s/mqds", dbg);
	snprintf(qd, sizeof(qd), "%s/%d/queues/0", kfd, child);
	snprintf(want, sizeof(want), "mkdir -p %s %s && echo 19004 > "
		 "%s/gpuid && echo 0 > %s/type && echo 4096 > %s/size", qd,
		 dbg, qd, qd, qd);
	CHECK(system(want) == 0);
	CHECK(mkfifo(fifo, 0600) == 0);
	d = daemon_on_tree(3, argv, kfd, dbg);
	fd = gp_notify_open(sock);
	CHECK(fd >= 0);
	/* classified (described off the loop, a scan or two): the read is
	 * on, blocked on the FIFO */
	CHECK(policy_until(fd, "kfd_queues=1 watched=0"));
	t0 = monotonic_ns();
	CHECK(fd >= 0 && ask(fd, "policy\n") == 0);
	printf("# policy answered in %.1f ms with the dump blocked\n",
	       (monotonic_ns() - t0) / 1e6);
	CHECK(monotonic_ns() - t0 < 2000000000ull);
	CHECK(strstr(reply, "kfd_queues=1 watched=0") != NULL);
	/* the dump arrives, empty: not in it */
	wfd = open(fifo, O_WRONLY);
	CHECK(wfd >= 0);
	if (wfd >= 0)
		close(wfd);
	snprintf(want, sizeof(want), "unwatched pid=%d queue=0 gpu_id=19004 "
		 "reason=before-daemon-not-in-mqd\n", child);
	CHECK(policy_until(fd, want));
	daemon_done(d, fd);
}

int main(void)
{
	char cmd[128];

	if (standin_start() || !mkdtemp(dir)) {
		printf("not ok 1 - set-up (aql-standin, temp dir)\n");
		return 1;
	}
	RUN(no_bpf_privilege_said_and_notify_works);
	RUN(daemon_policy_names_unwatched_queues);
	RUN(daemon_answers_while_the_mqd_dump_blocks);
	tell('X', 0, 0);
	waitpid(child, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (!tap_failed && system(cmd))
		return 1;
	return tap_done();
}
