// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-cost: host-side cost of gpreempt's shared BPF logic, and how fast a
 * loader drains its ring buffer.
 *
 *   bpf-cost cost [-c CHUNKS] [-r REPEAT] [-q QMAP_ENTRIES]
 *	Runs each program of bench/bpf_cost.bpf.c with BPF_PROG_TEST_RUN,
 *	REPEAT times per call (the kernel reports the mean ns per run), the
 *	ring buffer drained between calls so every event takes the emit path,
 *	not the lost path. One line per program:
 *	  cost PROG CHUNKS MEDIAN P25 P75 NET_MEDIAN EVENTS_PER_RUN LOST
 *	NET is MEDIAN minus bench_empty's median (the test-run loop itself).
 *	-q resizes the queue map (default: the tracer's GP_MAX_QUEUES): a
 *	walk of it visits every bucket, used or not.
 *
 *   bpf-cost rb [-d SECS] [-n TRIALS] [-R RATE,RATE,...] [-s RING_KB] [-f]
 *	A producer on CPU 0 offers events at each rate (1 ms ticks of
 *	test runs of bench_create_fail); a consumer thread on CPU 1 polls the
 *	ring buffer as gpreempt-trace's loader does (100 ms poll timeout,
 *	then a consume).
 *	With -f the consumer formats every event as gpreempt-trace -j would,
 *	into /dev/null. -s sets the ring size (default: the tracer's). One
 *	line per trial:
 *	  rb TARGET OFFERED CONSUMED LOST SECS
 *	OFFERED is what the producer achieved (events/s). The rate stops
 *	rising once every trial at a rate lost events or the producer cannot
 *	keep up.
 *
 *   bpf-cost fmt [-c CHUNKS]
 *	User-space side of one event: gpreempt-trace -j's formatter writing
 *	to /dev/null, 10,000 events per chunk. One line:
 *	  fmt CHUNKS MEDIAN_NS P25 P75
 *
 * Needs root (BPF), except fmt. Exit 0, 1 on a setup failure (message on
 * stderr).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gpreempt.h"
#include "bpf_cost.skel.h"
#ifdef BENCH_FORMAT
#include "output.h"
#endif

static struct bpf_cost_bpf *skel;
static __u32 bench_qids[1] = { 1 };	/* the suspend names queue 1 */
static struct ring_buffer *rb;
static volatile uint64_t consumed;
static volatile int stop;
static FILE *devnull;
static char pkt[64];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct gp_event e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
#ifdef BENCH_FORMAT
	if (devnull) {
		struct gp_out_opts o = { .json = true };

		gp_out_event(devnull, &e, &o);
	}
#endif
	consumed++;
	return 0;
}

static uint64_t lost(void)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0, *v;
	__u32 zero = 0;

	v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	if (v && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.gp_lost), &zero,
				      v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* One test-run call of prog, repeat times; mean ns per run, or -1. */
static double test_run(struct bpf_program *prog, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = repeat);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o)) {
		fprintf(stderr, "bpf-cost: test run of %s: %s\n",
			bpf_program__name(prog), strerror(errno));
		return -1;
	}
	if (o.retval) {
		fprintf(stderr, "bpf-cost: %s returned %u (logic refused)\n",
			bpf_program__name(prog), o.retval);
		return -1;
	}
	return o.duration;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cost(int chunks, int repeat)
{
	static const struct {
		const char *name;
		int events;
	} progs[] = {
		{ "bench_empty", 0 },
		{ "bench_create_fail", 1 },
		{ "bench_create_ok", 1 },
		{ "bench_dbg_suspend", 2 },
		{ "bench_exit_other", 0 },
	};
	double *v, empty = 0, med;
	uint64_t l0;

	v = calloc(chunks, sizeof(*v));
	if (!v)
		return 1;
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p;

		p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
		if (!p) {
			fprintf(stderr, "bpf-cost: no program %s\n",
				progs[i].name);
			goto fail;
		}
		l0 = lost();
		for (int c = 0; c < chunks; c++) {
			v[c] = test_run(p, repeat);
			if (v[c] < 0)
				goto fail;
			ring_buffer__consume(rb);
		}
		qsort(v, chunks, sizeof(*v), cmp_dbl);
		med = chunks % 2 ? v[chunks / 2] :
				   (v[chunks / 2 - 1] + v[chunks / 2]) / 2;
		if (i == 0)
			empty = med;
		printf("cost %s %d %.0f %.0f %.0f %.0f %d %llu\n",
		       progs[i].name, chunks, med, v[chunks / 4],
		       v[(chunks * 3) / 4], med - empty, progs[i].events,
		       (unsigned long long)(lost() - l0));
		fflush(stdout);
	}
	free(v);
	return 0;
