/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer's BPF object and loader as a library: gpreempt-trace is one
 * user, the daemon's arbiter another (it embeds it instead of running a
 * gpreempt-trace process; both can run side by side, each with its own
 * object, maps and ring).
 *
 *	struct gp_probe_opts o = {
 *		.emit = GP_EMIT_IMMEDIATE,	// queue lifecycle, suspends
 *		.on_event = cb, .ctx = me,
 *	};
 *	struct gp_probe_err err;
 *	struct gp_probe *p;
 *
 *	if (gp_probe_open(&o, &p, &err))	// err.exit_code, err.msg
 *		...
 *	epoll_add(gp_probe_fd(p));		// readable: call gp_probe_poll
 *	gp_probe_poll(p, 0);			// never blocks with 0
 *	gp_probe_queue(p, pid, GP_ANY_GPU, qid, &val); // val.wptr_addr...
 *	gp_probe_close(p);
 *
 * Immediate events (GP_IMMEDIATE_OPS: create, destroy, q_add, q_del,
 * suspend, resume, exit; not failed ones) wake the fd as they are
 * submitted with GP_EMIT_IMMEDIATE (or .immediate); the rest is batched
 * and only read by gp_probe_poll (call it on a timer too).
 * Nothing here prints; libbpf's own messages go where libbpf_set_print()
 * says (process-wide, the caller's choice).
 */
#ifndef GP_PROBE_H
#define GP_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "gpreempt.h"

struct gp_probe;
struct gp_attach;
struct bpf_object;

/* What goes to user space per event (histograms and maps: always). */
enum gp_probe_emit {
	GP_EMIT_ALL = 0,	/* every event (gpreempt-trace's event mode) */
	GP_EMIT_IMMEDIATE,	/* GP_IMMEDIATE_OPS only (the arbiter) */
	GP_EMIT_NONE,		/* summary mode: nothing per event */
};

/* Return nonzero to stop the current poll (it returns that value). */
typedef int (*gp_probe_event_fn)(void *ctx, const struct gp_event *e);

struct gp_probe_opts {
	bool kprobes;		/* kprobes only, no fentry */
	bool reduced;		/* UAPI arguments only (no amdgpu BTF use) */
	const int *pids;	/* only these host pids (owner or target) */
	int npids;		/* 0: all; at most 64 */
	__u64 hist_unit_ns;	/* histogram unit: 0 or 1 ns, 1000, 1000000 */
	enum gp_probe_emit emit;
	/*
	 * Wake the fd at once for GP_IMMEDIATE_OPS (always so with
	 * GP_EMIT_IMMEDIATE). Off, everything is batched: what a printing
	 * tracer wants, since a wakeup per event cost a sparse traced call
	 * ~110 us of TCG time in the paced VM loop (docs/benchmarks-history.md §6).
	 */
	bool immediate;
	bool no_seed;		/* skip seeding the map from sysfs */
	bool no_links;		/* load only (--check attaches itself) */
	const char *pin_path;	/* pin the queue map here; NULL: do not */
	gp_probe_event_fn on_event;	/* NULL: no ring buffer reader */
	void *ctx;
};

/* On success, msg may still hold a warning (the pin failed). */
struct gp_probe_err {
	int exit_code;		/* enum gp_exit (exitcodes.h) */
	int err;		/* -errno of the failed step */
	char msg[256];		/* what happened and what to do */
};

/*
 * Plan, open, load (retrying with kprobes if an fentry load fails),
 * attach, seed the queue map from sysfs, pin, set up the ring reader.
 * 0 and *out, or an exit code (GP_EXIT_NO_BPF: the kernel refused the
 * programs; GP_EXIT_FAILURE: anything else) with err filled. Having no
 * KFD hook attached is not an error here: see gp_probe_attach_info().
 */
int gp_probe_open(const struct gp_probe_opts *o, struct gp_probe **out,
		  struct gp_probe_err *err);
void gp_probe_close(struct gp_probe *p);

/* Which hook attached how (the plan, reasons, counts). */
const struct gp_attach *gp_probe_attach_info(const struct gp_probe *p);

/* An fd for poll/epoll, readable when immediate events wait; -1 if no
 * on_event was given. */
int gp_probe_fd(const struct gp_probe *p);
/* Wait up to timeout_ms (0: not at all), then read everything pending.
 * Events read, or -errno (-EINTR is returned as 0). */
int gp_probe_poll(struct gp_probe *p, int timeout_ms);

/*
 * A queue's row: its pointer addresses (wptr_addr, rptr_addr; 0 if it was
 * created before the probe), ring, type and state. gpu_id GP_ANY_GPU
 * finds it by (pid, queue_id). 0 or -ENOENT.
 */
int gp_probe_queue(const struct gp_probe *p, __u32 pid, __u32 gpu_id,
		   __u32 queue_id, struct gp_queue_val *v);

int gp_probe_queues_fd(const struct gp_probe *p);	/* gp_queues */
/* The loaded object, for what this API does not cover (maps by name). */
struct bpf_object *gp_probe_object(const struct gp_probe *p);
int gp_probe_hists_fd(const struct gp_probe *p);	/* gp_hists */
/* A counter of enum gp_stat summed over CPUs (GP_STAT_LOST: events
 * dropped because the ring was full; *_FULL: a map was full). */
__u64 gp_probe_stat(const struct gp_probe *p, enum gp_stat s);
/* Per-op counts summed over CPUs into out[GP_OP_MAX]; 0 or -errno. */
int gp_probe_counts(const struct gp_probe *p, struct gp_count *out);
/* gp_probe_stat(p, GP_STAT_LOST) */
__u64 gp_probe_lost(const struct gp_probe *p);

#endif
