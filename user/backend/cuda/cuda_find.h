/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes use CUDA, found off the loop: NVML's compute processes
 * (cuda_nvml.h: those with a CUDA context), or without NVML every process
 * whose memory map names libcuda.so (a forked child that inherited the
 * mapping included). Reading a process's maps takes its mmap lock, which
 * its own threads may hold: never on the loop.
 */
#ifndef GP_CUDA_FIND_H
#define GP_CUDA_FIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "offjob.h"

#define GP_CUDA_FIND_MAX 1024

/* The last list found, and the refresh in flight. */
struct gp_cuda_finder {
	struct gp_offjob *job;
	uint64_t at;		/* when the last refresh started */
	int n;
	int pid[GP_CUDA_FIND_MAX];
};

/* Does pid map libcuda.so? Reads /proc/PID/maps: off the loop only. */
bool gp_cuda_maps_libcuda(pid_t pid);
/*
 * The last list (malloc'd into *pids, the caller frees; its length
 * returned, 0 before the first refresh ends); takes a finished refresh
 * and starts the next, at most once a second. skip (our guardian: a
 * fork that maps libcuda and carries our cmdline) and this process are
 * never listed.
 */
int gp_cuda_find(struct gp_cuda_finder *f, pid_t skip, int **pids);
void gp_cuda_find_stop(struct gp_cuda_finder *f);
/* The same search on the caller's thread (a one-shot command, never the
 * daemon's loop): up to max pids into out, their number. */
int gp_cuda_find_now(pid_t skip, int *out, int max);

#endif
