// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (root; real daemon loop and socket, real processes; /proc and KFD's
 * per-process sysfs folder are STAND-INS, named as such by --proc-root
 * and --kfd-proc): a new KFD process whose /proc files never answer. The
 * test serves a FUSE file system over /dev/fuse (fuse_proc.h) as the
 * stand-in /proc: the files of a first pid stall (a READ never answered:
 * a stalled FUSE server), those of a second read like the real ones. The arbiter's
 * scan must describe new processes off the loop: the loop keeps
 * answering, the first pid is named unclassified with the reason after
 * the deadline (ARB_DESC_DEADLINE_NS, 2 s), classify of it is refused,
 * the second is still classified, and SIGTERM shuts the loop down. Before
 * the reads left the loop the daemon froze at the scan: alarm() bounds
 * the test so it fails rather than hangs.
 *
 * A third pid, never a KFD process, stalls too: a busy naming it is the
 * first the arbiter hears of it, so the request itself must read it. The
 * request waits off the loop (arbiter_defer.c): others are answered
 * meanwhile, it is refused with the reason at the deadline, the pid is
 * remembered unclassified, and the connection goes on. (Before, the
 * request read the real /proc on the loop, and a hanging one froze it.)
 * A fourth stalls for a tenant (nobody, a --group member) that asks three
 * times at once: two requests wait, the third is refused at once.
 *
 * Why a stand-in: the real /proc/PID/cmdline cannot be stalled this way
 * on the kernels we run. get_mm_cmdline() reads argv with FOLL_ANON (no
 * file-backed page: a FUSE mapping fails, commit 7f7ccc2ccc2e, v4.18)
 * and access_remote_vm() faults without FAULT_FLAG_ALLOW_RETRY, so a
 * userfaultfd page answers SIGBUS at once (seen on 6.18, with argv moved
 * there by PR_SET_MM_MAP). What can still hold such a read is the
 * target's mmap lock; the reads leave the loop all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "fuse_proc.h"
#include "daemon_harness.h"
#include "arbiter.h"
#include "daemon.h"
#include "gp_notify.h"

static char dir[] = "/tmp/gp-pstuck-XXXXXX", sock[96], ready[96],
	    logf[96], kfd[96];
static char mnt[96];
static pid_t dpid, child, online, server, named, named2, named3;
static int fd = -1;
static char reply[8192];

