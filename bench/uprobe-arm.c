// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-arm: what a launch probe costs the probed process, on real
 * uprobes (bench/detect-cost.sh; the facts are in docs/arbiter.md,
 * "Launch detection: what a trap costs and the levers").
 *
 *   uprobe-arm -p PID -l LIB -s SYM[,SYM...] [-r RATE] [-d SECS]
 *              [-R READY] [-m | -t TRACEFS]
 *
 *   -s      the probed symbols of LIB (.dynsym names; a name ending in
 *           '*' is a prefix, for C++-mangled ones); the attach cookie of
 *           each is its index, and bench/trap_count.bpf.c counts the
 *           program's runs per cookie: one run, one trap
 *   -r 0    (default) arm once, scoped to PID, and hold: until SECS pass
 *           (-d) or stdin ends; then print the trap counts
 *   -r RATE toggle for SECS: RATE edges a second, each edge an arm (all
 *           symbols attached, scoped to PID) or a disarm (all detached),
 *           alternately; prints the arm and disarm syscall times
 *   -m      arm with one uprobe_multi link (kernel 6.6+) instead of one
 *           perf-event uprobe per symbol (what libbpf and the detector
 *           use today)
 *   -t DIR  arm through tracefs (mounted at DIR): one uprobe event per
 *           symbol, defined once and kept registered by an anchor perf
 *           event scoped to this process (which does not map LIB: no
 *           breakpoint) that carries the program; an arm opens one
 *           tracepoint perf event per symbol scoped to PID (the kernel
 *           adds PID's mm to the event's filter and installs the
 *           breakpoint there: uprobe_apply), a disarm closes them (the
 *           breakpoint is removed, the uprobe stays registered: no
 *           unregister and none of its grace periods)
 *   -R      file created once the probes are armed (-r 0) or the
 *           toggling starts
 * Toggling stops early, with no error, when PID exits. One JSON object
 * on stdout. Needs root. Exit 0, 1 on a setup failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "trap_count.skel.h"
#include "../tests/lib/dynsym.h"

#define MAX_SYMS 16

static char *syms[MAX_SYMS];
static unsigned long offs[MAX_SYMS];
static int nsyms;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct armed {
	struct bpf_link *l[MAX_SYMS];
	int fd[MAX_SYMS];	/* -t: the pid-scoped tracepoint events */
	int n;
};

/* -t: the tracefs events, their ids and the anchors */
static const char *tracefs;
static int tp_id[MAX_SYMS], anchor[MAX_SYMS];

