// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, needs root, no KFD): the daemon cannot be wedged. The real
 * daemon_main() runs in a child with its stderr a pipe nobody reads;
 * no KFD is involved ('status' needs none). Clients are forked children
 * that drop to uid/gid 65534 (nobody/nogroup) and use the daemon's
 * --group.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_conn.h"
#include "daemon.h"
#include "exitcodes.h"
#include "tap.h"
#include "usock.h"
#include "util.h"

#define NOBODY 65534

static char dir[] = "/tmp/gpwedge.XXXXXX", sock[64];
static pid_t dpid;
static int errpipe[2];

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A pipe already full, as after 2000 logged refusals nobody read. */
static int full_pipe(int p[2])
{
	char junk[4096];
	int fl;

	if (pipe(p))
		return -1;
	memset(junk, 'x', sizeof(junk));
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	while (write(p[1], junk, sizeof(junk)) > 0)
		;
	/* blocking again: a daemon that writes its log plainly blocks */
	return fcntl(p[1], F_SETFL, fl);
}

static int start_daemon(uint64_t idle_ns)
{
	struct stat st;
	int i, fd;

	if (!mkdtemp(dir) || chmod(dir, 0755))
		return -1;
	snprintf(sock, sizeof(sock), "%s/ctl.sock", dir);
	if (full_pipe(errpipe))
		return -1;
	dpid = fork();
	if (dpid == 0) {
		struct daemon_opts o = {
			.socket = sock, .group = "65534", .idle_ns = idle_ns,
		};

		dup2(errpipe[1], STDERR_FILENO);
		close(errpipe[0]);
		_exit(daemon_main(&o));
	}
	/*
	 * Ready when a connect succeeds, not when the file exists: the
	 * daemon binds (the file appears), chowns, then listens, and a
	 * connect in between is refused (seen under load in the suite).
	 */
	for (i = 0; i < 200; i++) {
		if (!lstat(sock, &st) && (fd = usock_connect(sock)) >= 0) {
			close(fd);
			return 0;
		}
		sleep_ms(10);
	}
	return -1;
}

static void stop_daemon(void)
{
	int st;

	if (dpid > 0) {
		kill(dpid, SIGKILL);
		waitpid(dpid, &st, 0);
	}
	unlink(sock);
	rmdir(dir);
	close(errpipe[0]);
	close(errpipe[1]);
}

static void become_nobody(void)
{
	gid_t g = NOBODY;

	if (setgroups(1, &g) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(99);
}

/*
 * As nobody: n bad requests on one connection (each refused and logged),
 * then hold `idle` connections open doing nothing until killed.
 */
static pid_t pester(int n, int idle, int ready)
{
	pid_t c = fork();
	char buf[512];
	int fd, i;

	if (c)
		return c;
	become_nobody();
	fd = usock_connect(sock);
	for (i = 0; fd >= 0 && i < n; i++) {
		struct pollfd p = { fd, POLLIN, 0 };

		if (write(fd, "bogus\n", 6) != 6 || poll(&p, 1, 1000) != 1 ||
		    read(fd, buf, sizeof(buf)) <= 0)
			break;
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < idle; i++)
		usock_connect(sock);	/* kept open, never used */
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void on_alarm(int sig)
{
}

/*
 * Root's status round trip in ms, or -1 if it failed. A wedged daemon
 * does not accept: connect() then blocks on the full backlog, so an
 * alarm (no SA_RESTART) bounds it.
 */
static double root_status(struct gp_err *e)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct proto_req q = { .verb = PROTO_STATUS };
	static struct proto_reply r;
	uint64_t t0 = monotonic_ns();
	int rc;

	sigaction(SIGALRM, &sa, NULL);
	alarm(3);
	rc = ctl_call(sock, &q, &r, 2000, e);
	alarm(0);
	if (rc || r.exit || !r.has_daemon)
		return -1;
	return (monotonic_ns() - t0) / 1e6;
}

/* The pester child's "ready", or a timeout (it may hang on a wedged
 * daemon's backlog too). */
static void wait_ready(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char b;

	if (poll(&p, 1, 5000) == 1 && read(fd, &b, 1) == 1)
		return;
	printf("# the clients could not all connect within 5 s\n");
}

TEST(root_status_answers_despite_idle_clients_and_full_stderr)
{
	struct gp_err e = {};
	int rp[2], st;
	double ms;
	pid_t c;

	CHECK(pipe(rp) == 0);
	CHECK(start_daemon(0) == 0);
	c = pester(2000, 64, rp[1]);
	wait_ready(rp[0]);
	ms = root_status(&e);
	printf("# root's status after 2000 refusals, 64 idle clients, "
	       "stderr full: %.1f ms%s%s\n", ms, ms < 0 ? ": " : "",
	       ms < 0 ? e.msg : "");
	CHECK(ms >= 0 && ms < 100);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	stop_daemon();
	close(rp[0]);
	close(rp[1]);
}

TEST(idle_connection_is_closed)
{
	struct pollfd p;
	char b;
	int fd;

	strcpy(dir, "/tmp/gpwedge.XXXXXX");
	CHECK(start_daemon(300 * NSEC_PER_MSEC) == 0);
	fd = usock_connect(sock);
	CHECK(fd >= 0);
	/* nothing sent: the daemon hangs up within idle + one tick */
	p = (struct pollfd){ fd, POLLIN, 0 };
	CHECK(poll(&p, 1, 3000) == 1 && read(fd, &b, 1) == 0);
	close(fd);
	stop_daemon();
}

/*
 * A daemon that does not accept (stuck, or its backlog full): the client
 * gives up at its timeout instead of hanging in connect().
 */
TEST(client_times_out_on_a_stuck_daemon)
{
	struct proto_req q = { .verb = PROTO_STATUS };
	struct sigaction sa = { .sa_handler = on_alarm };
	static struct proto_reply r;
	struct gp_err e = {};
	struct sockaddr_un a;
	int l, i, fds[16], rc;
	uint64_t t0;
	double ms;

	strcpy(dir, "/tmp/gpwedge.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof(sock), "%s/stuck.sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(usock_addr(sock, &a) == 0);
	CHECK(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(listen(l, 0) == 0);	/* never accepted */
	for (i = 0; i < 16; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fds[i], (struct sockaddr *)&a, sizeof(a));
	}
	sigaction(SIGALRM, &sa, NULL);
	alarm(5);
	t0 = monotonic_ns();
	rc = ctl_call(sock, &q, &r, 500, &e);
	ms = (monotonic_ns() - t0) / 1e6;
	alarm(0);
	printf("# ctl_call on a stuck daemon: %d after %.0f ms: %s\n", rc, ms,
	       e.msg);
	CHECK(rc == -1 && e.exit == GP_EXIT_DAEMON && e.err == ETIMEDOUT);
	CHECK(ms < 2000);
	for (i = 0; i < 16; i++)
		close(fds[i]);
	close(l);
	unlink(sock);
	rmdir(dir);
}

int main(void)
{
	if (geteuid()) {
		printf("ok 1 - daemon host tests # SKIP needs root\n1..1\n");
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	RUN(root_status_answers_despite_idle_clients_and_full_stderr);
	RUN(idle_connection_is_closed);
	RUN(client_times_out_on_a_stuck_daemon);
	return tap_done();
}
