/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The launch detector's kernel-side completion signal: KFD's WAIT_EVENTS
 * ioctl (kfd_ioctl_wait_events in amdgpu's kfd_chardev.c). HIP spins on
 * a signal for a while and then blocks there; when the ioctl returns 0
 * with wait_result KFD_IOC_WAIT_RESULT_COMPLETE, the event the process
 * waited for fired, and an online process that was busy gets an idle
 * edge (gp_launch_done, entry GP_ENT_WAIT_EVENTS). A timeout or a failure
 * makes no edge: the wait did not see the work end.
 *
 * Two halves, so that the same logic runs under BPF_PROG_TEST_RUN
 * (tests/bpf/detect_test.bpf.c) with caller-chosen values:
 *   gp_wait_enter()  on entry, only for an online pid: remembers the
 *                    thread's argument struct (the kernel's copy);
 *   gp_wait_exit()   on return: ioctl result and wait_result -> edge.
 * Every other process costs one hash lookup on entry and one on return.
 */
#ifndef GP_DETECT_WAIT_BPF_H
#define GP_DETECT_WAIT_BPF_H

#include "detect_edge.bpf.h"

#define GP_WAIT_RESULT_COMPLETE 0	/* KFD_IOC_WAIT_RESULT_COMPLETE */
/* struct kfd_ioctl_wait_events_args: u64 events_ptr, u32 num_events,
 * u32 wait_for_all, u32 timeout, u32 wait_result (UAPI: fixed). */
#define GP_UAPI_WE_WAIT_RESULT 20

/* thread id -> the ioctl's argument struct, between entry and return */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GP_LAUNCH_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u64);
} gp_wait_args SEC(".maps");

__u64 gp_wait_returns;	/* returns seen in online processes */

static __always_inline int gp_wait_enter(__u32 pid, __u32 tid, __u64 args)
{
	if (!bpf_map_lookup_elem(&gp_launch_pids, &pid))
		return 0;
	bpf_map_update_elem(&gp_wait_args, &tid, &args, BPF_ANY);
	return 1;
}

/* The thread's pending argument pointer (0: not an online wait). */
static __always_inline __u64 gp_wait_take(__u32 tid)
{
	__u64 *a = bpf_map_lookup_elem(&gp_wait_args, &tid);
	__u64 args;

	if (!a)
		return 0;
	args = *a;
	bpf_map_delete_elem(&gp_wait_args, &tid);
	return args;
}

/* 1: an idle edge was emitted. */
static __always_inline int gp_wait_exit(__u32 pid, long ret, __u32 result,
					__u64 now)
{
	__sync_fetch_and_add(&gp_wait_returns, 1);
	if (ret != 0 || result != GP_WAIT_RESULT_COMPLETE)
		return 0;
	return gp_launch_done(pid, GP_ENT_WAIT_EVENTS, now);
}

#endif
