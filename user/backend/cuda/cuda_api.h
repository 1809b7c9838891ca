/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA driver's checkpoint API, loaded at run time from
 * libcuda.so.1 (dlopen: nothing of NVIDIA's is needed to build). The
 * entry points and structs are those of NVIDIA's public CUDA driver API
 * documentation, "CUDA Checkpointing" group (CUDA 12.x/13.0):
 *   CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *);
 *   CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *);
 *   CUresult cuCheckpointProcessGetState(int pid, CUprocessState *);
 * Measured on an H200 (driver 580.159.04, CUDA 13.0, 2026-11-28;
 * docs/cuda.md): lock 0.51 ms on a busy trainer, unlock 0.12-0.22 ms, a
 * lock behind a 1 s kernel waits for it (709 ms) or returns 600 at its
 * timeout leaving the process running, and a lock OUTLIVES its holder.
 */
#ifndef GP_CUDA_API_H
#define GP_CUDA_API_H

#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* CUresult values the backend tells apart (cuda.h's names). */
enum {
	GP_CU_SUCCESS = 0,
	GP_CU_NOT_INITIALIZED = 3,	/* the pid never initialised CUDA */
	GP_CU_OPERATING_SYSTEM = 304,	/* no such pid */
	GP_CU_ILLEGAL_STATE = 401,	/* locked already / not locked */
	GP_CU_NOT_READY = 600,		/* the lock's timeout passed */
};

/* CUprocessState */
enum {
	GP_CU_STATE_RUNNING = 0,
	GP_CU_STATE_LOCKED = 1,
	GP_CU_STATE_CHECKPOINTED = 2,
	GP_CU_STATE_FAILED = 3,
};

struct gp_cuda_api {
	void *h;
	int (*lock)(int pid, void *args);
	int (*unlock)(int pid, void *args);
	int (*get_state)(int pid, int *state);
	int version;		/* cuDriverGetVersion, 0: unknown */
};

/* dlopen("libcuda.so.1") and the three entry points: 0, or -1 with e
 * (GP_EXIT_NO_CUDA, saying which is missing and what to do). */
int gp_cuda_load(struct gp_cuda_api *a, struct gp_err *e);
void gp_cuda_unload(struct gp_cuda_api *a);
/* The calls, returning the CUresult (timeout_ms: the lock's bound). */
int gp_cuda_lock(const struct gp_cuda_api *a, pid_t pid,
		 uint32_t timeout_ms);
int gp_cuda_unlock(const struct gp_cuda_api *a, pid_t pid);
int gp_cuda_state(const struct gp_cuda_api *a, pid_t pid, int *state);
/*
 * Pure: what CUresult res of call ("lock", "unlock", "state") on pid
 * means, into e: message with cause and remedy, and the exit code (8
 * not a CUDA process / no such pid, 9 locked already, 13 timeout, 1
 * other). timeout_ms: the lock's, for the message.
 */
void gp_cuda_err(struct gp_err *e, const char *call, pid_t pid, int res,
		 uint32_t timeout_ms);
/* Pure: "running", "locked", "checkpointed", "failed", "?". */
const char *gp_cuda_state_name(int state);

#endif
