/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a CUDA process runs: NVML (libnvidia-ml.so.1, loaded at run
 * time), nvmlDeviceGetComputeRunningProcesses_v3 of every device, each
 * GPU keyed by its UUID. A driver call: run it off the loop. Without
 * NVML the answer is "unknown" (-1: all GPUs).
 */
#ifndef GP_CUDA_NVML_H
#define GP_CUDA_NVML_H

#include <sys/types.h>

#include "backend.h"

/* The GPUs pid has a compute context on, up to max; -1: NVML absent. */
int gp_nvml_gpus_of(pid_t pid, struct gp_bk_where *w, int max);
/* Every pid with a compute context on some GPU, up to max; -1: no NVML. */
int gp_nvml_pids(int *out, int max);
/* Pure: the u32 gpu id the policy uses for a UUID (FNV-1a, never 0). */
uint32_t gp_nvml_gpu_id(const char *uuid);

#endif
