/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The durable record of CUDA locks (docs/reliability.md, "Never left
 * locked"). A lock outlives its holder (measured: a SIGKILLed holder
 * left its target LOCKED), so before every lock one line "PID START\n"
 * is added (START: field 22 of /proc/PID/stat, the process's start time
 * in clock ticks since boot, so a recycled pid is never unlocked) and
 * removed after the unlock. The daemon at start, its guardian when the
 * daemon dies, and the one-shot holder's guardian unlock every pid whose
 * start time still matches. flock() serialises writers (the daemon's
 * threads, one-shot holders, a guardian).
 */
#ifndef GP_CUDA_JOURNAL_H
#define GP_CUDA_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda_api.h"

#define GP_CUDA_JOURNAL_DEFAULT "/run/gpreempt/cuda-holds"
#define GP_CUDA_JOURNAL_MAX 256	/* entries kept (the daemon holds fewer) */

struct gp_cjentry {
	pid_t pid;
	uint64_t start;
	pid_t holder;		/* 0: unknown (an old line): gone */
	uint64_t hstart;
};

/* Start time of pid (clock ticks since boot), 0 when it is gone. */
uint64_t gp_proc_start_time(pid_t pid);
/* Add (held by this process) or remove one entry. 0 or -errno. The
 * directory is made (0755, as the socket's). */
int gp_cjournal_add(const char *path, pid_t pid, uint64_t start);
int gp_cjournal_remove(const char *path, pid_t pid, uint64_t start);
/* Up to max entries into out; their number, or -errno (none: 0). */
int gp_cjournal_read(const char *path, struct gp_cjentry *out, int max);
/* Is the holder of e gone (exited, or its pid another process now)? */
bool gp_cjournal_orphan(const struct gp_cjentry *e);
/*
 * Unlock every recorded pid whose holder is gone and whose start time
 * matches (the others are gone or recycled), and drop those lines; a
 * live holder's lines stay. log(ctx, line) gets one line per entry.
 * Returns the number of orphans that stayed locked (0: all released).
 */
int gp_cjournal_release_all(const char *path, const struct gp_cuda_api *a,
			    void (*log)(void *ctx, const char *line),
			    void *ctx);

#endif
