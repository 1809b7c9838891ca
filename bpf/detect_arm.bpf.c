// SPDX-License-Identifier: GPL-2.0
/*
 * The armed-while-idle launch detector's programs (logic in
 * detect_arm.bpf.h). gp_arm_launch runs from tracefs uprobe events kept
 * registered by user space (user/detect/detect_arm.c), so arming and
 * disarming a process only applies or removes its breakpoints; the sync
 * probes are ordinary pid-scoped uprobes, armed for the process's life,
 * with the entry's enum gp_entry as the cookie.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "detect_arm.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int gp_arm_launch(struct pt_regs *ctx)
{
	gp_arm_launch_hit(bpf_get_current_pid_tgid() >> 32,
			  bpf_ktime_get_ns());
	return 0;
}

SEC("uprobe")
int gp_arm_sync(struct pt_regs *ctx)
{
	gp_arm_sync_enter(bpf_get_current_pid_tgid() >> 32,
			  bpf_get_attach_cookie(ctx), bpf_ktime_get_ns());
	return 0;
}

SEC("uretprobe")
int gp_arm_sync_ret(struct pt_regs *ctx)
{
	gp_arm_sync_return(bpf_get_current_pid_tgid() >> 32,
			   bpf_get_attach_cookie(ctx), bpf_ktime_get_ns());
	return 0;
}