static void kill_all(void)
{
	if (dpid > 0)
		kill(dpid, SIGKILL);
	if (child > 0)
		kill(child, SIGKILL);
	if (online > 0)
		kill(online, SIGKILL);
	if (named > 0)
		kill(named, SIGKILL);
	if (named2 > 0)
		kill(named2, SIGKILL);
	if (named3 > 0)
		kill(named3, SIGKILL);
	if (server > 0)
		kill(server, SIGKILL);	/* the stalled reads fail */
	if (mnt[0])
		umount2(mnt, MNT_DETACH);
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

static bool log_says(const char *s)
{
	char buf[16384];
	FILE *f = fopen(logf, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return strstr(buf, s) != NULL;
}

static int ask(const char *req)
{
	return daemon_ask(fd, req, reply, sizeof(reply), 10000);
}

/* The stand-in /proc: child, named and named3 stall, named2's stalls
 * and is nobody's, online's files read as the kernel would write them. */
static struct fuse_proc fp;

static void fill_files(void)
{
	char stat[256];
	int n;

	fp.mnt = mnt;
	fp.stall[0].pid = child;
	fp.stall[1].pid = named;
	fp.stall[2].pid = named2;
	fp.stall[2].uid = 65534;
	fp.stall[3].pid = named3;
	fp.nstall = 4;
	fp.live = online;
	fuse_proc_file(&fp, FP_STATUS, "Name:\tsleep\nUid:\t0\t0\t0\t0\n",
		       strlen("Name:\tsleep\nUid:\t0\t0\t0\t0\n"));
	fuse_proc_file(&fp, FP_COMM, "sleep\n", 6);
	fuse_proc_file(&fp, FP_CMDLINE, "gp-pstuck-on\0" "300",
		       sizeof("gp-pstuck-on\0" "300"));
	fuse_proc_file(&fp, FP_CGROUP, "0::/\n", 5);
	n = snprintf(stat, sizeof(stat), "%d (sleep) S 1 1 1 0 -1 0 0 0 0 0 "
		     "0 0 0 0 20 0 1 0 4242 0 0\n", online);
	fuse_proc_file(&fp, FP_STAT, stat, n);
}

/* The two processes, then the server of the stand-in /proc. */
static int start_procs(void)
{
	char path[160];
	struct stat st;
	int i;

	child = fork();
	if (child == 0)
		for (;;)
			pause();
	named = fork();
	if (named == 0)
		for (;;)
			pause();
	named2 = fork();
	if (named2 == 0)
		for (;;)
			pause();
	named3 = fork();
	if (named3 == 0)
		for (;;)
			pause();
	online = fork();
	if (online == 0) {
		execl("/bin/sleep", "gp-pstuck-on", "300", (char *)NULL);
		_exit(127);
	}
	if (child < 0 || named < 0 || named2 < 0 || named3 < 0 ||
	    online < 0 ||
	    mkdir(mnt, 0755))
		return -1;
	fill_files();
	server = fork();
	if (server == 0)
		fuse_proc_serve(&fp);
	snprintf(path, sizeof(path), "%s/%d", mnt, online);
	for (i = 0; i < 300 && (stat(path, &st) || !S_ISDIR(st.st_mode));
	     i++)
		usleep(20000);
	return i == 300 ? -1 : 0;
}

/* A KFD process in the stand-in folder: an empty proc/PID. */
static int kfd_add(pid_t pid)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%d", kfd, pid);
	return mkdir(path, 0755);
}

static int start_daemon(void)
{
	char *argv[] = { "daemon", "-s", sock, "--ready", ready,
		"--detect", "notify", "--online", "uid=0,cmdline=gp-pstuck-on",
		"--offline", "uid=0,cmdline=gp-pstuck-never", "--kfd-proc",
		kfd, "--proc-root", mnt, "--group", "65534", NULL };

	if (daemon_start_argv(&dpid, 17, argv, ready, logf))
		return -1;
	fd = gp_notify_open(sock);
	return fd < 0 ? -1 : 0;
}

/* Until policy's reply holds key: every request answered (10 s each at
 * most); 60 s of requests in all (a loaded host). */
static bool policy_says(const char *key)
{
	for (int i = 0; i < 600; i++) {
		if (ask("policy\n") != 0)
			return false;
		if (strstr(reply, key))
			return true;
		usleep(100000);
	}
	return false;
}

TEST(stuck_cmdline_leaves_the_loop_answering)
{
	char key[96], req[96];

	CHECK(kfd_add(child) == 0);
	snprintf(key, sizeof(key), "unclassified pid=%d reason=\"/proc read "
		 "stuck\"", child);
	CHECK(policy_says(key));
	CHECK(ask("status\n") == 0);
	snprintf(req, sizeof(req), "classify pid=%d class=offline\n", child);
	CHECK(ask(req) != 0 && strstr(reply, "did not answer"));
}

TEST(a_later_process_is_still_classified)
{
	char key[64];

	CHECK(kfd_add(online) == 0);
	snprintf(key, sizeof(key), "proc pid=%d class=online", online);
	CHECK(policy_says(key));
}

TEST(a_named_pid_is_read_off_the_loop)
{
	char req[64], key[96], r2[8192];
	int fd2 = gp_notify_open(sock);

	CHECK(fd2 >= 0);
	snprintf(req, sizeof(req), "busy pid=%d\n", named);
	CHECK(write(fd2, req, strlen(req)) == (ssize_t)strlen(req));
	/* Its read stalls for good: others are answered meanwhile. */
	CHECK(ask("status\n") == 0);
	CHECK(ask("policy\n") == 0);
	/* Refused at the deadline, with the reason; remembered. */
	CHECK(daemon_ask(fd2, "", r2, sizeof(r2), 60000) > 0 &&
	      strstr(r2, "did not answer"));
	snprintf(key, sizeof(key), "unclassified pid=%d reason=", named);
	CHECK(policy_says(key));
	/* The connection goes on; the pid is not read again. */
	CHECK(daemon_ask(fd2, "policy\n", r2, sizeof(r2), 10000) == 0);
	CHECK(daemon_ask(fd2, req, r2, sizeof(r2), 10000) > 0 &&
	      strstr(r2, "did not answer"));
	close(fd2);
}

/*
 * A request that waits for a description holds back the lines after it
 * on its connection: the answers come in order (classify always reads
 * the process; a pid that is gone is refused once the read ends, then
 * status answers).
 */
TEST(answers_stay_in_order_behind_a_waiting_request)
{
	char req[96], r[8192] = "", *first, *second;
	size_t n = 0;
	pid_t gone = fork();
	int i;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(req, sizeof(req), "classify pid=%d class=online\nstatus\n",
		 gone);
	CHECK(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
	/* both terminal lines, 30 s at most (a loaded host) */
	for (i = 0; i < 300 && !strstr(r, "\nok\n") && n < sizeof(r) - 1;
	     i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t k;

		if (poll(&p, 1, 100) != 1)
			continue;
		k = read(fd, r + n, sizeof(r) - 1 - n);
		if (k <= 0)
			break;
		n += k;
		r[n] = 0;
	}
	first = strstr(r, "err ");
	second = strstr(r, "\nok\n");
	CHECK(first && second && first < second);
	CHECK(strstr(r, "no process"));
}

/*
 * As nobody (a --group member: a tenant), three connections ask busy for
 * a pid whose files stall: two wait (ARB_PARK_PER_UID), the third is
 * refused at once; the two are refused at the deadline. No timing: the
 * three connections are served first (a status each), then the daemon is
 * stopped (SIGSTOP, by the parent) while the three requests are written,
 * so that one poll round reads all three. A round looks at deadlines
 * (the tick) before it serves connections: however slow the host, the
 * third meets the two parked. Exit 0 when so.
 */
static int tenant_parks(int to_parent, int from_parent)
{
	char req[64], r[4096], c;
	int fds[3], full = 0, late = 0;
	gid_t g = 65534;

	if (setgroups(1, &g) || setresgid(g, g, g) ||
	    setresuid(65534, 65534, 65534))
		return 90;
	snprintf(req, sizeof(req), "busy pid=%d\n", named2);
	for (int i = 0; i < 3; i++) {
		fds[i] = gp_notify_open(sock);
		if (fds[i] < 0 ||
		    daemon_ask(fds[i], "status\n", r, sizeof(r), 60000))
			return 91;
	}
	/* the parent stops the daemon */
	if (write(to_parent, "s", 1) != 1 || read(from_parent, &c, 1) != 1)
		return 93;
	for (int i = 0; i < 3; i++)
		if (write(fds[i], req, strlen(req)) != (ssize_t)strlen(req))
			return 91;
	/* and lets it go on */
	if (write(to_parent, "c", 1) != 1)
		return 93;
	for (int i = 0; i < 3; i++) {
		if (daemon_ask(fds[i], "", r, sizeof(r), 60000) <= 0)
			return 92;
		full += strstr(r, "requests wait") != NULL;
		late += strstr(r, "did not answer") != NULL;
	}
	return full == 1 && late == 2 ? 0 : 10 + 3 * full + late;
}

TEST(a_tenant_parks_two_requests_at_most)
{
	int st = -1, up[2], down[2];
	pid_t p;
	char c;

	CHECK(pipe(up) == 0 && pipe(down) == 0);
	p = fork();
	if (p == 0) {
		close(up[0]);
		close(down[1]);
		_exit(tenant_parks(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) == 1 && c == 's') {
		CHECK(kill(dpid, SIGSTOP) == 0);
		CHECK(write(down[1], "g", 1) == 1);
		if (read(up[0], &c, 1) != 1)
			printf("# the tenant's child ended early\n");
		CHECK(kill(dpid, SIGCONT) == 0);
	}
	close(up[0]);
	close(down[1]);
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("# the tenant's child: status 0x%x\n", st);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(ask("status\n") == 0);
}

int main(void)
{
	char cmd[160];
	int st = 0, i;

	if (geteuid()) {
		printf("1..0 # SKIP needs root (a FUSE mount)\n");
		return 0;
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);	/* a closed connection fails a CHECK */
	alarm(300);
	if (mkdtemp(dir) && !chmod(dir, 0755))	/* nobody reaches the socket */
		snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (!mnt[0] || start_procs()) {
		printf("not ok 1 - set-up (temp dir, processes, FUSE mount: %s)\n",
		       strerror(errno));
		kill_all();
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	snprintf(kfd, sizeof(kfd), "%s/kfd", dir);
	if (mkdir(kfd, 0755) || start_daemon()) {
		printf("not ok 1 - the daemon did not start (log %s)\n", logf);
		kill_all();
		return 1;
	}
	RUN(stuck_cmdline_leaves_the_loop_answering);
	RUN(a_later_process_is_still_classified);
	RUN(a_named_pid_is_read_off_the_loop);
	RUN(a_tenant_parks_two_requests_at_most);
	RUN(answers_stay_in_order_behind_a_waiting_request);
	close(fd);
	/*
	 * SIGTERM: the loop shuts down ("bye" in its log). The process
	 * ends once the stalled read does: a FUSE request already sent
	 * waits uninterruptibly for its answer (request_wait_answer() in
	 * fs/fuse/dev.c), so the server is killed after the bye, which
	 * fails the read.
	 */
	kill(dpid, SIGTERM);
	for (i = 0; i < 600 && !log_says("; bye"); i++)
		usleep(100000);
	printf("%sok %d - the loop shuts down on SIGTERM with a reader "
	       "stuck\n", i < 600 ? "" : "not ", ++tap_n);
	tap_failed += i == 600;
	kill(server, SIGKILL);
	for (i = 0; i < 600 && waitpid(dpid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	printf("%sok %d - the daemon exits once the read fails\n",
	       i < 600 && WIFEXITED(st) ? "" : "not ", ++tap_n);
	if (!(i < 600 && WIFEXITED(st)))
		tap_failed++;
	if (i == 600)
		kill(dpid, SIGKILL);
	dpid = 0;
	kill_all();
	waitpid(child, NULL, 0);
	waitpid(online, NULL, 0);
	waitpid(named, NULL, 0);
	waitpid(named2, NULL, 0);
	waitpid(named3, NULL, 0);
	waitpid(server, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (!tap_failed && system(cmd))
		return 1;
	return tap_done();
}
