/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CUDA lock off the loop (offjob.h): the lock waits for the target's
 * kernels in flight (709 ms behind a 1 s kernel, measured), so it runs
 * on a thread of its own: check that the pid maps libcuda (once per
 * process: its memory map), that its start time is still the one
 * attached, journal the hold (a lock outlives its holder), lock with the
 * bound; on a failure the journal line goes again. The thread adds 1 to
 * efd (a dup, closed with the job) when done.
 */
#ifndef GP_CUDA_LOCK_H
#define GP_CUDA_LOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda_api.h"
#include "offjob.h"

enum gp_cuda_lock_stage {
	GP_CL_CALLED,		/* the lock was called: res says */
	GP_CL_NOT_CUDA,		/* the pid does not map libcuda.so.1 */
	GP_CL_GONE,		/* exited, or another process now */
	GP_CL_JOURNAL,		/* no record could be written: not locked */
};

struct gp_cuda_lockjob {
	const struct gp_cuda_api *api;	/* lives as long as the process */
	char journal[256];
	pid_t pid;
	uint64_t start;
	uint32_t timeout_ms;
	bool verified;		/* its maps were seen to name libcuda */
	int efd;
	/* results */
	enum gp_cuda_lock_stage stage;
	int res, err;		/* CUresult; -errno of the journal */
	uint64_t ns;		/* the lock call's duration */
};

/* The job (its arg a struct gp_cuda_lockjob), or NULL with *err. */
struct gp_offjob *gp_cuda_lock_start(const struct gp_cuda_api *api,
				     const char *journal, pid_t pid,
				     uint64_t start, uint32_t timeout_ms,
				     bool verified, int efd, int *err);

#endif