fail:
	free(v);
	return 1;
}

static void *consumer(void *arg)
{
	if (pin(1))
		fprintf(stderr, "bpf-cost: could not pin the consumer to CPU 1\n");
	/* As gpreempt-trace's loop: BPF may skip the wakeup (gp_emit), so
	 * drain on every timeout too. */
	while (!stop) {
		ring_buffer__poll(rb, 100);
		ring_buffer__consume(rb);
	}
	return NULL;
}

static int one_rate(struct bpf_program *p, double rate, double secs)
{
	const uint64_t tick = 1000000;	/* 1 ms */
	uint64_t t0, t, next, produced = 0, want, c0, l0, dl, dc, end;
	struct timespec ts;
	int k;

	c0 = consumed;
	l0 = lost();
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	next = t0;
	while ((t = now_ns()) < end) {
		/* Catch up on what the schedule owes, at most 10 ticks. */
		want = (uint64_t)((t - t0 + tick) * rate / 1e9);
		k = want > produced ? want - produced : 0;
		if (k > rate / 100)
			k = rate / 100;
		if (k > 0) {
			if (test_run(p, k) < 0)
				return -1;
			produced += k;
		}
		next += tick;
		if (next > now_ns()) {
			ts.tv_sec = next / 1000000000ULL;
			ts.tv_nsec = next % 1000000000ULL;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
		} else {
			next = now_ns();
		}
	}
	t = now_ns() - t0;
	/*
	 * Let the consumer finish what was accepted (at most 10 s), so the
	 * next trial starts with an empty ring and counts only its own.
	 */
	for (int i = 0; i < 10000; i++) {
		dl = lost() - l0;
		if (consumed - c0 + dl >= produced)
			break;
		usleep(1000);
	}
	dl = lost() - l0;
	dc = consumed - c0;
	if (dc + dl < produced)
		fprintf(stderr, "bpf-cost: %llu events still in the ring after "
			"10 s\n", (unsigned long long)(produced - dc - dl));
	printf("rb %.0f %.0f %llu %llu %.3f\n", rate, produced / (t / 1e9),
	       (unsigned long long)dc, (unsigned long long)dl, t / 1e9);
	fflush(stdout);
	if (produced / (t / 1e9) < rate * 0.9)
		return 2;	/* the producer is the limit now */
	return dl ? 1 : 0;
}

static int ringbuf(const char *rates, double secs, int trials)
{
	struct bpf_program *p = skel->progs.bench_create_fail;
	char *list = strdup(rates), *tok, *save = NULL;
	pthread_t th;
	int losses, slow, r = 0;

	if (!list)
		return 1;
	if (pin(0))
		fprintf(stderr, "bpf-cost: could not pin the producer to CPU 0\n");
	if (pthread_create(&th, NULL, consumer, NULL)) {
		fprintf(stderr, "bpf-cost: pthread_create failed\n");
		free(list);
		return 1;
	}
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		losses = slow = 0;
		for (int i = 0; i < trials && r >= 0; i++) {
			r = one_rate(p, atof(tok), secs);
			losses += r == 1;
			slow += r == 2;
		}
		if (r < 0 || losses == trials || slow == trials)
			break;
	}
	stop = 1;
	pthread_join(th, NULL);
	free(list);
	return r < 0 ? 1 : 0;
}

