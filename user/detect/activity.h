/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One activity record: what every detector says about an online process
 * (notify's verbs, the queue watcher, the launch uprobes), and the one
 * thing the module feeds its policy (arb_feed, user/arbiter/arbiter_feed.c).
 * Who said it is a typed source (source.h), so two detectors' busy
 * periods of one pid are counted apart.
 */
#ifndef GP_ACTIVITY_H
#define GP_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"

struct gp_activity {
	int pid;			/* the online process */
	const uint32_t *gpus;		/* KFD gpu_ids the work is on; */
	int ngpus;			/* 0: every GPU pid has queues on */
	bool busy;			/* the edge: busy, else idle */
	enum gp_src_kind kind;		/* the detector */
	uint64_t id;			/* its own id (source.h) */
	uint64_t t_ns;			/* monotonic ns of the edge */
};

/* The policy's source id of r (source.h). */
static inline uint64_t gp_activity_src(const struct gp_activity *r)
{
	return gp_src(r->kind, r->id);
}

#endif
