// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the launch detector's edge logic (bpf/detect_edge.bpf.h) under
 * BPF_PROG_TEST_RUN, with a caller-chosen clock: N launches make one
 * busy edge; a sync return makes one idle edge; a launch after the grace
 * is a new edge; a pid the loader did not add makes none (stray); a
 * WAIT_EVENTS return (detect_wait.bpf.h) ends a busy period only when it
 * returned 0 with wait_result COMPLETE, and only for an online pid.
 * Needs root; prints TAP.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"
#include "detect.h"
#include "detect_test.skel.h"

static struct detect_test_bpf *skel;
static struct gp_edge edges[64];
static int nedges;

static int on_edge(void *ctx, void *data, size_t len)
{
	if (nedges < 64 && len >= sizeof(struct gp_edge))
		edges[nedges++] = *(struct gp_edge *)data;
	return 0;
}

static int run_args(struct bpf_program *prog, __u64 *args, size_t n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args,
		    .ctx_size_in = n * sizeof(*args));

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o))
		return -2;
	return (int)o.retval;
}

static int run(struct bpf_program *prog, __u64 pid, __u64 entry, __u64 now)
{
	__u64 args[3] = { pid, entry, now };

	return run_args(prog, args, 3);
}

static int wait_enter(__u32 pid, __u32 tid)
{
	__u64 args[3] = { pid, tid, 0xffff888000001000ULL };

	return run_args(skel->progs.test_wait_enter, args, 3);
}

/* -1: no entry was stashed for tid */
static int wait_exit(__u32 pid, __u32 tid, int ret, __u32 result, __u64 now)
{
	__u64 args[5] = { pid, tid, (__u64)(long)ret, result, now };

	return run_args(skel->progs.test_wait_exit, args, 5);
}

static int launch(__u32 pid, __u32 entry, __u64 now)
{
	return run(skel->progs.test_launch, pid, entry, now);
}

static int sync_ret(__u32 pid, __u64 now)
{
	return run(skel->progs.test_sync_ret, pid, GP_ENT_DEV_SYNC, now);
}

static int drain(void)
{
	struct ring_buffer *rb;

	nedges = 0;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.gp_edges), on_edge,
			      NULL, NULL);
	if (!rb)
		return -1;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return nedges;
}

static void add_pid(__u32 pid)
{
	struct gp_launch_state st = {};

	bpf_map_update_elem(bpf_map__fd(skel->maps.gp_launch_pids), &pid,
			    &st, BPF_ANY);
}

TEST(n_launches_make_one_edge)
{
	int i, made = 0;

	add_pid(42);
	for (i = 0; i < 1000; i++)
		made += launch(42, GP_ENT_MODULE, 1000000 + i * 1000);
	CHECK(made == 1);
	CHECK(drain() == 1);
	CHECK(edges[0].pid == 42 && edges[0].kind == GP_EDGE_BUSY &&
	      edges[0].entry == GP_ENT_MODULE && edges[0].ns == 1000000 &&
	      edges[0].gpu_id == 0);
	/* sync return: one idle edge that counts the busy period's launches */
	CHECK(sync_ret(42, 2000000) == 1);
	CHECK(sync_ret(42, 2000100) == 0);
	CHECK(drain() == 1);
	CHECK(edges[0].kind == GP_EDGE_IDLE && edges[0].launches == 1000 &&
	      edges[0].entry == GP_ENT_DEV_SYNC);
	/* after the sync, the next launch is a new busy edge */
	CHECK(launch(42, GP_ENT_EXT_MODULE, 2000200) == 1);
	CHECK(drain() == 1 && edges[0].entry == GP_ENT_EXT_MODULE);
}

TEST(a_launch_after_the_grace_is_a_new_edge)
{
	__u64 grace = skel->rodata->gp_launch_grace_ns, t = 100000000;

	add_pid(43);
	CHECK(launch(43, GP_ENT_LAUNCH, t) == 1);
	CHECK(launch(43, GP_ENT_LAUNCH, t + grace - 1) == 0);
	/* grace counts from the last launch, not the edge */
	CHECK(launch(43, GP_ENT_LAUNCH, t + 2 * grace - 2) == 0);
	CHECK(launch(43, GP_ENT_GRAPH, t + 3 * grace - 2) == 1);
	CHECK(drain() == 2);
	CHECK(edges[1].entry == GP_ENT_GRAPH && edges[1].launches == 3);
}

TEST(a_pid_not_added_makes_no_edge_and_counts_stray)
{
	__u64 stray = skel->bss->gp_launch_stray;
	__u64 hits = skel->bss->gp_launch_hits;

	CHECK(launch(77, GP_ENT_LAUNCH, 5000) == 0);
	CHECK(sync_ret(77, 6000) == 0);
	CHECK(drain() == 0);
	CHECK(skel->bss->gp_launch_stray == stray + 2);
	CHECK(skel->bss->gp_launch_hits == hits + 2);
}

TEST(wait_events_complete_ends_a_busy_period)
{
	__u64 t = 900000000;

	add_pid(44);
	CHECK(launch(44, GP_ENT_LAUNCH, t) == 1);
	CHECK(drain() == 1);
	/* timed out (wait_result 1) or failed (-EINTR): still busy */
	CHECK(wait_enter(44, 4401) == 1);
	CHECK(wait_exit(44, 4401, 0, 1, t + 10) == 0);
	CHECK(wait_enter(44, 4401) == 1);
	CHECK(wait_exit(44, 4401, -4, 0, t + 20) == 0);
	CHECK(drain() == 0);
	/* COMPLETE: one idle edge, entry WAIT_EVENTS; a second makes none */
	CHECK(wait_enter(44, 4402) == 1);
	CHECK(wait_exit(44, 4402, 0, 0, t + 30) == 1);
	CHECK(wait_enter(44, 4402) == 1);
	CHECK(wait_exit(44, 4402, 0, 0, t + 40) == 0);
	CHECK(drain() == 1);
	CHECK(edges[0].kind == GP_EDGE_IDLE && edges[0].pid == 44 &&
	      edges[0].entry == GP_ENT_WAIT_EVENTS && edges[0].ns == t + 30);
	/* the stash is per call: a return with no entry is not an edge */
	CHECK(wait_exit(44, 4402, 0, 0, t + 50) == -1);
}

TEST(wait_events_of_a_non_online_pid_is_not_stashed)
{
	__u64 returns = skel->bss->gp_wait_returns;

	CHECK(wait_enter(78, 7801) == 0);
	CHECK(wait_exit(78, 7801, 0, 0, 1000) == -1);
	CHECK(drain() == 0);
	CHECK(skel->bss->gp_wait_returns == returns);
}

int main(void)
{
	skel = detect_test_bpf__open_and_load();
	if (!skel) {
		printf("Bail out! cannot load detect_test.bpf.o (root? BPF?)\n");
		return 1;
	}
	RUN(n_launches_make_one_edge);
	RUN(a_launch_after_the_grace_is_a_new_edge);
	RUN(a_pid_not_added_makes_no_edge_and_counts_stray);
	RUN(wait_events_complete_ends_a_busy_period);
	RUN(wait_events_of_a_non_online_pid_is_not_stashed);
	detect_test_bpf__destroy(skel);
	return tap_done();
}
