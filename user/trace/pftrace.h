/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-trace --perfetto FILE: the tracer's events as a Perfetto trace
 * (protobuf, written with base/pbuf.h), to open in Perfetto's UI beside a
 * rocprofv3 trace of the same run (docs/trace.md). Both use
 * CLOCK_BOOTTIME, the clock BPF stamps events with
 * (bpf_ktime_get_boot_ns), so their timelines line up.
 *
 * The trace: one Trace message, its packets on one sequence
 * (trusted_packet_sequence_id = the seq passed in):
 *   - first, a ClockSnapshot (BOOTTIME, MONOTONIC, REALTIME read together;
 *     primary clock BOOTTIME); every packet's timestamp is BOOTTIME ns
 *     (timestamp_clock_id 6);
 *   - tracks (TrackDescriptor), described once, on first use:
 *       "gpreempt: GPU <gpu_id>"                 one per KFD gpu_id (0:
 *                                                "GPU unknown", a target
 *                                                whose queues were not seen)
 *         "online busy"                          pft_online_busy's spans
 *         "suspended: <comm> <pid>"              one per process on it
 *         "evictions"                            evict/restore per device
 *         "suspended queues"                     a counter
 *       "gpreempt: evictions by trigger"         kfd_process_evict_queues
 *   - slices (TrackEvent TYPE_SLICE_BEGIN/END):
 *       on a process's track: "SUSPEND_QUEUES" and "RESUME_QUEUES" (the
 *       ioctl, entry to return, with debug annotations queues_asked,
 *       queues_done, result, grace_period_kcycles, caller_pid,
 *       caller_comm), and "suspended" from a suspend that stopped queues
 *       to the resume (or the exit) that ends it, the resume's slice
 *       nested in it;
 *       on "evictions": "evict queues"/"restore queues" (pid,
 *       evicted_before, evicted_after, queues, result);
 *       on "evictions by trigger": "evict: <trigger>" (pid, comm, result);
 *   - the counter: queues of processes on that GPU suspended now.
 * A suspend names queue ids, not GPUs: it is drawn on every GPU where the
 * tracer saw the target's queues (the queue map at the start,
 * pft_seed_queue; QUEUE_ADD since, or CREATE_QUEUE in reduced mode), its
 * queues shared between them by count; a target with none seen goes on
 * "GPU unknown".
 *
 * Tables are bounded (PFT_MAX_GPUS, PFT_MAX_PROCS): what does not fit is
 * counted in ->dropped, never written half. Pure but for the FILE.
 */
#ifndef GP_PFTRACE_H
#define GP_PFTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "err.h"
#include "gpreempt.h"

#define PFT_MAX_GPUS 64
#define PFT_MAX_PROCS 512	/* (pid, gpu) pairs */

/* Clock readings taken together at the start (clock_gettime, ns). */
struct pft_clocks {
	uint64_t boottime;
	uint64_t monotonic;
	uint64_t realtime;
};

struct pft_gpu {
	uint32_t gpu_id;
	uint64_t uuid, online_uuid, evict_uuid, counter_uuid;
	bool online;
	uint64_t suspended;	/* the counter's value */
};

struct pft_proc {
	uint32_t pid, gpu_id;
	char comm[16];
	uint64_t uuid;
	uint32_t queues;	/* seen added, not yet deleted */
	uint32_t suspended;	/* of them, counted suspended */
	bool in_span;		/* "suspended" slice open */
};

struct pft {
	FILE *f;
	uint32_t seq;
	uint64_t next_uuid;
	uint64_t trigger_uuid;	/* 0 until described */
	uint64_t last_ts;
	int ngpus, nprocs;
	struct pft_gpu gpus[PFT_MAX_GPUS];
	struct pft_proc procs[PFT_MAX_PROCS];
	uint64_t dropped;	/* events or tracks that did not fit */
	int werr;		/* first write error (-errno), or 0 */
};

/* Start a trace on f: the clock snapshot. 0, or -errno of the write. */
int pft_open(struct pft *t, FILE *f, const struct pft_clocks *c, uint32_t seq);
/*
 * A queue that exists at the start (a row of the tracer's queue map, which
 * it seeds from sysfs): places its process on gpu_id before any event, so
 * that a job started before the tracer is drawn on its GPU; one already
 * suspended opens its "suspended" slice at the trace's start.
 */
void pft_seed_queue(struct pft *t, uint32_t pid, uint32_t gpu_id,
		    const char *comm, bool suspended);
/* One tracer event (struct gp_event from the ring buffer). */
void pft_event(struct pft *t, const struct gp_event *e);
/* Online busy on a GPU begins or ends at ts (BOOTTIME ns): for a writer
 * that knows it (the daemon's arbiter); the tracer does not see it. */
void pft_online_busy(struct pft *t, uint32_t gpu_id, bool busy, uint64_t ts);
/* End what is open at the last timestamp seen; flush. 0 or -errno. */
int pft_close(struct pft *t);

/* pftrace_file.c: create path, read the clocks, pft_open, seed from the
 * queue map queues_fd (-1: none) (-1 and e set: exit 2 when path cannot
 * be created); and pft_close, fclose (-1 and e set on a write error; -1
 * with e->exit 0 when events were dropped). */
int pft_start(struct pft *t, const char *path, int queues_fd,
	      struct gp_err *e);
int pft_finish(struct pft *t, const char *path, struct gp_err *e);

#endif
