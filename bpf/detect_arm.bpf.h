/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Armed-while-idle launch detection: the launch probes are in the online
 * process's text only while it is idle, so a busy period costs it one
 * trap (the launch that makes the busy edge) plus the launches that
 * come while user space removes the breakpoints, whatever its launch
 * count. docs/arbiter.md, "Launch detection: what a trap costs and the
 * levers", has the kernel facts and the measurements behind it.
 *
 *   launch, idle         busy edge
 *   launch, busy, armed  once gp_arm_min_launches launches were trapped
 *                        in the period, ask user space to disarm (once
 *                        per arming): a short burst (a graph replay, a
 *                        few kernels) costs its few traps and no
 *                        arm/disarm; a long one costs that many traps
 *                        plus those while the breakpoints go
 *   sync entry, disarmed ask to arm, once per disarming: the process is
 *                        about to wait for its GPU work, the arm runs
 *                        while it waits
 *   sync return, armed   idle edge: every launch after it traps
 *   sync return, not     stay busy (a launch between this return and the
 *   armed                arm would be invisible); the next sync return
 *                        after the arm, or user space's outside proof of
 *                        idle, ends the period: late for offline, never
 *                        for online
 */
#ifndef GP_DETECT_ARM_BPF_H
#define GP_DETECT_ARM_BPF_H

#include "detect_arm.h"
#include "detect_ring.bpf.h"

#define GP_ARM_MAX_PIDS 4096

/* launches trapped in a busy period before the disarm is asked for */
const volatile __u32 gp_arm_min_launches = 16;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_ARM_MAX_PIDS);
	__type(key, __u32);
	__type(value, struct gp_arm_state);
} gp_arm_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_ARM_MAX_PIDS);
	__type(key, __u32);
	__type(value, struct gp_arm_ctl);
} gp_arm_ctls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} gp_arm_ring SEC(".maps");

__u64 gp_arm_lost;

static __always_inline void gp_arm_emit(__u32 pid, __u32 kind, __u32 entry,
					__u64 now, __u64 launches)
{
	if (gp_edge_put(&gp_arm_ring, pid, kind, entry, now, launches))
		__sync_fetch_and_add(&gp_arm_lost, 1);
}

/* pid's state, its request flags reset if user space armed or disarmed
 * since they were set; *armed from user space's control */
static __always_inline struct gp_arm_state *gp_arm_get(__u32 pid, __u32 *armed)
{
	struct gp_arm_state *st = bpf_map_lookup_elem(&gp_arm_pids, &pid);
	struct gp_arm_ctl *c = bpf_map_lookup_elem(&gp_arm_ctls, &pid);

	if (!st || !c)
		return NULL;
	*armed = c->armed;
	if (st->seen_gen != c->gen) {
		st->seen_gen = c->gen;
		st->disarm_asked = 0;
		st->arm_asked = 0;
	}
	if (st->seen_idle != c->idle_gen) {
		st->seen_idle = c->idle_gen;
		st->busy = 0;
		st->launches = 0;
	}
	return st;
}

static __always_inline int gp_arm_launch_hit(__u32 pid, __u64 now)
{
	struct gp_arm_state *st;
	__u32 armed;

	st = gp_arm_get(pid, &armed);
	if (!st)
		return 0;
	__sync_fetch_and_add(&st->traps, 1);
	st->last_ns = now;
	if (!st->busy) {
		st->busy = 1;
		st->launches = 0;
		gp_arm_emit(pid, GP_EDGE_BUSY, GP_ENT_LAUNCH, now, 0);
	}
	st->launches++;
	if (armed && !st->disarm_asked &&
	    st->launches >= gp_arm_min_launches) {
		st->disarm_asked = 1;
		gp_arm_emit(pid, GP_ARM_DISARM, GP_ENT_LAUNCH, now,
			    st->launches);
	}
	return st->launches == 1;
}

static __always_inline int gp_arm_sync_enter(__u32 pid, __u32 entry,
					     __u64 now)
{
	struct gp_arm_state *st;
	__u32 armed;

	st = gp_arm_get(pid, &armed);
	if (!st || armed || st->arm_asked)
		return 0;
	st->arm_asked = 1;
	gp_arm_emit(pid, GP_ARM_ARM, entry, now, st->launches);
	return 1;
}

static __always_inline int gp_arm_sync_return(__u32 pid, __u32 entry,
					      __u64 now)
{
	struct gp_arm_state *st;
	__u32 armed;

	st = gp_arm_get(pid, &armed);
	if (!st || !st->busy)
		return 0;
	if (!armed) {
		st->deferred++;
		return 0;
	}
	st->busy = 0;
	gp_arm_emit(pid, GP_EDGE_IDLE, entry, now, st->launches);
	st->launches = 0;
	return 1;
}

#endif
