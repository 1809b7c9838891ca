/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guardian: a small process forked by the holder (the daemon, or a
 * one-shot `gpreempt-ctl suspend` of a CUDA process) that outlives it.
 * A CUDA lock outlives the process that took it (measured), so when the
 * holder dies, SIGKILL included, the guardian (its own session and
 * process group, so a terminal's or a group's signal spares it) sees its
 * pidfd turn readable, unlocks every journaled pid whose start time
 * still matches (cuda_journal.h) and exits. A holder that exits cleanly
 * leaves an empty journal: the guardian then only exits.
 */
#ifndef GP_CUDA_GUARDIAN_H
#define GP_CUDA_GUARDIAN_H

#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/*
 * Fork the guardian of this process. Call it before any thread starts
 * (the child runs on after fork) and before opening descriptors the
 * child must not keep (it closes all but stderr). lock_timeout_ms: a
 * lock in flight when the holder died may still land that long after:
 * the guardian unlocks again until then. Its pid, or -1 with e.
 */
pid_t gp_cuda_guardian_start(const char *journal, uint32_t lock_timeout_ms,
			     struct gp_err *e);

#endif