static int tp_write(const char *line)
{
	char p[256];
	int fd, err = 0;

	snprintf(p, sizeof(p), "%s/uprobe_events", tracefs);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int tp_open(int id, pid_t pid)
{
	struct perf_event_attr at = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(at),
		.config = id, .sample_period = 1, .wakeup_events = 1,
	};
	int fd = syscall(__NR_perf_event_open, &at, pid, pid > 0 ? -1 : 0,
			 -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void tp_cleanup(void)
{
	char line[64];
	int i;

	for (i = 0; i < nsyms; i++) {
		if (anchor[i] > 0)
			close(anchor[i]);
		snprintf(line, sizeof(line), "-:gpreempt_bench/e%d_%d\n", i,
			 getpid());
		tp_write(line);
	}
}

/* Define the events and hold them registered with the program. */
static int tp_setup(struct trap_count_bpf *sk, const char *lib)
{
	char line[PATH_MAX + 128], p[256];
	int i, err;
	FILE *f;

	for (i = 0; i < nsyms; i++) {
		snprintf(line, sizeof(line), "p:gpreempt_bench/e%d_%d %s:0x%lx\n",
			 i, getpid(), lib, offs[i]);
		err = tp_write(line);
		if (err)
			return err;
		snprintf(p, sizeof(p), "%s/events/gpreempt_bench/e%d_%d/id",
			 tracefs, i, getpid());
		f = fopen(p, "re");
		if (!f || fscanf(f, "%d", &tp_id[i]) != 1) {
			if (f)
				fclose(f);
			return -ENOENT;
		}
		fclose(f);
		/* scoped to us: we do not map LIB, no breakpoint anywhere */
		anchor[i] = tp_open(tp_id[i], getpid());
		if (anchor[i] < 0)
			return anchor[i];
		if (ioctl(anchor[i], PERF_EVENT_IOC_SET_BPF,
			  bpf_program__fd(sk->progs.tc_hit)) ||
		    ioctl(anchor[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	}
	return 0;
}

static int arm(struct trap_count_bpf *sk, pid_t pid, const char *lib,
	       bool multi, struct armed *a)
{
	int i;

	a->n = 0;
	if (tracefs) {
		for (i = 0; i < nsyms; i++) {
			a->fd[i] = tp_open(tp_id[i], pid);
			if (a->fd[i] < 0)
				return a->fd[i];
			a->n = i + 1;
		}
		return 0;
	}
	if (multi) {
		__u64 cookies[MAX_SYMS];
		LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = offs,
			    .cookies = cookies, .cnt = nsyms);

		for (i = 0; i < nsyms; i++)
			cookies[i] = i;
		a->l[0] = bpf_program__attach_uprobe_multi(sk->progs.tc_hit_multi,
							    pid, lib, NULL, &o);
		if (!a->l[0])
			return -errno;
		a->n = 1;
		return 0;
	}
	for (i = 0; i < nsyms; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i);

		a->l[i] = bpf_program__attach_uprobe_opts(sk->progs.tc_hit, pid,
							  lib, offs[i], &o);
		if (!a->l[i])
			return -errno;
		a->n = i + 1;
	}
	return 0;
}

static void disarm(struct armed *a)
{
	while (a->n) {
		a->n--;
		if (tracefs)
			close(a->fd[a->n]);
		else
			bpf_link__destroy(a->l[a->n]);
	}
}

/* libbpf's warnings, less the one a toggle ending with its target gives */
static int print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	char buf[512];

	if (l == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, "No such process"))
		return 0;
	return fputs(buf, stderr);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(const char *name, uint64_t *v, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("\"%s\":{\"n\":%zu,\"mean\":%llu,\"p50\":%llu,\"p99\":%llu,"
	       "\"max\":%llu},", name, n,
	       (unsigned long long)(n ? sum / n : 0),
	       (unsigned long long)(n ? v[n / 2] : 0),
	       (unsigned long long)(n ? v[n * 99 / 100] : 0),
	       (unsigned long long)(n ? v[n - 1] : 0));
}

static void touch(const char *f)
{
	FILE *fp;

	if (f && (fp = fopen(f, "w")))
		fclose(fp);
}

static void hold(double secs)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char buf[256];

	if (secs > 0) {
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
		return;
	}
	while (poll(&p, 1, -1) > 0 && read(0, buf, sizeof(buf)) > 0)
		;
}

/* RATE edges a second for secs: arm, disarm, arm... on absolute ticks */
static int toggle(struct trap_count_bpf *sk, pid_t pid, const char *lib,
		  bool multi, double rate, double secs, const char *ready)
{
	size_t cap = (size_t)(rate * secs) + 2, na = 0, nd = 0;
	uint64_t *ta = calloc(cap, sizeof(*ta)), *td = calloc(cap, sizeof(*td));
	uint64_t period = 1e9 / rate, t0, next, t, end;
	struct armed a = { 0 };
	struct timespec ts;
	int err = 0;

	if (!ta || !td)
		return -ENOMEM;
	touch(ready);
	t0 = next = now_ns();
	end = t0 + secs * 1e9;
	while (next < end && na < cap && nd < cap) {
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now_ns();
		if (a.n) {
			disarm(&a);
			td[nd++] = now_ns() - t;
		} else {
			err = arm(sk, pid, lib, multi, &a);
			ta[na++] = now_ns() - t;
			if (err == -ESRCH) {	/* the target's run ended */
				na--;
				err = 0;
				break;
			}
			if (err)
				break;
		}
		next += period;
	}
	disarm(&a);
	t = now_ns() - t0;
	printf("{\"mode\":\"toggle\",\"link\":\"%s\",\"rate\":%.0f,"
	       "\"achieved\":%.1f,\"error\":%d,",
	       tracefs ? "tracefs" : multi ? "multi" : "perf", rate,
	       (na + nd) / (t / 1e9), err);
	stats("arm_ns", ta, na);
	stats("disarm_ns", td, nd);
	free(ta);
	free(td);
	return err;
}

int main(int argc, char **argv)
{
	const char *lib = NULL, *ready = NULL;
	double rate = 0, secs = 0;
	struct trap_count_bpf *sk;
	struct armed a = { 0 };
	bool multi = false;
	char *list = NULL, *tok, *save;
	pid_t pid = 0;
	uint64_t total = 0;
	int opt, i, err;

	while ((opt = getopt(argc, argv, "p:l:s:r:d:R:mt:")) != -1) {
		switch (opt) {
		case 'p': pid = atoi(optarg); break;
		case 'l': lib = optarg; break;
		case 's': list = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'R': ready = optarg; break;
		case 'm': multi = true; break;
		case 't': tracefs = optarg; break;
		default: return 1;
		}
	}
	for (tok = list ? strtok_r(list, ",", &save) : NULL;
	     tok && nsyms < MAX_SYMS; tok = strtok_r(NULL, ",", &save))
		syms[nsyms++] = tok;
	if (pid <= 0 || !lib || !nsyms || rate < 0 || secs < 0 ||
	    (rate > 0 && secs <= 0)) {
		fprintf(stderr, "usage: uprobe-arm -p PID -l LIB -s SYM[,SYM] "
				"[-r RATE -d SECS] [-R READY] [-m]\n");
		return 1;
	}
	libbpf_set_print(print);
	err = dynsym_resolve(lib, syms, nsyms, offs);
	if (err) {
		fprintf(stderr, "uprobe-arm: %s: a symbol is missing (%s)\n",
			lib, strerror(-err));
		return 1;
	}
	sk = trap_count_bpf__open_and_load();
	if (!sk) {
		fprintf(stderr, "uprobe-arm: BPF load: %s\n", strerror(errno));
		return 1;
	}
	if (tracefs) {
		err = tp_setup(sk, lib);
		if (err) {
			fprintf(stderr, "uprobe-arm: tracefs %s: %s\n", tracefs,
				strerror(-err));
			tp_cleanup();
			trap_count_bpf__destroy(sk);
			return 1;
		}
	}
	if (rate > 0) {
		err = toggle(sk, pid, lib, multi, rate, secs, ready);
	} else {
		err = arm(sk, pid, lib, multi, &a);
		if (!err) {
			touch(ready);
			hold(secs);
		}
		disarm(&a);
		printf("{\"mode\":\"hold\",\"link\":\"%s\",\"error\":%d,",
		       tracefs ? "tracefs" : multi ? "multi" : "perf", err);
	}
	printf("\"hits\":[");
	for (i = 0; i < nsyms; i++) {
		printf("%s%llu", i ? "," : "",
		       (unsigned long long)sk->bss->tc_hits[i]);
		total += sk->bss->tc_hits[i];
	}
	printf("],\"traps\":%llu}\n", (unsigned long long)total);
	if (tracefs)
		tp_cleanup();
	trap_count_bpf__destroy(sk);
	if (err)
		fprintf(stderr, "uprobe-arm: attach: %s\n", strerror(-err));
	return err ? 1 : 0;
}
