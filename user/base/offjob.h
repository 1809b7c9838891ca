/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work that may wait on another process (its memory, its /proc files, a
 * debugfs file whose kernel lock it holds), run off the daemon's loop on
 * a detached thread of its own. The loop starts a job, looks at it on
 * later ticks (never blocks), takes its result once done, and gives up on
 * it past a deadline: a job stuck for good (a page that never resolves:
 * userfaultfd, a stalled FUSE file) keeps its thread, which frees the
 * job when, if ever, it returns. The daemon still exits: see
 * user/arbiter/arbiter_qpoll.c for why such a reader does not hold it.
 *
 *	loop_watch(gp_offjob_wakefd(), on_readable);	// once
 *	j = gp_offjob_start(fn, arg, free, now);	// fn(arg) off the loop
 *	...on_readable: gp_offjob_drain(), then...
 *	if (gp_offjob_done(j)) use(gp_offjob_arg(j)), gp_offjob_put(j);
 *	else if (gp_offjob_late(j, now, deadline)) give_up(), gp_offjob_put(j);
 */
#ifndef GP_OFFJOB_H
#define GP_OFFJOB_H

#include <stdbool.h>
#include <stdint.h>

struct gp_offjob;

/*
 * Runs fn(arg) on a detached thread; free_arg(arg) (may be NULL) when
 * both the thread and the caller are done with it. NULL with arg freed
 * when there is no memory or no thread (*err = -errno, err may be NULL).
 */
struct gp_offjob *gp_offjob_start(void (*fn)(void *arg), void *arg,
				  void (*free_arg)(void *arg), uint64_t now,
				  int *err);
/*
 * The one completion notifier of the process: an eventfd (non-blocking,
 * created at the first call) that every job's thread adds 1 to after fn
 * returned and done is set, a late job's too. A loop polls it for
 * readable instead of looking at its jobs on a period: a counter, so no
 * end is lost between two reads. Never closed: a stuck thread may end at
 * any time, and must not write into a descriptor number reused since.
 * -errno when it cannot be created (jobs then end unannounced).
 */
int gp_offjob_wakefd(void);
/* Empties the counter; returns how many job ends it held (0: none). */
uint64_t gp_offjob_drain(void);
/* fn has returned: what it wrote in arg is the caller's to read. */
bool gp_offjob_done(const struct gp_offjob *j);
/* Not done deadline_ns after it started. */
bool gp_offjob_late(const struct gp_offjob *j, uint64_t now,
		    uint64_t deadline_ns);
uint64_t gp_offjob_started(const struct gp_offjob *j);
void *gp_offjob_arg(const struct gp_offjob *j);
/* The caller's reference dropped (NULL: nothing). Before done, the
 * thread frees the job when it returns; the caller must not touch arg. */
void gp_offjob_put(struct gp_offjob *j);

#endif
