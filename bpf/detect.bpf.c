// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector: uprobes on a GPU runtime library's (libamdhip64's
 * or libcuda's) launch entry points and uretprobes on its synchronisation
 * calls, attached per online process (user/detect/detect_attach.c) with
 * GP_ENT_COOKIE(runtime, slot) as the attach cookie (detect.h): which
 * program fired says launch or sync, so nothing here knows a runtime;
 * and KFD's WAIT_EVENTS ioctl, entry and return, in two flavours
 * (fentry/fexit, kprobe/kretprobe) of which the loader keeps one. The
 * logic is in detect_edge.bpf.h and detect_wait.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "detect_wait.bpf.h"

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

/* kfd_ioctl_wait_events(struct file *, struct kfd_process *, void *data):
 * data is the kernel's copy of struct kfd_ioctl_wait_events_args, which
 * the handler fills (wait_result) before kfd_ioctl copies it back. */
static __always_inline int wait_enter(void *data)
{
	__u64 id = bpf_get_current_pid_tgid();

	return gp_wait_enter(id >> 32, (__u32)id, (__u64)data);
}

static __always_inline int wait_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 args = gp_wait_take((__u32)id);
	__u32 result = ~0u;

	if (!args)
		return 0;
	bpf_probe_read_kernel(&result, sizeof(result),
			      (void *)(args + GP_UAPI_WE_WAIT_RESULT));
	return gp_wait_exit(id >> 32, ret, result, bpf_ktime_get_ns());
}

/* Tracing programs must return 0 (the verifier checks it on 6.12). */
SEC("fentry/kfd_ioctl_wait_events")
int BPF_PROG(fe_wait, void *f, void *p, void *data)
{
	wait_enter(data);
	return 0;
}
SEC("fexit/kfd_ioctl_wait_events")
int BPF_PROG(fx_wait, void *f, void *p, void *data, int ret)
{
	wait_exit(ret);
	return 0;
}
SEC("kprobe/kfd_ioctl_wait_events")
int BPF_KPROBE(kp_wait, void *f, void *p, void *data)
{
	wait_enter(data);
	return 0;
}
SEC("kretprobe/kfd_ioctl_wait_events")
int BPF_KRETPROBE(kr_wait, int ret)
{
	wait_exit(ret);
	return 0;
}
