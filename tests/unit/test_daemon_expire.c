// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host-only behaviour): the daemon's idle timeout closes connections
 * in the same loop round as other connections' events. The loop served
 * its clients' events by their index at poll time; the once-a-second
 * expiry, between the poll and those events, closed some first, and a
 * close moves the last connection into the freed slot. A hang-up served
 * at a stale index then closed it again: a live connection fell out of
 * the table, a freed one stayed in it, and the daemon died of a double
 * free ("double free or corruption"). The daemon is stopped (SIGSTOP)
 * to put both in one round, deterministically. The real daemon loop runs
 * in a child; real sockets, no KFD (no offline process).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "daemon_harness.h"
#include "gp_notify.h"
#include "util.h"

#define IDLE_MS 3000	/* the daemon's idle timeout here */
#define PAIRS 8		/* idle connections, each before a live one */

static char dir[] = "/tmp/gp-dexp-XXXXXX", sock[64], ready[64], logf[64];
static char reply[8192];
static pid_t dpid;

/* A connection the daemon has in its table (answered once). */
static int conn(const char *req)
{
	int c = gp_notify_open(sock);

	if (c >= 0 && daemon_ask(c, req, reply, sizeof(reply), 10000)) {
		close(c);
		return -1;
	}
	return c;
}

/*
 * Table: idle, live, idle, live, ..., x. The live ones and x keep an
 * open busy (never expired). With the daemon stopped, x hangs up and the
 * idle ones pass IDLE_MS; at SIGCONT one round has x's hang-up and the
 * tick's expiry of every idle one (over a second since the last tick).
 */
TEST(expiry_beside_other_events_keeps_the_table)
{
	int idle[PAIRS], live[PAIRS], x, i, k;
	char busy[64], b;

	snprintf(busy, sizeof(busy), "busy pid=%d\n", getpid());
	for (i = 0; i < PAIRS; i++) {
		idle[i] = conn("policy\n");
		live[i] = conn(busy);
		CHECK(idle[i] >= 0 && live[i] >= 0);
	}
	x = conn(busy);
	CHECK(x >= 0);
	kill(dpid, SIGSTOP);
	close(x);
	usleep((IDLE_MS + 1500) * 1000);
	kill(dpid, SIGCONT);
	for (i = 0; i < PAIRS; i++) {
		CHECK(daemon_ask(live[i], "policy\n", reply, sizeof(reply),
				 10000) == 0);
		/* the expiry did run in that round: not a vacuous pass */
		CHECK(recv(idle[i], &b, 1, 0) == 0);
	}
	CHECK(waitpid(dpid, &k, WNOHANG) == 0);	/* alive */
	for (i = 0; i < PAIRS; i++) {
		close(idle[i]);
		close(live[i]);
	}
}

int main(void)
{
	int fd;

	if (!mkdtemp(dir)) {
		printf("not ok 1 - set-up (temp dir)\n");
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	fd = daemon_spawn(&dpid, getpid(), "100ms", sock, ready, logf,
			  IDLE_MS * NSEC_PER_MSEC);
	if (fd < 0) {
		printf("not ok 1 - the daemon did not start (log %s)\n", logf);
		return 1;
	}
	close(fd);
	RUN(expiry_beside_other_events_keeps_the_table);
	DAEMON_STOP_CHECK(dpid);
	if (tap_failed)
		printf("# daemon log: %s\n", logf);
	else {
		unlink(sock);
		unlink(ready);
		unlink(logf);
		rmdir(dir);
	}
	return tap_done();
}
