/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Armed-while-idle launch detection (a prototype, for a flag such as
 * --detect launch-armed; not wired yet): the launch probes are in an
 * online process's text only while it is idle (and for the first
 * gp_arm_min_launches launches of a busy period), so a busy period costs
 * it a bounded number of traps whatever its launch count. The kernel
 * facts and measurements are in docs/arbiter.md ("Launch detection:
 * what a trap costs and the levers"); the logic is bpf/detect_arm.bpf.h.
 *
 * Each launch entry point is a tracefs uprobe event defined once and
 * kept registered by an anchor perf event scoped to this process (which
 * does not map the library: no breakpoint) carrying the program. Arming
 * a process opens one tracepoint perf event per entry scoped to its pid
 * (the kernel adds its mm to the event's filter and writes the
 * breakpoint there: uprobe_apply); disarming closes them (the kernel
 * removes the breakpoint; the uprobe stays registered, so no unregister
 * and none of its grace periods). The sync calls keep ordinary
 * pid-scoped uprobes and uretprobes for the process's life.
 *
 * gp_da_arm() and gp_da_disarm() take the target's mmap lock for writing
 * (a text page is rewritten): the daemon must run them off its loop,
 * with a deadline (user/base/offjob.h). gp_da_drain() calls them inline:
 * fine for the test driver (tests/detect/arm-run.c), not for the loop.
 */
#ifndef GP_DETECT_ARMED_H
#define GP_DETECT_ARMED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "detect_arm.h"

#define GP_DA_MAX_PROCS 64
#define GP_DA_MAX_EV 16

struct detect_arm_bpf;
struct ring_buffer;
struct bpf_link;
typedef void (*gp_da_edge_fn)(void *ctx, const struct gp_edge *e);

struct gp_da_proc {
	pid_t pid;
	int nlaunch, nsync;
	int id[GP_DA_MAX_EV];		/* tracefs event ids */
	int anchor[GP_DA_MAX_EV];	/* our own pid's events, with the prog */
	int fd[GP_DA_MAX_EV];		/* pid-scoped events while armed */
	struct bpf_link *sync[2 * GP_DA_MAX_EV];
	struct gp_arm_ctl ctl;
	__u64 disarmed_ns;		/* when the last disarm ended */
};

struct gp_da_counts {
	__u64 arms, disarms;
	__u64 arm_ns_max, disarm_ns_max, arm_ns_sum, disarm_ns_sum;
	__u64 lost;
};

struct gp_da {
	struct detect_arm_bpf *skel;
	struct ring_buffer *rb;
	char tracefs[128];
	gp_da_edge_fn edge;
	void *ctx;
	__u64 rearm_ns;		/* re-arm a process disarmed this long */
	int nprocs;
	struct gp_da_proc procs[GP_DA_MAX_PROCS];
	struct gp_da_counts c;
};

/* Load the programs; tracefs is where tracefs is mounted; min_launches
 * trapped in a busy period before the disarm (0: the default, 16).
 * 0 or -errno. */
int gp_da_open(struct gp_da *d, const char *tracefs, __u64 rearm_ns,
	       __u32 min_launches, gp_da_edge_fn edge, void *ctx);
void gp_da_close(struct gp_da *d);
/*
 * Watch pid: lib is its library as reachable from here, launch[] and
 * sync[] file offsets of its launch and sync entry points, sync_entry[]
 * their enum gp_entry. Armed on return. 0 or -errno, reason says why.
 */
int gp_da_attach(struct gp_da *d, pid_t pid, const char *lib,
		 const unsigned long long *launch, int nlaunch,
		 const unsigned long long *sync, const __u32 *sync_entry,
		 int nsync, char *reason, size_t len);
void gp_da_detach(struct gp_da *d, pid_t pid);
int gp_da_arm(struct gp_da *d, pid_t pid);
int gp_da_disarm(struct gp_da *d, pid_t pid);
/* Idle proved from outside: arm, then let BPF see the process idle. */
int gp_da_set_idle(struct gp_da *d, pid_t pid);
int gp_da_state(const struct gp_da *d, pid_t pid, struct gp_arm_state *st);
/* The ring's fd, its drain (edges to the callback, arm/disarm requests
 * acted on), and the timer: re-arm processes disarmed rearm_ns ago. */
int gp_da_fd(const struct gp_da *d);
int gp_da_drain(struct gp_da *d);
void gp_da_tick(struct gp_da *d);

#endif
