/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay: the arbiter's policy (policy.c, the daemon's very code) run over
 * a recorded online activity trace, with a cost per KFD operation, to tune
 * --resume-after / --min-offline-share / --window without a GPU
 * (gpreempt-ctl policy --replay FILE).
 *
 * Input: NDJSON, one object per line; blank lines and lines starting
 * with '#' are skipped.
 *   {"t_us":1500,"ev":"busy","src":1,"pid":4242}
 *   time   one of "t_ns", "t_us", "t_ms", "ts_boot_ns" (gpreempt-trace's
 *          key): an unsigned integer, never decreasing along the file,
 *          at most GP_REPLAY_MAX_NS (larger times are refused: the
 *          policy's deadlines, time plus a window, would wrap); a
 *          trace spans at most GP_REPLAY_MAX_WINDOWS windows
 *   ev     "busy" | "idle"  a notify line of connection src for pid
 *          "close"          connection src went away (its busy ends)
 *          "exit"           online process pid exited (its busy ends)
 *          "mark"           a time only: where the trace starts or ends
 *          ("type" is read when "ev" is absent, and "op" when "type" is
 *          "event", so busy/idle objects mixed into gpreempt-trace -j
 *          output replay too; its other objects are skipped and counted:
 *          KFD ioctls alone do not say when online has work)
 *   src    optional, default 0; pid optional, default 0
 * An idle with no busy open on (src, pid) is counted as unmatched, as
 * the daemon would refuse it. The trace lasts from its first to its last
 * line: end it with the state you want measured.
 *
 * Cost model (HWS GPUs, gfx9/gfx10: every suspend and resume makes the
 * scheduler unmap and remap every queue of the device): KFD operations
 * run one at a time, each occupying the device for its cost. An offline
 * process does not run from the start of its suspend to the end of its
 * resume, nor during anyone's operation. Online waits for every part of
 * an operation that overlaps its busy time (the suspend it waits for
 * included).
 */
#ifndef GP_REPLAY_H
#define GP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "policy.h"

#define GP_REPLAY_MAX_NS (1ULL << 62)	/* 146 years of boot time */
#define GP_REPLAY_MAX_WINDOWS (1ULL << 22) /* 48 days of 1 s windows */

struct gp_replay_cfg {
	struct gp_policy_cfg pol;
	uint64_t suspend_cost_ns, resume_cost_ns;
	int n_offline;			/* 1..GP_POLICY_MAX_OFFLINE */
};

struct gp_replay_result {
	uint64_t lines, events, skipped, unmatched;
	uint64_t duration_ns, busy_ns, busy_periods;
	uint64_t suspend_toggles, resume_toggles;	/* batches */
	uint64_t suspend_ops, resume_ops;		/* ioctls */
	uint64_t budget_resumes, max_hold_resumes, cancelled_resumes;
	uint64_t offline_run_ns;	/* summed over offline processes */
	uint64_t offline_share_ppm;	/* of n_offline * duration */
	uint64_t wait_total_ns, wait_max_ns;
	uint64_t wait_slots_us[32];	/* log2 per busy period, usecs */
};

enum gp_rev { GP_REV_BUSY, GP_REV_IDLE, GP_REV_CLOSE, GP_REV_EXIT,
	      GP_REV_MARK, GP_REV_QUEUE };

/*
 * Multi-GPU traces (greplay.h) add "gpu" (a gpu_id) to busy and idle,
 * and "queue" lines placing an offline process's queue:
 *   {"t_us":0,"ev":"queue","pid":3101,"qid":0,"gpu":10001,"gang":7}
 * (gang optional, 0 = none). The node-wide replay reads a queue line as a
 * mark and busy/idle on any GPU as busy/idle of the node.
 */
struct gp_replay_ev {
	uint64_t t_ns, src, gang;
	int pid;
	enum gp_rev ev;
	bool has_gpu;
	uint32_t gpu, qid;
};

/*
 * One line: 1 and *ev for an event, 0 for a line to skip, -EINVAL with
 * the reason in err.
 */
int gp_replay_parse_line(const char *line, struct gp_replay_ev *ev,
			 char *err, size_t len);
/*
 * Runs the whole file. 0 and *r, or -errno with "NAME:LINE: reason" in
 * err (nothing else is reported then).
 */
int gp_replay_run(FILE *in, const char *name, const struct gp_replay_cfg *c,
		  struct gp_replay_result *r, char *err, size_t len);
void gp_replay_print(FILE *f, const char *name, const struct gp_replay_cfg *c,
		     const struct gp_replay_result *r, bool json);

#endif
