// SPDX-License-Identifier: GPL-2.0
/*
 * arm-run: the armed-while-idle launch detector (user/arbiter/
 * detect_armed.c) driven from a test or a benchmark, on a real process
 * and real uprobes. One JSON object a line.
 *
 *   arm-run -p PID -l LIB -L SYM[,SYM...] -S SYM[,SYM...] -T TRACEFS
 *           [-r READY] [-g REARM_MS] [-m MIN_LAUNCHES]
 *
 *   -L/-S  launch and sync entry points of LIB (dynsym names, '*' ends a
 *          prefix); LIB as reachable from here
 *   -T     where tracefs is mounted
 *   -g     re-arm a process disarmed this long with no sync (default 50)
 *   -m     launches trapped in a busy period before the disarm (16)
 *   -r     created once PID is armed
 * Prints edges as they come and reads commands on stdin:
 *   counts  the process's state: traps (launch probe runs), launches of
 *           the busy period, sync returns that found it disarmed
 *           (deferred), arms and disarms and their times
 *   idle    idle proved from outside (gp_da_set_idle)
 * and at end of input prints the counts and exits 0 (1 on a setup error).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect_armed.h"
#include "../lib/dynsym.h"

static struct gp_da da;
static pid_t pid;
static volatile sig_atomic_t stop;

/* a test's teardown kills us: leave no tracefs event behind */
static void on_term(int sig)
{
	stop = 1;
}

static void on_edge(void *ctx, const struct gp_edge *e)
{
	printf("{\"edge\":\"%s\",\"pid\":%u,\"launches\":%llu}\n",
	       e->kind == GP_EDGE_BUSY ? "busy" : "idle", e->pid,
	       (unsigned long long)e->launches);
	fflush(stdout);
}

static void counts(void)
{
	struct gp_arm_state st = {};
	const struct gp_da_counts *c = &da.c;

	gp_da_state(&da, pid, &st);
	printf("{\"counts\":%d,\"traps\":%llu,\"launches\":%llu,\"busy\":%u,"
	       "\"deferred\":%llu,\"arms\":%llu,\"disarms\":%llu,"
	       "\"arm_us_mean\":%.1f,\"arm_us_max\":%.1f,"
	       "\"disarm_us_mean\":%.1f,\"disarm_us_max\":%.1f}\n", pid,
	       (unsigned long long)st.traps, (unsigned long long)st.launches,
	       st.busy, (unsigned long long)st.deferred,
	       (unsigned long long)c->arms, (unsigned long long)c->disarms,
	       c->arms ? c->arm_ns_sum / 1e3 / c->arms : 0.0,
	       c->arm_ns_max / 1e3,
	       c->disarms ? c->disarm_ns_sum / 1e3 / c->disarms : 0.0,
	       c->disarm_ns_max / 1e3);
	fflush(stdout);
}

static int split(char *list, char *out[], int max)
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(list, ",", &save); t && n < max;
	     t = strtok_r(NULL, ",", &save))
		out[n++] = t;
	return n;
}

static void command(char *line)
{
	line[strcspn(line, "\n")] = 0;
	if (!strcmp(line, "counts"))
		counts();
	else if (!strcmp(line, "idle"))
		printf("{\"idle\":%d,\"err\":%d}\n", pid,
		       gp_da_set_idle(&da, pid));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char *lnames[GP_DA_MAX_EV], *snames[GP_DA_MAX_EV], line[256];
	char reason[512] = "", *ll = NULL, *sl = NULL;
	const char *lib = NULL, *tracefs = NULL, *ready = NULL;
	unsigned long loff[GP_DA_MAX_EV], soff[GP_DA_MAX_EV];
	unsigned long long l64[GP_DA_MAX_EV], s64[GP_DA_MAX_EV];
	__u32 sent[GP_DA_MAX_EV];
	long rearm_ms = 50, min_launches = 0;
	int opt, nl, ns, i, err;
	struct pollfd pf[2];
	FILE *f;

	while ((opt = getopt(argc, argv, "p:l:L:S:T:r:g:m:")) != -1) {
		switch (opt) {
		case 'p': pid = atoi(optarg); break;
		case 'l': lib = optarg; break;
		case 'L': ll = optarg; break;
		case 'S': sl = optarg; break;
		case 'T': tracefs = optarg; break;
		case 'r': ready = optarg; break;
		case 'g': rearm_ms = atol(optarg); break;
		case 'm': min_launches = atol(optarg); break;
		default: return 1;
		}
	}
	if (pid <= 0 || !lib || !ll || !sl || !tracefs || rearm_ms <= 0 ||
	    min_launches < 0) {
		fprintf(stderr, "usage: arm-run -p PID -l LIB -L SYMS -S SYMS -T TRACEFS [-r READY] [-g MS]\n");
		return 1;
	}
	nl = split(ll, lnames, GP_DA_MAX_EV);
	ns = split(sl, snames, GP_DA_MAX_EV);
	if (dynsym_resolve(lib, lnames, nl, loff) ||
	    dynsym_resolve(lib, snames, ns, soff)) {
		fprintf(stderr, "arm-run: %s: a symbol is missing\n", lib);
		return 1;
	}
	for (i = 0; i < nl; i++)
		l64[i] = loff[i];
	for (i = 0; i < ns; i++) {
		s64[i] = soff[i];
		sent[i] = GP_ENT_DEV_SYNC + i;
	}
	err = gp_da_open(&da, tracefs, rearm_ms * 1000000ULL, min_launches,
			 on_edge, NULL);
	if (err) {
		fprintf(stderr, "arm-run: load: %s\n", strerror(-err));
		return 1;
	}
	err = gp_da_attach(&da, pid, lib, l64, nl, s64, sent, ns, reason,
			   sizeof(reason));
	printf("{\"attach\":%d,\"err\":%d,\"reason\":\"%s\"}\n", pid, err,
	       reason);
	fflush(stdout);
	if (err) {
		gp_da_close(&da);
		return 1;
	}
	if (ready && (f = fopen(ready, "w")))
		fclose(f);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	pf[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = gp_da_fd(&da), .events = POLLIN };
	while (!stop) {
		if (poll(pf, 2, 10) < 0 && errno != EINTR)
			break;
		gp_da_drain(&da);
		gp_da_tick(&da);
		if (pf[0].revents & (POLLIN | POLLHUP)) {
			if (!fgets(line, sizeof(line), stdin))
				break;
			command(line);
		}
	}
	gp_da_drain(&da);
	counts();
	gp_da_close(&da);
	return 0;
}
