/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue watcher: tells from outside, without attaching or stopping
 * it, whether an online process has AQL packets in flight.
 *
 * ROCr points KFD's CREATE_QUEUE write_pointer_address /
 * read_pointer_address at the queue's amd_queue_t write_dispatch_id and
 * read_dispatch_id: 64-bit packet counters in the process's own memory;
 * the producer advances the write one, the CP firmware the read one
 * (docs/arbiter.md has the sources and versions). A queue has work in
 * flight while write > read.
 *
 * One process_vm_readv(2) per process per poll reads the two counters of
 * every watched queue of that process (needs ptrace-read access: root,
 * or the same uid without Yama restrictions). No ptrace stop, no signal.
 *
 * read == write is not idle yet: the CP advances the read index when it
 * takes a packet, so the last kernel may still run. A queue is idle when
 * read == write and its last packet's completion signal, if it has one,
 * is 0 (qsignal.h; tested once per new write_dispatch_id). A last packet
 * without a signal leaves the process idle but "unproven".
 */
#ifndef GP_QWATCH_H
#define GP_QWATCH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * amd_queue_t offsets (ROCr runtime/hsa-runtime/inc/amd_hsa_queue.h,
 * x86-64 HSA_LARGE_MODEL): hsa_queue_t is 40 bytes, then caps (4),
 * reserved1[3] (12) -> write_dispatch_id at 56; then 4 x u32 (16),
 * max_legacy_doorbell_dispatch_id_plus_1 (8), legacy_doorbell_lock (4),
 * reserved2[9] (36) -> read_dispatch_id at 128. Used by the L1 stand-in
 * and by anything that only knows the queue's base (the MQD dump gives
 * the counters' own addresses and needs none of this).
 */
#define GP_AMDQ_WRITE_DISPATCH_ID 56
#define GP_AMDQ_READ_DISPATCH_ID 128
#define GP_AMDQ_ALIGN 64

#define GP_QW_MAX_PROCS 64
#define GP_QW_MAX_QUEUES 128	/* per process: 256 iovecs < IOV_MAX */

struct gp_qw_queue {
	uint32_t queue_id;
	uint64_t wptr_addr, rptr_addr;	/* in the watched process */
	uint64_t write, read;		/* last values read */
	/* write_dispatch_id at which the last packet was proven done (its
	 * completion signal 0), or found without a signal: not re-tested
	 * until write moves (qsignal.h) */
	uint64_t tested_write;
	bool nosig;			/* that last packet had no signal */
};

struct gp_qw_proc {
	int pid;
	int nq;
	bool busy;
	int err;			/* last poll's -errno, 0 when read */
	uint64_t polls, busy_polls;
	/* idle but unproven: a last packet without a completion signal
	 * (HIP's ordinary dispatches); the caller applies its grace */
	bool unproven;
	struct gp_qw_queue q[GP_QW_MAX_QUEUES];
};

#define GP_QW_MAX_UNWATCHED 16

/* A process no longer watched and never re-added (its reads got stuck:
 * a page that never resolves); bounded, oldest replaced. */
struct gp_qw_unwatched {
	int pid;
	const char *why;	/* static string */
};

struct gp_qwatch {
	int n;
	int n_unw;
	struct gp_qw_unwatched unw[GP_QW_MAX_UNWATCHED];
	uint64_t syscalls;
	uint64_t sig_tests;		/* completion-signal tests run */
	struct gp_qw_proc p[GP_QW_MAX_PROCS];
};

/* What a poll saw change, for the caller (the daemon: busy/idle on the
 * policy with the watcher as the source; the lost ones: log). */
struct gp_qw_cb {
	void (*busy)(void *ctx, int pid, bool busy);
	/* A queue's counters could not be read (-EFAULT: freed) and it
	 * was dropped; or the whole process is gone (-ESRCH, queue_id
	 * UINT32_MAX) or not readable (-EPERM). */
	void (*lost)(void *ctx, int pid, uint32_t queue_id, int err);
	void *ctx;
	/* Optional: called before reading pid's memory (the off-loop
	 * poll publishes which process it is on). */
	void (*reading)(void *ctx, int pid);
};

void gp_qwatch_init(struct gp_qwatch *w);
/* Watches one queue. 0, -EEXIST (same pid and queue id), -ENOSPC, or
 * -EACCES for a pid marked unwatched. */
int gp_qwatch_add(struct gp_qwatch *w, int pid, uint32_t queue_id,
		  uint64_t wptr_addr, uint64_t rptr_addr);
/* Stops watching one queue (DESTROY_QUEUE) or a process (exit).
 * Returns whether something was removed. A process with no queue left
 * is removed; the caller ends its busy itself. */
bool gp_qwatch_remove(struct gp_qwatch *w, int pid, uint32_t queue_id);
bool gp_qwatch_remove_pid(struct gp_qwatch *w, int pid);
/*
 * Reads every watched process's counters, one process_vm_readv each, and
 * reports busy edges and lost queues through cb. Returns the number of
 * processes busy after the poll.
 */
int gp_qwatch_poll(struct gp_qwatch *w, const struct gp_qw_cb *cb);
/* Stops watching pid for good (why: a static string); remembered in a
 * bounded list so that it is not added again. */
void gp_qwatch_unwatch(struct gp_qwatch *w, int pid, const char *why);
const char *gp_qwatch_unwatched(const struct gp_qwatch *w, int pid);
struct gp_qw_proc *gp_qwatch_find(const struct gp_qwatch *w, int pid);

#endif
