/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real daemon loop with the arbiter, in a child, for L1 tests; and
 * one request to a daemon under test over its socket: the whole reply
 * (INFO lines and the final line) lands in reply. Returns 0 for "ok",
 * the code of "err N", -1 when the daemon sent nothing for timeout_ms
 * (a frozen loop) or closed the connection.
 */
#ifndef GP_TEST_DAEMON_HARNESS_H
#define GP_TEST_DAEMON_HARNESS_H

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "arbiter.h"
#include "daemon.h"
#include "gp_notify.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int daemon_ask(int fd, const char *req, char *reply,
			     size_t size, int timeout_ms)
{
	size_t n = 0;

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return -1;
	reply[0] = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		char *last;
		ssize_t r;

		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		r = read(fd, reply + n, size - 1 - n);
		if (r <= 0)
			return -1;
		n += r;
		reply[n] = 0;
		if (n < 2 || reply[n - 1] != '\n')
			continue;
		reply[n - 1] = 0;
		last = strrchr(reply, '\n');
		last = last ? last + 1 : reply;
		reply[n - 1] = '\n';
		if (!strncmp(last, "ok\n", 3))
			return 0;
		if (!strncmp(last, "err ", 4))
			return atoi(last + 4);
	}
}

/*
 * Starts daemon_main in a child (its pid in *dpid) with --detect
 * notify,queues, online_pid the only online process and queue polls
 * every poll (e.g. "1ms"), its log in logf; idle_ns 0 keeps the
 * default. Waits for the ready file (30 s at most) and returns a
 * connection to sock, -1 if none.
 *
 * A test that dies must not leave the daemon behind: an orphaned daemon
 * keeps the test's stdout open and the suite runner waits on it for
 * ever (seen under load: the daemon closed a connection, the test's next
 * write raised SIGPIPE). So the child dies with the test, and the test
 * gets EPIPE (a failed check) instead of SIGPIPE.
 */
static inline int daemon_spawn(pid_t *dpid, int online_pid, char *poll,
			       char *sock, char *ready, const char *logf,
			       uint64_t idle_ns)
{
	char on[32], *argv[] = { "daemon", "-s", sock, "--ready", ready,
		"--detect", "notify,queues", "--online", on, "--offline",
		"uid=0,comm=no-such-job", "--poll", poll, "--resume-after", "0",
		NULL };
	struct daemon_opts o;
	pid_t parent;
	int i;

	snprintf(on, sizeof(on), "pid=%d", online_pid);
	signal(SIGPIPE, SIG_IGN);
	parent = getpid();
	*dpid = fork();
	if (*dpid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(98);
		if (!freopen(logf, "w", stderr) ||
		    daemon_module_add(&arbiter_module) ||
		    daemon_parse(15, argv, &o, stdout, stderr))
			_exit(99);
		if (idle_ns)
			o.idle_ns = idle_ns;
		_exit(daemon_main(&o));
	}
	for (i = 0; i < 600 && access(ready, F_OK); i++)
		usleep(50000);
	return gp_notify_open(sock);
}

/*
 * daemon_main with the arbiter and argv (argc words) in a child that dies
 * with the test (its pid in *dpid), its log in logf; waits for the ready
 * file (60 s at most: a loaded host). 0, or -1 when it did not get ready.
 */
static inline int daemon_start_argv(pid_t *dpid, int argc, char **argv,
				    const char *ready, const char *logf)
{
	struct daemon_opts o;
	pid_t parent = getpid();
	int i;

	*dpid = fork();
	if (*dpid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(98);
		if (!freopen(logf, "w", stderr) ||
		    daemon_module_add(&arbiter_module) ||
		    daemon_parse(argc, argv, &o, stdout, stderr))
			_exit(99);
		_exit(daemon_main(&o));
	}
	for (i = 0; i < 1200 && access(ready, F_OK); i++)
		usleep(50000);
	return *dpid > 0 && !access(ready, F_OK) ? 0 : -1;
}

/* SIGTERM to the daemon dpid: one TAP check that it exits 0 (tap.h's
 * counters: include tap.h first). */
#define DAEMON_STOP_CHECK(dpid)						\
	do {								\
		int _st = 0;						\
									\
		kill(dpid, SIGTERM);					\
		waitpid(dpid, &_st, 0);					\
		printf("%sok %d - daemon exits 0 on SIGTERM\n",	\
		       WIFEXITED(_st) && !WEXITSTATUS(_st) ? "" : "not ",\
		       ++tap_n);					\
		if (!(WIFEXITED(_st) && !WEXITSTATUS(_st)))		\
			tap_failed++;					\
	} while (0)

#endif
