// SPDX-License-Identifier: GPL-2.0
/*
 * L1 stand-ins for detect.bpf.c's uprobes: raw_tp programs run with
 * BPF_PROG_TEST_RUN that call detect_edge.bpf.h with a caller-chosen
 * pid, entry and clock. tests/bpf/test_detect_edge.c drives them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "detect_edge.bpf.h"

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
