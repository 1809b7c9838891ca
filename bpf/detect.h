/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the launch detector's BPF side (detect.bpf.c) and user space
 * share: the edge record on the ring and the per-process state the
 * loader seeds when it attaches to an online process.
 */
#ifndef GP_DETECT_H
#define GP_DETECT_H

enum gp_edge_kind {
	GP_EDGE_BUSY = 1,	/* idle -> busy: a launch after idle */
	GP_EDGE_IDLE = 2,	/* busy -> idle: a sync call or WAIT_EVENTS returned */
};

/*
 * Which probe fired: a slot of a GPU runtime library's entry table
 * (user/detect/detect_libs.c: one table per runtime, HIP's or CUDA's
 * names; a slot a runtime lacks is empty there). Launch slots first, then
 * the uretprobe (sync) slots: the BPF side only emits edges, whatever the
 * runtime. Comments name HIP's entry, then CUDA's.
 */
enum gp_entry {
	GP_ENT_LAUNCH = 0,	/* hipLaunchKernel, cuLaunchKernel */
	GP_ENT_LAUNCH_SPT,	/* ..._spt, ..._ptsz */
	GP_ENT_EXT_LAUNCH,	/* hipExtLaunchKernel, cuLaunchKernelEx */
	GP_ENT_EXT_LAUNCH_SPT,	/* -, cuLaunchKernelEx_ptsz */
	GP_ENT_MODULE,		/* hipModuleLaunchKernel, - */
	GP_ENT_EXT_MODULE,	/* _Z24hipExtModuleLaunchKernel..., - */
	GP_ENT_COOP,		/* hipLaunchCooperativeKernel(_spt), */
	GP_ENT_COOP_SPT,	/* cuLaunchCooperativeKernel(_ptsz) */
	GP_ENT_MODULE_COOP,	/* hipModuleLaunchCooperativeKernel, - */
	GP_ENT_GRAPH,		/* hipGraphLaunch(_spt), cuGraphLaunch(_ptsz) */
	GP_ENT_GRAPH_SPT,
	GP_ENT_NLAUNCH,		/* launch entries end here */
	/* uretprobes: hipDeviceSynchronize, cuCtxSynchronize */
	GP_ENT_DEV_SYNC = GP_ENT_NLAUNCH,
	GP_ENT_STREAM_SYNC,	/* hipStreamSynchronize, cuStreamSynchronize */
	GP_ENT_STREAM_SYNC_SPT,	/* -, cuStreamSynchronize_ptsz */
	GP_ENT_EVENT_SYNC,	/* hipEventSynchronize, cuEventSynchronize */
	GP_ENT_MAX,
	/* not a library entry: KFD's WAIT_EVENTS ioctl returned COMPLETE */
	GP_ENT_WAIT_EVENTS = 64,
};

/*
 * The attach cookie of a uprobe, and so an edge's entry: the slot in the
 * low byte, the runtime (enum gp_runtime, detect_libs.h) above it, so an
 * edge names its entry alone. BPF passes it through untouched.
 */
#define GP_ENT_COOKIE(rt, slot) ((__u32)(rt) << 8 | (__u32)(slot))
#define GP_ENT_SLOT(c) ((c) & 0xffu)
#define GP_ENT_RT(c) ((c) >> 8)

struct gp_edge {
	__u64 ns;		/* bpf_ktime_get_ns() of the call */
	__u32 pid;		/* tgid */
	__u32 kind;		/* enum gp_edge_kind */
	__u32 entry;		/* GP_ENT_COOKIE() or GP_ENT_WAIT_EVENTS */
	__u32 gpu_id;		/* 0: not known at a launch uprobe */
	__u64 launches;		/* launches seen in the busy period before */
};

/* Per online process; the loader creates it, BPF only updates it. */
struct gp_launch_state {
	__u64 last_ns;		/* last launch */
	__u64 launches;		/* since the last edge */
	__u32 busy;
	__u32 pad;
};

#endif
