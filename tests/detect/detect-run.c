// SPDX-License-Identifier: GPL-2.0
/*
 * detect-run: the launch detector (user/detect/detect_*.c) driven from
 * a test, on real processes and real uprobes. One JSON object a line.
 *
 *   detect-run [-x PROC] [-g GRACE_MS] [-r READY] [-s PID]... [-p PID]...
 *
 *   -s PID   scan only: report the library and entry points, or why not
 *   -p PID   scan and attach (an online process)
 *   -r FILE  created once every -s/-p is done (tests wait on it)
 * Then it prints edges as they come and reads commands on stdin:
 *   peek PID     first byte at each probed entry in PID's memory (0xcc:
 *                a breakpoint is installed there)
 *   idle PID     mark PID idle from outside (gp_dl_set_idle)
 *   busy PID     watch PID with no library (its state seeded busy): a
 *                test stand-in for a launch, so that a real KFD
 *                WAIT_EVENTS return of PID can be seen to end it
 *   counts       the BPF counters (hits, stray, edges, lost)
 * and at end of input prints the counts and exits 0 (1 on a load error).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect_launch.h"

static struct gp_dl dl;
static const char *proc_root = "/proc";

static void on_edge(void *ctx, const struct gp_edge *e)
{
	printf("{\"edge\":\"%s\",\"pid\":%u,\"entry\":\"%s\",\"launches\":%llu}\n",
	       e->kind == GP_EDGE_BUSY ? "busy" : "idle", e->pid,
	       gp_dl_entry_name(e->entry) ?: e->entry == GP_ENT_WAIT_EVENTS ?
	       "WAIT_EVENTS" : "?",
	       (unsigned long long)e->launches);
	fflush(stdout);
}

static int scan(pid_t pid, bool attach)
{
	char reason[GP_DL_REASON] = "";
	struct gp_dl_lib lib;
	int err, n;

	err = gp_dl_scan(proc_root, pid, &lib);
	printf("{\"scan\":%d,\"ok\":%s,\"path\":\"%s\",\"runtime\":\"%s\","
	       "\"nlaunch\":%d,\"reason\":\"%s\"}\n", pid,
	       err ? "false" : "true", lib.path, err ? "" :
	       gp_dl_runtimes[lib.rt].name, lib.nlaunch, lib.reason);
	if (err || !attach)
		return err;
	n = gp_dl_attach(&dl, &lib, reason, sizeof(reason));
	printf("{\"attach\":%d,\"probes\":%d,\"reason\":\"%s\"}\n", pid, n,
	       n < 0 ? reason : "");
	return n < 0 ? n : 0;
}

static void peek(pid_t pid)
{
	char p[64];
	struct gp_dl_lib lib;
	unsigned char b;
	int fd, e;

	if (gp_dl_scan(proc_root, pid, &lib)) {
		printf("{\"peek\":%d,\"error\":\"%s\"}\n", pid, lib.reason);
		return;
	}
	snprintf(p, sizeof(p), "%s/%d/mem", proc_root, pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	for (e = 0; fd >= 0 && e < GP_ENT_MAX; e++) {
		unsigned long long a = gp_dl_entry_addr(proc_root, &lib, e);

		if (a && pread(fd, &b, 1, a) == 1)
			printf("{\"peek\":%d,\"entry\":\"%s\",\"byte\":%u}\n",
			       pid, gp_dl_runtimes[lib.rt].entries[e].sym, b);
	}
	if (fd >= 0)
		close(fd);
}

static void counts(void)
{
	struct gp_dl_counts c;

	gp_dl_counts(&dl, &c);
	printf("{\"counts\":{\"hits\":%llu,\"stray\":%llu,\"edges\":%llu,"
	       "\"lost\":%llu,\"wait_returns\":%llu}}\n",
	       (unsigned long long)c.hits, (unsigned long long)c.stray,
	       (unsigned long long)c.edges, (unsigned long long)c.lost,
	       (unsigned long long)c.wait_returns);
}

static void command(char *l)
{
	int pid = 0;

	gp_dl_drain(&dl);
	if (sscanf(l, "peek %d", &pid) == 1)
		peek(pid);
	else if (sscanf(l, "idle %d", &pid) == 1)
		printf("{\"idle\":%d,\"ret\":%d}\n", pid, gp_dl_set_idle(&dl, pid));
	else if (sscanf(l, "busy %d", &pid) == 1)
		printf("{\"busy\":%d,\"ret\":%d}\n", pid, gp_dl_seed_busy(&dl, pid));
	else if (!strncmp(l, "counts", 6))
		counts();
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	unsigned long grace_ms = 50;
	char line[256];
	int opt, err;
	FILE *in = stdin;

	/* options twice: the grace is needed before the first attach */
	while ((opt = getopt(argc, argv, "x:g:r:s:p:")) != -1)
		if (opt == 'x')
			proc_root = optarg;
		else if (opt == 'g')
			grace_ms = strtoul(optarg, NULL, 0);
	err = gp_dl_open(&dl, grace_ms * 1000000ULL, on_edge, NULL);
	if (err) {
		printf("{\"load\":false,\"error\":\"%s\"}\n", strerror(-err));
		return 1;
	}
	printf("{\"wait_hook\":\"%s\",\"why\":\"%s\"}\n", dl.wait_how,
	       dl.wait_why);
	optind = 1;
	while ((opt = getopt(argc, argv, "x:g:r:s:p:")) != -1)
		if (opt == 's' || opt == 'p')
			scan(atoi(optarg), opt == 'p');
		else if (opt == 'r')
			ready = optarg;
	fflush(stdout);
	if (ready)
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	for (;;) {
		struct pollfd p[2] = { { fileno(in), POLLIN, 0 },
				       { gp_dl_fd(&dl), POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			gp_dl_drain(&dl);
		if (p[0].revents) {
			if (!fgets(line, sizeof(line), in))
				break;
			command(line);
		}
	}
	gp_dl_drain(&dl);
	counts();
	gp_dl_close(&dl);
	return 0;
}
