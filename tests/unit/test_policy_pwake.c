// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (root; the real daemon loop, socket and process; /proc is a
 * STAND-IN named by --proc-root): a request parked while its process is
 * read off the loop (arbiter_defer.c) costs the loop no wake-ups, and is
 * answered once its read ends, woken by the job's end (offjob.h's
 * eventfd), not found by a period.
 *
 * The stand-in's /proc/PID/status is a FIFO: the job's open() blocks
 * until the test opens the write end, so the read ends exactly when the
 * test says. The loop's wake-ups are its main thread's voluntary context
 * switches (/proc/PID/task/PID/status: each poll() that sleeps is one),
 * counted over a second with nothing parked and over a second with the
 * request parked, in the same run. Before the wake, the loop looked at
 * parked requests every 5 ms: ~200 wake-ups a second on top of the
 * scan's ~10; now the two seconds cost about the same.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "daemon_harness.h"

static char dir[] = "/tmp/gp-pwake-XXXXXX", sock[96], ready[96], logf[96],
	    kfd[96], root[96], fifo[200];
static pid_t dpid, target;
static int fd = -1, conn = -1;
static char reply[8192];

static void kill_all(void)
{
	if (dpid > 0)
		kill(dpid, SIGKILL);
	if (target > 0)
		kill(target, SIGKILL);
}

static void on_alarm(int sig)
{
	static const char m[] = "not ok - bounded out: the daemon froze\n";

	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(1);
	kill_all();
	_exit(1);
}

static int put(const char *name, const char *s, size_t n)
{
	char path[192];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%d/%s", root, target, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fwrite(s, 1, n, f) == n;
	return fclose(f) || !ok ? -1 : 0;
}

/* The target's stand-in files: all but status, a FIFO, as the kernel
 * writes them. */
static int make_root(void)
{
	char path[128], stat[128];
	static const char cmd[] = "gp-pwake-on\0300";

	snprintf(path, sizeof(path), "%s/%d", root, target);
	snprintf(fifo, sizeof(fifo), "%s/status", path);
	snprintf(stat, sizeof(stat), "%d (sleep) S 1 1 1 0 -1 0 0 0 0 0 0 0 "
		 "0 0 20 0 1 0 4242 0 0\n", target);
	if (mkdir(root, 0755) || mkdir(path, 0755) || mkfifo(fifo, 0600))
		return -1;
	return put("comm", "sleep\n", 6) || put("cmdline", cmd, sizeof(cmd)) ||
	       put("cgroup", "0::/\n", 5) || put("stat", stat, strlen(stat));
}

static int start_daemon(void)
{
	char *argv[] = { "daemon", "-s", sock, "--ready", ready,
		"--detect", "notify", "--online", "uid=0,cmdline=gp-pwake-on",
		"--offline", "uid=0,cmdline=gp-pwake-never", "--kfd-proc",
		kfd, "--proc-root", root, NULL };

	if (daemon_start_argv(&dpid, 15, argv, ready, logf))
		return -1;
	fd = gp_notify_open(sock);
	conn = gp_notify_open(sock);
	return fd < 0 || conn < 0 ? -1 : 0;
}

/* The daemon's threads: its loop, plus one per job running. */
static int threads(void)
{
	char path[64];
	struct dirent *e;
	DIR *dd;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", dpid);
	dd = opendir(path);
	while (dd && (e = readdir(dd)))
		n += e->d_name[0] != '.';
	if (dd)
		closedir(dd);
	return n;
}

/* The loop thread's sleeps so far (-1: unreadable). */
static long long sleeps(void)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", dpid, dpid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* The loop's wake-ups per second, over about one second. */
static double wakes_per_s(void)
{
	uint64_t t0 = monotonic_ns(), t1;
	long long s0 = sleeps(), s1;

	usleep(1000000);
	s1 = sleeps();
	t1 = monotonic_ns();
	if (s0 < 0 || s1 < s0)
		return -1;
	return (s1 - s0) / ((t1 - t0) / 1e9);
}

static double idle_rate;

TEST(the_idle_loop_sleeps)
{
	/* Answered once (the first scan is done by then), then quiet. */
	CHECK(daemon_ask(fd, "status\n", reply, sizeof(reply), 10000) == 0);
	idle_rate = wakes_per_s();
	printf("# idle loop: %.1f wake-ups/s\n", idle_rate);
	CHECK(idle_rate >= 0);
}

TEST(a_parked_request_costs_no_wakeups)
{
	char req[64];
	double rate;
	int i;

	snprintf(req, sizeof(req), "busy pid=%d\n", target);
	CHECK(write(conn, req, strlen(req)) == (ssize_t)strlen(req));
	/* Parked: its job's thread is blocked opening the FIFO (60 s for
	 * a loaded host to get there). */
	for (i = 0; i < 600 && threads() < 2; i++)
		usleep(100000);
	CHECK(threads() == 2);
	rate = wakes_per_s();
	printf("# with a request parked: %.1f wake-ups/s\n", rate);
	/* Before: +~200/s (a look every 5 ms). A loaded host only
	 * lowers both rates. */
	CHECK(rate >= 0 && rate <= 2 * idle_rate + 10);
}

TEST(its_answer_follows_the_read)
{
	static const char st[] = "Name:\tsleep\nUid:\t0\t0\t0\t0\n";
	uint64_t t0;
	int w, r;

	/* The job's open() returns as ours does; the rest is read. */
	w = open(fifo, O_WRONLY | O_NONBLOCK);
	CHECK(w >= 0);
	if (w < 0)
		return;
	t0 = monotonic_ns();
	CHECK(write(w, st, sizeof(st) - 1) == (ssize_t)sizeof(st) - 1);
	close(w);
	r = daemon_ask(conn, "", reply, sizeof(reply), 60000);
	printf("# answered %.1f ms after its read ended\n",
	       (monotonic_ns() - t0) / 1e6);
	if (r)
		printf("# reply: %s", reply);
	/* Described in time: taken, not refused at the deadline. A daemon
	 * busy past 2 s (a loaded host) refuses it: then it says so. */
	CHECK(r == 0 || strstr(reply, "did not answer"));
	CHECK(daemon_ask(fd, "policy\n", reply, sizeof(reply), 10000) == 0);
	if (r == 0) {
		char key[64];

		snprintf(key, sizeof(key), "proc pid=%d class=online", target);
		CHECK(strstr(reply, key) != NULL);
	}
}

int main(void)
{
	char cmd[160];

	if (geteuid()) {
		printf("1..0 # SKIP needs root (the daemon's socket)\n");
		return 0;
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(300);
	target = fork();
	if (target == 0)
		for (;;)
			pause();
	if (!mkdtemp(dir) || target < 0) {
		printf("not ok 1 - set-up: %s\n", strerror(errno));
		kill_all();
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	snprintf(kfd, sizeof(kfd), "%s/kfd", dir);
	snprintf(root, sizeof(root), "%s/proc", dir);
	if (make_root() || mkdir(kfd, 0755) || start_daemon()) {
		printf("not ok 1 - set-up: stand-in /proc or the daemon (log "
		       "%s)\n", logf);
		kill_all();
		return 1;
	}
	RUN(the_idle_loop_sleeps);
	RUN(a_parked_request_costs_no_wakeups);
	RUN(its_answer_follows_the_read);
	close(fd);
	close(conn);
	DAEMON_STOP_CHECK(dpid);	/* bounded by alarm() */
	dpid = 0;
	kill_all();
	waitpid(target, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (!tap_failed && system(cmd))
		return 1;
	return tap_done();
}
