// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, needs root, no KFD): a hold a module made (the arbiter's, in
 * the daemon) is the module's. The real daemon_main() runs in a child
 * with a stand-in module (named so) that holds one pid: a process owned
 * by nobody (65534). nobody, the process's owner and a tenant, asks to
 * resume and to detach it over the real socket: both are refused, exit
 * 3, naming the holder. Root's resume is not refused for the hold (it
 * reaches the daemon's own "nothing to resume": no KFD here, so the
 * admin's applied resume is covered in the VM, tests/vm/).
 */
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "daemon_module.h"
#include "tap.h"
#include "usock.h"

#define NOBODY 65534

static char dir[] = "/tmp/gpholds.XXXXXX", sock[64];
static pid_t dpid, held;

static bool standin_holds(const struct daemon *d, int pid, char *why,
			  size_t len)
{
	if (pid != held)
		return false;
	snprintf(why, len, "the stand-in (a test module)");
	return true;
}

static const struct gp_module standin = {
	.name = "stand-in", .holds = standin_holds,
};

static void become_nobody(void)
{
	gid_t g = NOBODY;

	if (setgroups(1, &g) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(99);
}

/* One request, its reply (up to the final ok/err line) into buf. */
static int ask(const char *req, char *buf, size_t n)
{
	size_t got = 0;
	int fd = usock_connect(sock);
	ssize_t r;

	if (fd < 0 || write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return -1;
	while (got + 1 < n) {
		struct pollfd p = { fd, POLLIN, 0 };

		if (poll(&p, 1, 30000) != 1)
			break;
		r = read(fd, buf + got, n - 1 - got);
		if (r <= 0)
			break;
		got += r;
		buf[got] = 0;
		if (strstr(buf, "ok\n") || strstr(buf, "err "))
			if (buf[got - 1] == '\n')
				break;
	}
	buf[got] = 0;
	close(fd);
	return 0;
}

/* As nobody, in a child: the reply to req written to the pipe. */
static int ask_as_nobody(const char *req, char *buf, size_t n)
{
	int p[2], st;
	ssize_t r;
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		char b[1024] = "";

		close(p[0]);
		become_nobody();
		ask(req, b, sizeof(b));
		_exit(write(p[1], b, strlen(b)) < 0);
	}
	close(p[1]);
	r = read(p[0], buf, n - 1);
	buf[r > 0 ? r : 0] = 0;
	close(p[0]);
	waitpid(c, &st, 0);
	return 0;
}

static int start(void)
{
	struct timespec ts = { 0, 10000000L };
	int i, fd;

	if (!mkdtemp(dir) || chmod(dir, 0755))
		return -1;
	snprintf(sock, sizeof(sock), "%s/ctl.sock", dir);
	held = fork();
	if (held == 0) {
		become_nobody();
		for (;;)
			pause();
	}
	daemon_module_add(&standin);
	dpid = fork();
	if (dpid == 0) {
		struct daemon_opts o = { .socket = sock, .group = "65534" };

		if (!freopen("/dev/null", "w", stderr))
			_exit(98);
		_exit(daemon_main(&o));
	}
	for (i = 0; i < 3000; i++) {
		if ((fd = usock_connect(sock)) >= 0) {
			close(fd);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	return -1;
}

static void stop(void)
{
	int st;

	kill(dpid, SIGKILL);
	waitpid(dpid, &st, 0);
	kill(held, SIGKILL);
	waitpid(held, &st, 0);
	unlink(sock);
	rmdir(dir);
}

TEST(tenant_resume_and_detach_of_a_held_pid_are_refused)
{
	char req[64], buf[1024];

	snprintf(req, sizeof(req), "resume pid=%d\n", held);
	ask_as_nobody(req, buf, sizeof(buf));
	printf("# nobody: %s", buf);
	CHECK(strstr(buf, "err 3 "));
	CHECK(strstr(buf, "is held by the stand-in (a test module)"));
	CHECK(strstr(buf, "ask the node's admin"));
	snprintf(req, sizeof(req), "detach pid=%d\n", held);
	ask_as_nobody(req, buf, sizeof(buf));
	CHECK(strstr(buf, "err 3 "));
	CHECK(strstr(buf, "is held by the stand-in"));
}

TEST(admin_resume_is_not_refused_for_the_hold)
{
	char req[64], buf[1024];

	snprintf(req, sizeof(req), "resume pid=%d\n", held);
	ask(req, buf, sizeof(buf));
	printf("# root: %s", buf);
	CHECK(buf[0]);
	CHECK(!strstr(buf, "held by the stand-in"));
}

int main(void)
{
	if (geteuid()) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	if (start()) {
		printf("Bail out! daemon did not start\n");
		stop();
		return 1;
	}
	RUN(tenant_resume_and_detach_of_a_held_pid_are_refused);
	RUN(admin_resume_is_not_refused_for_the_hold);
	stop();
	return tap_done();
}
