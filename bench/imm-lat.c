// SPDX-License-Identifier: GPL-2.0
/*
 * Immediate-path latency: from the BPF program's
 * timestamp of an event to the moment the embedding consumer's callback
 * runs (user/trace/probe.h, GP_EMIT_IMMEDIATE, waiting in epoll). The
 * events are real: process exits (raw_tp/sched_process_exit) of children
 * given a queue row first, as the loader's sysfs seeding would, at RATE
 * per second (0: back to back). On the host (part bpf: no KFD, only
 * the exit program attaches) and in the VM (part imm, built static:
 * every KFD hook of the guest's kernel attached too, as in the daemon).
 *
 *   imm-lat [-n EVENTS] [-r RATE] [-f PRIO] [-B]
 * -f: run as SCHED_FIFO PRIO (what a daemon that must act within 1 ms
 * would do; the VM's busybox has no chrt). -B: the baseline, no BPF: the
 * child writes its timestamp to a pipe the consumer polls, just before
 * it exits.
 * prints "imm RATE N P50_NS P99_NS MAX_NS MISSED" (MISSED: no event
 * within 1 s). Needs root.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probe.h"
#include "queues.h"

static __u32 want_pid;
static __u64 lat_ns;
static int got;

static __u64 boot_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (__u64)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int on_event(void *ctx, const struct gp_event *e)
{
	if (e->op == GP_OP_EXIT && e->pid == want_pid) {
		lat_ns = boot_ns() - e->ts_ns;
		got = 1;
	}
	return 0;
}

static int quiet(enum libbpf_print_level l, const char *f, va_list a)
{
	return 0;
}

static int cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/*
 * One child exit: the latency of its exit event (probe), or with no
 * probe of a pipe write the child makes just before it exits (-B: the
 * same wakeup of a consumer asleep in poll, without BPF or the ring
 * buffer). 0: nothing within 1 s.
 */
static __u64 one(struct gp_probe *p)
{
	struct gp_queue_key key = { .gpu_id = 1 };
	struct gp_queue_val val = { .origin = GP_ORIGIN_SYSFS };
	int go[2], res[2] = { -1, -1 };
	__u64 until, t;
	pid_t pid;
	char c;

	if (pipe(go) || (!p && pipe(res)))
		return 0;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		t = boot_ns();
		_exit(!p && write(res[1], &t, sizeof(t)) != sizeof(t));
	}
	close(go[0]);
	got = 0;
	if (p) {
		key.pid = want_pid = pid;
		bpf_map_update_elem(gp_probe_queues_fd(p), &key, &val, BPF_ANY);
		gp_queues_index(gp_probe_queues_fd(p),
				bpf_object__find_map_fd_by_name(
					gp_probe_object(p), "gp_owners"),
				bpf_object__find_map_fd_by_name(
					gp_probe_object(p), "gp_qidx"));
	} else {
		close(res[1]);
	}
	if (write(go[1], "x", 1) != 1)
		got = -1;
	close(go[1]);
	until = boot_ns() + 1000000000ULL;
	if (p) {
		while (!got && boot_ns() < until)
			gp_probe_poll(p, 1000);	/* woken by the event */
	} else {
		struct pollfd pf = { .fd = res[0], .events = POLLIN };

		if (!got && poll(&pf, 1, 1000) == 1 &&
		    read(res[0], &t, sizeof(t)) == sizeof(t)) {
			lat_ns = boot_ns() - t;
			got = 1;
		}
		close(res[0]);
	}
	waitpid(pid, NULL, 0);
	return got == 1 ? (lat_ns ? lat_ns : 1) : 0;
}

int main(int argc, char **argv)
{
	struct gp_probe_opts o = { .emit = GP_EMIT_IMMEDIATE, .no_seed = true,
				   .on_event = on_event };
	int n = 200, rate = 100, opt, missed = 0, k = 0;
	struct gp_probe_err err;
	struct gp_probe *p = NULL;
	bool baseline = false;
	__u64 *v;

	while ((opt = getopt(argc, argv, "n:r:f:B")) != -1) {
		if (opt == 'n') {
			n = atoi(optarg);
		} else if (opt == 'r') {
			rate = atoi(optarg);
		} else if (opt == 'B') {
			baseline = true;
		} else if (opt == 'f') {
			struct sched_param sp = { .sched_priority = atoi(optarg) };

			if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
				fprintf(stderr, "imm-lat: SCHED_FIFO %s: %s\n",
					optarg, strerror(errno));
				return 1;
			}
		} else {
			return 2;
		}
	}
	if (n < 1 || rate < 0)
		return 2;
	libbpf_set_print(quiet);
	if (!baseline && gp_probe_open(&o, &p, &err)) {
		fprintf(stderr, "imm-lat: %s\n", err.msg);
		return 1;
	}
	v = calloc(n, sizeof(*v));
	for (int i = 0; i < n && v; i++) {
		__u64 t0 = boot_ns(), lat = one(p);

		if (lat)
			v[k++] = lat;
		else
			missed++;
		if (rate) {
			__u64 next = t0 + 1000000000ULL / rate, now = boot_ns();

			if (next > now)
				usleep((next - now) / 1000);
		}
	}
	if (k) {
		qsort(v, k, sizeof(*v), cmp);
		printf("imm %d %d %llu %llu %llu %d\n", rate, k,
		       (unsigned long long)v[k / 2],
		       (unsigned long long)v[(k * 99) / 100],
		       (unsigned long long)v[k - 1], missed);
	}
	free(v);
	if (p)
		gp_probe_close(p);
	return k ? 0 : 1;
}
