/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue feed: what puts queues into the watcher (qwatch.h) without
 * anyone sending `watch` requests. Pure (no BPF, no /proc): the daemon's
 * arbiter (user/arbiter/arbiter_queues.c) hands it
 *  - the embedded tracer's queue lifecycle events (struct gp_event:
 *    create with the CREATE_QUEUE arguments' write/read pointer
 *    addresses, destroy, exit), one call each: gp_qfeed_event();
 *  - for queues that existed before the daemon, one online process at a
 *    time: its KFD sysfs queues, what a tracer's queue map captured, and
 *    the debugfs MQD dump's addresses: gp_qfeed_seed().
 * Every queue of an online process that is not watched keeps a reason
 * (enum gp_qf_why), which `gpreempt-ctl policy` prints.
 */
#ifndef GP_QFEED_H
#define GP_QFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include "gpreempt.h"
#include "mqd.h"
#include "qwatch.h"

/* KFD_IOC_QUEUE_TYPE_COMPUTE_AQL (<linux/kfd_ioctl.h>): ROCr's queues.
 * Only these have amd_queue_t dispatch-id counters to watch. */
#define GP_QF_IOC_AQL 2
/* enum kfd_queue_type's compute (sysfs "type"; the MQD dump's kind). */
#define GP_QF_KFD_COMPUTE 0

/* Why a queue of an online process is not watched. */
enum gp_qf_why {
	GP_QF_WATCHED = 0,
	GP_QF_NOT_AQL,		/* SDMA or PM4: no dispatch-id counters */
	GP_QF_NO_DEBUGFS,	/* created before the daemon; no MQD dump */
	GP_QF_DEBUGFS_DENIED,	/* ... dump there but not readable */
	GP_QF_AMBIGUOUS,	/* ... the dump cannot say which queue is it */
	GP_QF_MQD_UNKNOWN,	/* ... MQD layout not known for its GPU */
	GP_QF_NOT_IN_MQD,	/* ... the dump does not list it */
	GP_QF_TRACER_OFF,	/* created after start, tracer not loaded */
	GP_QF_NOT_CAPTURED,	/* created after start, no create seen */
	GP_QF_FULL,		/* the watcher is full */
	GP_QF_WHY_MAX,
};

/* Short token for the protocol ("no-debugfs") and a sentence. */
const char *gp_qf_why_name(enum gp_qf_why w);
const char *gp_qf_why_text(enum gp_qf_why w);

/* What one event did. */
enum gp_qf_result {
	GP_QF_IGNORED = 0,	/* not a queue lifecycle event */
	GP_QF_ADDED,		/* successful create of an online AQL queue */
	GP_QF_EXISTS,		/* ... already watched (seeded) */
	GP_QF_CREATE_FAILED,	/* ret < 0: no queue exists, nothing added */
	GP_QF_OFFLINE,		/* creator not online */
	GP_QF_SKIPPED,		/* not AQL or no addresses */
	GP_QF_NO_ROOM,		/* watcher full */
	GP_QF_REMOVED,		/* destroy or exit of watched queue(s) */
	GP_QF_UNKNOWN,		/* destroy/exit of nothing watched */
};

struct gp_qfeed_stats {
	uint64_t creates, added, create_failed, offline, skipped, no_room;
	uint64_t destroys, exits, removed;
	uint64_t seeded_capture, seeded_mqd;
};

#define GP_QF_MAX_WHY 256

struct gp_qf_note {
	int pid;
	uint32_t queue_id;
	enum gp_qf_why why;
};

struct gp_qfeed {
	struct gp_qwatch *w;
	/* Is pid online? (the daemon classifies on demand) */
	bool (*online)(void *ctx, int pid);
	void *ctx;
	struct gp_qfeed_stats st;
	int n_notes;
	struct gp_qf_note notes[GP_QF_MAX_WHY];
};

void gp_qfeed_init(struct gp_qfeed *f, struct gp_qwatch *w,
		   bool (*online)(void *, int), void *ctx);

/*
 * One tracer event. Create (ret == 0, an online creator, an AQL queue with
 * both addresses): the queue is watched. Destroy (ret == 0): that queue
 * is not; exit: none of the process's. *ended_busy is set when a removal
 * left a process that was busy with nothing watched: the caller ends the
 * watcher's busy for e->pid itself (qwatch.h).
 */
enum gp_qf_result gp_qfeed_event(struct gp_qfeed *f, const struct gp_event *e,
				 bool *ended_busy);

/* One of the process's queues as KFD's sysfs lists it (queues.h). */
struct gp_qf_sysq {
	uint32_t queue_id;
	uint32_t gpu_id;
	uint32_t type;		/* enum kfd_queue_type: 0 compute */
};

/* A tracer's capture of a queue (gp_queue_val): 0 addresses if none. */
typedef bool (*gp_qf_capture_fn)(void *ctx, int pid, uint32_t gpu_id,
				 uint32_t queue_id, uint64_t *wptr,
				 uint64_t *rptr);

struct gp_qf_mqd {
	int err;		/* gp_mqd_read_addrs's -errno, 0 if read */
	int undecoded;		/* compute MQDs of unknown layout */
	const struct gp_mqd_addr *a;
	size_t n;
};

/*
 * Seed one online process's existing queues: a tracer's capture first
 * (captures[] in order: the daemon's own probe, a running gpreempt-trace's
 * pinned map), then the MQD dump (wptr_poll_addr / rptr_report_addr of the
 * row with that queue id). Every queue left unwatched gets a note.
 * Returns the number of queues added.
 */
int gp_qfeed_seed(struct gp_qfeed *f, int pid, const struct gp_qf_sysq *q,
		  size_t nq, const gp_qf_capture_fn *captures,
		  void *const *capture_ctx, size_t ncaptures,
		  const struct gp_qf_mqd *mqd);

/* The recorded reason for (pid, queue_id), or GP_QF_WHY_MAX if none. */
enum gp_qf_why gp_qfeed_why(const struct gp_qfeed *f, int pid,
			    uint32_t queue_id);
void gp_qfeed_note(struct gp_qfeed *f, int pid, uint32_t queue_id,
		   enum gp_qf_why why);
/* Forget a process's notes (exit, reclassified). */
void gp_qfeed_forget(struct gp_qfeed *f, int pid);
/* Is (pid, queue_id) watched? */
bool gp_qfeed_watched(const struct gp_qfeed *f, int pid, uint32_t queue_id);

#endif
