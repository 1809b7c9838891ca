/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The launch detector's edge logic: one record per idle -> busy and per
 * busy -> idle change of a process, never one per launch. The uprobe
 * programs (detect.bpf.c) and the L1 stand-ins (tests/bpf/
 * detect_test.bpf.c, under BPF_PROG_TEST_RUN) call the same functions
 * with their own clock.
 *
 * A process is busy from a launch until a synchronisation returns, user
 * space marks it idle (WAIT_EVENTS returned, its queues proved idle), or
 * gp_launch_grace_ns pass with no launch: the next launch after that is
 * a new edge. Two threads launching at once may both see "idle" and emit
 * two busy edges; the reader treats a busy edge for a busy process as a
 * no-op, so the race costs a record, never a wrong state.
 */
#ifndef GP_DETECT_EDGE_BPF_H
#define GP_DETECT_EDGE_BPF_H

#include "detect.h"
#include "detect_ring.bpf.h"

#define GP_LAUNCH_MAX_PIDS 4096

const volatile __u64 gp_launch_grace_ns = 50000000;	/* 50 ms */

/* Online processes only: the loader adds a pid before it attaches. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_LAUNCH_MAX_PIDS);
	__type(key, __u32);
	__type(value, struct gp_launch_state);
} gp_launch_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} gp_edges SEC(".maps");

/*
 * Counters the tests and the benchmark read: every program run (hits),
 * runs for a pid with no state (stray: a probe that fires in a process
 * that is not online), edges emitted, edges lost to a full ring.
 */
__u64 gp_launch_hits;
__u64 gp_launch_stray;
__u64 gp_launch_edges_out;
__u64 gp_launch_edges_lost;

static __always_inline void gp_edge_emit(__u32 pid, __u32 kind, __u32 entry,
					 __u64 now, __u64 launches)
{
	if (gp_edge_put(&gp_edges, pid, kind, entry, now, launches))
		__sync_fetch_and_add(&gp_launch_edges_lost, 1);
	else
		__sync_fetch_and_add(&gp_launch_edges_out, 1);
}

/* A launch entry point was called by pid at now. */
static __always_inline int gp_launch_hit(__u32 pid, __u32 entry, __u64 now)
{
	struct gp_launch_state *st;
	__u64 before;

	__sync_fetch_and_add(&gp_launch_hits, 1);
	st = bpf_map_lookup_elem(&gp_launch_pids, &pid);
	if (!st) {
		__sync_fetch_and_add(&gp_launch_stray, 1);
		return 0;
	}
	if (st->busy && now - st->last_ns < gp_launch_grace_ns) {
		st->last_ns = now;
		st->launches++;
		return 0;
	}
	before = st->launches;
	st->busy = 1;
	st->last_ns = now;
	st->launches = 1;
	gp_edge_emit(pid, GP_EDGE_BUSY, entry, now, before);
	return 1;
}

/* A synchronisation call of pid returned at now: its work is done. */
static __always_inline int gp_launch_done(__u32 pid, __u32 entry, __u64 now)
{
	struct gp_launch_state *st;

	__sync_fetch_and_add(&gp_launch_hits, 1);
	st = bpf_map_lookup_elem(&gp_launch_pids, &pid);
	if (!st) {
		__sync_fetch_and_add(&gp_launch_stray, 1);
		return 0;
	}
	if (!st->busy)
		return 0;
	st->busy = 0;
	gp_edge_emit(pid, GP_EDGE_IDLE, entry, now, st->launches);
	st->launches = 0;
	return 1;
}

#endif
