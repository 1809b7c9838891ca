// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector: uprobes on libamdhip64's launch entry points and
 * uretprobes on its synchronisation calls, attached per online process
 * (user/arbiter/detect_launch.c) with the entry's enum gp_entry as the
 * attach cookie. The logic is in detect_edge.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "detect_edge.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int gp_launch(struct pt_regs *ctx)
{
	gp_launch_hit(bpf_get_current_pid_tgid() >> 32,
		      bpf_get_attach_cookie(ctx), bpf_ktime_get_ns());
	return 0;
}

SEC("uretprobe")
int gp_sync_ret(struct pt_regs *ctx)
{
	gp_launch_done(bpf_get_current_pid_tgid() >> 32,
		       bpf_get_attach_cookie(ctx), bpf_ktime_get_ns());
	return 0;
}
