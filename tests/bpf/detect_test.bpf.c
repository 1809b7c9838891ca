// SPDX-License-Identifier: GPL-2.0
/*
 * L1 stand-ins for detect.bpf.c's uprobes: raw_tp programs run with
 * BPF_PROG_TEST_RUN that call detect_edge.bpf.h with a caller-chosen
 * pid, entry and clock. tests/bpf/test_detect_edge.c drives them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "detect_wait.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp")
int BPF_PROG(test_launch, __u64 pid, __u64 entry, __u64 now)
{
	return gp_launch_hit(pid, entry, now);
}

SEC("raw_tp")
int BPF_PROG(test_sync_ret, __u64 pid, __u64 entry, __u64 now)
{
	return gp_launch_done(pid, entry, now);
}

SEC("raw_tp")
int BPF_PROG(test_wait_enter, __u64 pid, __u64 tid, __u64 args)
{
	return gp_wait_enter(pid, tid, args);
}

/* the return half: the stash taken for tid, then the edge decision */
SEC("raw_tp")
int BPF_PROG(test_wait_exit, __u64 pid, __u64 tid, __u64 ret, __u64 result,
	     __u64 now)
{
	if (!gp_wait_take(tid))
		return -1;
	return gp_wait_exit(pid, (long)ret, result, now);
}
