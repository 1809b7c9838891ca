/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multi-GPU replay: a recorded trace (replay.h's format with "gpu" on
 * busy/idle and "queue" lines placing offline queues) run through the
 * per-GPU policy (gpolicy.h) at --scope gpu or node, reporting per GPU
 * the offline share (the time offline's queues on that GPU ran), busy
 * periods and toggles, and overall the ioctls and queue ids named:
 * gpreempt-ctl policy --replay FILE --scope gpu|node [--gang ...].
 * No cost model here (replay.h has one for the node-wide case): this
 * answers which queues stop, and how often.
 */
#ifndef GP_GREPLAY_H
#define GP_GREPLAY_H

#include <stdbool.h>
#include <stdio.h>
#include "gpolicy.h"

struct gp_greplay_cfg {
	struct gp_policy_cfg pol;
	enum gp_scope scope;
	enum gp_gang gang;
};

struct gp_greplay_gpu {
	uint32_t gpu_id;
	int procs;			/* offline processes with queues here */
	uint64_t held_ns;		/* summed over those processes */
	uint64_t share_ppm;		/* of procs * duration */
	uint64_t busy_periods, suspends, resumes;	/* its machine's */
	uint64_t budget_resumes, max_hold_resumes;
};

struct gp_greplay_result {
	uint64_t lines, events, unmatched, duration_ns;
	uint64_t suspend_ioctls, resume_ioctls, queues_named;
	uint64_t busy_periods;		/* summed over machines */
	int ngpus;
	struct gp_greplay_gpu gpu[GP_GP_MAX_GPUS];
};

/* 0 and *r, or -errno with "NAME:LINE: reason" in err. */
int gp_greplay_run(FILE *in, const char *name, const struct gp_greplay_cfg *c,
		   struct gp_greplay_result *r, char *err, size_t len);
void gp_greplay_print(FILE *f, const char *name,
		      const struct gp_greplay_cfg *c,
		      const struct gp_greplay_result *r, bool json);

#endif
