/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the L1 logic tests share: the stand-in programs of
 * logic_test.bpf.c loaded with a chosen configuration, calls that feed
 * them raw values, and readers of the maps and the ring buffer.
 */
#ifndef GP_LOGIC_HARNESS_H
#define GP_LOGIC_HARNESS_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tap.h"
#include "gpreempt.h"
#include "queues.h"
#include "hist.h"
#include "logic_test.skel.h"

#define MAX_EV 64
#define RB_SIZE (16 * 1024)

static struct logic_test_bpf *skel;
static struct gp_event evs[MAX_EV];
static int nev, nseen;

static inline struct logic_test_bpf *open_cfg(bool filter, __u64 unit_ns,
					      __u32 emit_ops)
{
	struct logic_test_bpf *s = logic_test_bpf__open();

	if (!s)
		return NULL;
	s->rodata->gp_filter_pids = filter;
	s->rodata->gp_hist_unit_ns = unit_ns;
	s->rodata->gp_emit_ops = emit_ops;
	bpf_map__set_max_entries(s->maps.gp_events, RB_SIZE);
	if (logic_test_bpf__load(s)) {
		logic_test_bpf__destroy(s);
		return NULL;
	}
	return s;
}

static inline struct logic_test_bpf *open_unit(bool filter, __u64 unit_ns)
{
	return open_cfg(filter, unit_ns, GP_ALL_OPS);
}

static inline struct logic_test_bpf *open_skel(bool filter)
{
	return open_unit(filter, 1);
}

/* A new object for the next test; emit_ops 0 is summary mode (GP_LEAN). */
static inline void fresh_cfg(__u32 emit_ops)
{
	if (skel)
		logic_test_bpf__destroy(skel);
	skel = open_cfg(false, 1, emit_ops);
	nev = nseen = 0;
	if (!skel) {
		printf("Bail out! cannot load logic_test.bpf.o (root? BPF?)\n");
		exit(1);
	}
}

static inline void fresh(void)
{
	fresh_cfg(GP_ALL_OPS);
}

static inline int run(struct bpf_program *prog, __u64 *args, size_t n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args,
		    .ctx_size_in = n * sizeof(__u64));
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);

	if (err) {
		printf("# test_run %s: %d\n", bpf_program__name(prog), err);
		return -1;
	}
	return o.retval;
}

static inline int begin(__u32 op, __u32 tid, __u32 pid, __u32 gpu,
			__u32 qid, __u64 a, __u64 b, __u64 c, __u64 d,
			__u32 target, __u64 now)
{
	__u64 args[] = { op, tid, pid, gpu, qid, a, b, c, d, target, now };

	return run(skel->progs.test_logic_begin, args, 11);
}

static inline int finish(__u32 op, __u32 tid, int ret, __u64 now,
			 __u64 a, __u64 b, __u64 c, __u64 d)
{
	__u64 args[] = { op, tid, (__u64)(__s64)ret, now, a, b, c, d };

	return run(skel->progs.test_logic_finish, args, 8);
}

static inline int on_event(void *ctx, void *data, size_t len)
{
	nseen++;
	if (len == sizeof(struct gp_event) && nev < MAX_EV)
		memcpy(&evs[nev++], data, len);
	return 0;
}

static inline int drain(struct logic_test_bpf *s)
{
	struct ring_buffer *rb;

	rb = ring_buffer__new(bpf_map__fd(s->maps.gp_events), on_event, NULL,
			      NULL);
	if (!rb)
		return -1;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return nev;
}

static inline bool row(__u32 pid, __u32 gpu, __u32 qid,
		       struct gp_queue_val *v)
{
	struct gp_queue_key k = { .pid = pid, .gpu_id = gpu, .queue_id = qid };

	return !bpf_map_lookup_elem(bpf_map__fd(skel->maps.gp_queues), &k, v);
}

static inline void seed(__u32 pid, __u32 gpu, __u32 qid)
{
	struct gp_queue_key k = { .pid = pid, .gpu_id = gpu, .queue_id = qid };
	struct gp_queue_val v = { .type = 0, .origin = GP_ORIGIN_SYSFS };

	bpf_map_update_elem(bpf_map__fd(skel->maps.gp_queues), &k, &v, 0);
	/* as the loader does after seeding from sysfs */
	gp_queues_index(bpf_map__fd(skel->maps.gp_queues),
			bpf_map__fd(skel->maps.gp_owners),
			bpf_map__fd(skel->maps.gp_qidx));
}

/* The histogram of (op, sub) as the loader reads it (summed over CPUs). */
static inline bool hist(struct logic_test_bpf *s, __u32 op, __u32 sub,
			struct gp_hist *h)
{
	struct gp_hist_key *keys;
	struct gp_hist *vals;
	int n = gp_hists_read(bpf_map__fd(s->maps.gp_hists), &keys, &vals);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		if (keys[i].op == op && keys[i].sub == sub) {
			*h = vals[i];
			found = true;
		}
	if (n >= 0) {
		free(keys);
		free(vals);
	}
	return found;
}

static inline int count_keys(struct bpf_map *m, size_t ksz)
{
	char key[64], next[64];
	void *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(bpf_map__fd(m), prev, next)) {
		memcpy(key, next, ksz);
		prev = key;
		n++;
	}
	return n;
}

/* Pairs pending: hash entries plus the rows' pending bits (rows.bpf.h). */
static inline int pending_n(struct logic_test_bpf *s)
{
	struct bpf_map *m = s->maps.gp_pend_rows;
	__u64 *v = calloc(1, bpf_map__value_size(m));
	int n = count_keys(s->maps.gp_pending, 8);

	for (__u32 k = 0; v && k < bpf_map__max_entries(m); k++)
		if (!bpf_map__lookup_elem(m, &k, sizeof(k), v,
					  bpf_map__value_size(m), 0))
			n += __builtin_popcountll(v[1]);
	free(v);
	return v ? n : -1;
}

/* One event of op through begin/finish (or instant for q_add). */
static inline void one_event(__u32 op, __u32 tid)
{
	begin(op, tid, 42, 7, 9, 0, 0, 0, 4096, 0, 0);
	if (op != GP_OP_QUEUE_ADD)
		finish(op, tid, 0, 10, 9, 0, 0, 0);
}

/* Summed per-CPU op counters of gp_counts. */
static inline struct gp_count count_of(struct logic_test_bpf *s, __u32 op)
{
	int ncpu = libbpf_num_possible_cpus();
	struct gp_count *v = calloc(ncpu, sizeof(*v)), sum = {};

	if (v && !bpf_map_lookup_elem(bpf_map__fd(s->maps.gp_counts), &op, v))
		for (int i = 0; i < ncpu; i++) {
			sum.count += v[i].count;
			sum.failed += v[i].failed;
		}
	free(v);
	return sum;
}

static inline __u64 stat_sum(__u32 idx)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = calloc(ncpu, sizeof(*v)), sum = 0;

	if (v && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.gp_lost), &idx,
				      v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

#endif