static int fmt_cost(int chunks)
{
#ifdef BENCH_FORMAT
	struct gp_out_opts o = { .json = true };
	struct gp_event e = { .op = GP_OP_CREATE, .pid = 4242, .tid = 4242,
			      .gpu_id = 0x1002, .ret = -22, .comm = "bench" };
	FILE *f = fopen("/dev/null", "w");
	double *v = calloc(chunks, sizeof(*v));
	uint64_t t0;

	if (!f || !v)
		return 1;
	for (int c = 0; c < chunks; c++) {
		t0 = now_ns();
		for (int i = 0; i < 10000; i++) {
			e.ts_ns = t0 + i;
			gp_out_event(f, &e, &o);
		}
		v[c] = (now_ns() - t0) / 10000.0;
	}
	qsort(v, chunks, sizeof(*v), cmp_dbl);
	printf("fmt %d %.0f %.0f %.0f\n", chunks, v[chunks / 2], v[chunks / 4],
	       v[(chunks * 3) / 4]);
	free(v);
	fclose(f);
	return 0;
#else
	fprintf(stderr, "bpf-cost: built without user/trace/output.c\n");
	return 1;
#endif
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bpf-cost cost [-c CHUNKS] [-r REPEAT] [-q ENTRIES] [-W]\n"
		"       bpf-cost rb [-d SECS] [-n TRIALS] [-R RATE,...] "
		"[-s RING_KB] [-f]\n"
		"       bpf-cost fmt [-c CHUNKS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *rates = "10000,25000,50000,100000,250000,500000,1000000,"
			    "2000000,4000000,8000000";
	int chunks = 200, repeat = 1000, trials = 3, qmap = 0, ring_kb = 0;
	int o, err = 1;
	double secs = 1;
	bool fmt = false, nowake = false;

	if (argc < 2)
		usage();
	optind = 2;
	while ((o = getopt(argc, argv, "c:r:q:d:n:R:s:fW")) != -1) {
		switch (o) {
		case 'c':
			chunks = atoi(optarg);
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 'q':
			qmap = atoi(optarg);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'n':
			trials = atoi(optarg);
			break;
		case 's':
			ring_kb = atoi(optarg);
			break;
		case 'R':
			rates = optarg;
			break;
		case 'f':
			fmt = true;
			break;
		case 'W':	/* no forced wakeups: the immediate path's cost */
			nowake = true;
			break;
		default:
			usage();
		}
	}
	/* 256 KiB of ~130-byte records: 1,000 runs fit between drains. */
	if (chunks < 1 || repeat < 1 || repeat > 1000 || secs <= 0 ||
	    trials < 1 || qmap < 0 || ring_kb < 0 ||
	    (ring_kb & (ring_kb - 1)) || (ring_kb && ring_kb < 4))
		usage();
#ifndef BENCH_FORMAT
	if (fmt) {
		fprintf(stderr, "bpf-cost: built without user/trace/output.c; "
			"-f is not available\n");
		return 2;
	}
#endif
	if (!strcmp(argv[1], "fmt"))
		return fmt_cost(chunks);
	if (fmt) {
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			return 1;
	}
	skel = bpf_cost_bpf__open();
	if (skel && qmap)
		bpf_map__set_max_entries(skel->maps.gp_queues, qmap);
	if (skel && nowake)
		skel->rodata->gp_wake_ops = 0;
	if (skel && ring_kb)
		bpf_map__set_max_entries(skel->maps.gp_events, ring_kb * 1024);
	if (skel && bpf_cost_bpf__load(skel)) {
		bpf_cost_bpf__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		fprintf(stderr, "bpf-cost: cannot load bpf_cost.bpf.o: %s "
			"(root? BPF?)\n", strerror(errno));
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.gp_events), on_event,
			      NULL, NULL);
	if (!rb) {
		fprintf(stderr, "bpf-cost: ring_buffer__new: %s\n",
			strerror(errno));
		goto cleanup;
	}
	/* The dbg case suspends queue 1 of the target: give it one. */
	skel->bss->bench_qids_ptr = (uintptr_t)bench_qids;
	if (test_run(skel->progs.bench_create_ok, 1) < 0)
		goto cleanup;
	ring_buffer__consume(rb);
	if (!strcmp(argv[1], "cost"))
		err = cost(chunks, repeat);
	else if (!strcmp(argv[1], "rb"))
		err = ringbuf(rates, secs, trials);
	else
		usage();
cleanup:
	ring_buffer__free(rb);
	bpf_cost_bpf__destroy(skel);
	if (devnull)
		fclose(devnull);
	return err;
}
