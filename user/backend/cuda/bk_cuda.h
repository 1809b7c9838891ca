/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA backend (backend.h): a process that maps libcuda.so.1,
 * suspended by the CUDA driver's checkpoint lock (cuda_api.h). The lock
 * blocks the process's further CUDA calls and waits for its submitted
 * work: kernels in flight finish (kernel-boundary preemption, unlike
 * AMD's mid-kernel CWSR), so it runs off the loop with a bound
 * (--cuda-lock-timeout) and completes asynchronously (GP_BK_PENDING).
 * Resume is the unlock (0.12-0.22 ms measured; it waits for no GPU work,
 * so it runs on the caller's thread). Never left locked: every lock is
 * journaled first (cuda_journal.h) and a guardian (cuda_guardian.h)
 * unlocks if the holder dies.
 */
#ifndef GP_BK_CUDA_H
#define GP_BK_CUDA_H

#include <stdint.h>

#include "backend.h"

#define GP_CUDA_LOCK_TIMEOUT_MS 500	/* default --cuda-lock-timeout */

struct gp_bk_cuda_conf {
	const char *journal;	/* NULL: GP_CUDA_JOURNAL_DEFAULT */
	uint32_t lock_timeout_ms; /* 0: GP_CUDA_LOCK_TIMEOUT_MS */
};

/* The backend (libcuda is loaded by gp_bk_open). NULL: no memory. */
struct gp_backend *gp_bk_cuda_new(const struct gp_bk_cuda_conf *c);
void gp_bk_cuda_destroy(struct gp_backend *b);
/*
 * At the holder's start (the backend opened): with replay (the daemon),
 * unlock what the journal records from a holder that died (log gets one
 * line each); then fork the guardian. 0, or -1 with e.
 */
int gp_bk_cuda_start(struct gp_backend *b, bool replay,
		     void (*log)(void *ctx, const char *line), void *ctx,
		     struct gp_err *e);
/* Unlock pid whoever locked it (the manual remedy): 1 unlocked, 0 it
 * was not locked, -1 with e. Its journal line goes too. */
int gp_bk_cuda_unlock_pid(struct gp_backend *b, pid_t pid, struct gp_err *e);
/*
 * The pids that use CUDA, as last found off the loop (NVML's compute
 * processes; without NVML, every pid whose maps name libcuda.so); each
 * call takes a finished refresh and starts the next. Their number and
 * *pids (malloc'd, the caller frees), 0 before the first is done.
 */
int gp_bk_cuda_candidates(struct gp_backend *b, int **pids);
const char *gp_bk_cuda_journal(const struct gp_backend *b);
uint32_t gp_bk_cuda_lock_timeout_ms(const struct gp_backend *b);
int gp_bk_cuda_version(const struct gp_backend *b);

#endif
