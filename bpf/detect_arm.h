/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The armed-while-idle launch detector (bpf/detect_arm.bpf.c, user/
 * arbiter/detect_arm.c; a prototype behind a flag): what its BPF side
 * and user space share. The edge record is detect.h's struct gp_edge;
 * two more kinds ask user space to arm or disarm the launch probes.
 */
#ifndef GP_DETECT_ARM_H
#define GP_DETECT_ARM_H

#include "detect.h"

enum gp_arm_kind {
	GP_ARM_DISARM = 3,	/* busy with the launch probes armed */
	GP_ARM_ARM = 4,		/* a sync call entered with them disarmed */
};

/* Per online process: user space creates it zeroed, then only BPF
 * writes it (user space only reads: a whole-value update would lose the
 * programs' increments). */
struct gp_arm_state {
	__u64 last_ns;		/* last launch seen (a trap) */
	__u64 launches;		/* launches trapped in this busy period */
	__u64 traps;		/* launch traps in all, the cost */
	__u64 deferred;		/* sync returns while disarmed: stayed busy */
	__u32 busy;
	__u32 seen_gen;		/* the gp_arm_ctl.gen the flags below are for */
	__u32 disarm_asked;	/* one request per arming */
	__u32 arm_asked;	/* one request per disarming */
	__u32 seen_idle;	/* the gp_arm_ctl.idle_gen applied */
	__u32 pad;
};

/* Per online process, written by user space only: whether the launch
 * probes are in, a generation bumped at each arm and disarm, and one
 * bumped when user space proved the process idle from outside (queues
 * idle, WAIT_EVENTS returned): BPF applies it at the next event, which
 * then sees an idle process. */
struct gp_arm_ctl {
	__u32 armed;
	__u32 gen;
	__u32 idle_gen;
	__u32 pad;
};

#endif
