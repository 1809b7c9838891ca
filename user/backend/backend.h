/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The preemption backend: how one process's GPU work is stopped and let
 * go again, whatever the vendor. The daemon (its targets), the arbiter's
 * executor and the one-shot `gpreempt-ctl suspend` call only this; each
 * backend is one folder below (kfd/: the KFD debug-trap session; cuda/:
 * the CUDA driver's checkpoint lock; tests' stand-in in tests/unit/).
 *
 * A process is claimed by the first backend that recognises it (KFD: it
 * has /sys/class/kfd/kfd/proc/PID; CUDA: it maps libcuda.so.1). The
 * owner attaches it once (a warm struct gp_bproc), then suspends and
 * resumes all of its work or a subset (queue ids, where the backend has
 * queues), polls gp_bk_event_fd() and calls gp_bk_handle() on POLLIN and
 * on every tick, and releases it on every exit path (release may be
 * pending: poll gp_bk_release_poll() until 1, then gp_bk_free()).
 *
 * ASYNCHRONOUS COMPLETION. An operation that may wait for the target's
 * GPU work (CUDA's lock waits for the kernels in flight: 709 ms measured
 * behind a 1 s kernel, docs/cuda.md) never runs on the caller's thread:
 * gp_bk_suspend() then returns GP_BK_PENDING, op->ret is -EINPROGRESS, and
 * the result arrives later: event fd readable -> gp_bk_handle() ->
 * gp_bk_take_done() gives the finished operation exactly once. While one
 * is in flight the process is LOCKING and a second suspend or a resume
 * is refused with GP_EXIT_BUSY (retry after it), and a release waits for
 * it (pending) so that a lock that lands late is undone.
 *
 * THREADS. Every call of a process runs on its owner's thread (KFD's
 * DBG_TRAP ops are accepted only from the ptrace parent's thread).
 */
#ifndef GP_BACKEND_H
#define GP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "session.h"	/* struct session_op: one result type all the way */

/* gp_bk_suspend/_resume: the operation runs off the loop (see above). */
#define GP_BK_PENDING 256
#define GP_BK_MAX 4		/* backends in one set */
#define GP_BK_MAX_WHERE 16	/* places (GPUs, queues) one process lists */
#define GP_BK_UUID_LEN 48

enum gp_bk_state {
	GP_BK_RUNNING,		/* nothing of ours stops it */
	GP_BK_LOCKING,		/* a suspend is in flight (off the loop) */
	GP_BK_SUSPENDED,	/* all or some of its work is stopped */
	GP_BK_GONE,		/* it exited: only release and free left */
};

/* Where a process's work runs: one GPU, and one queue where known. */
struct gp_bk_where {
	uint32_t gpu_id;	/* KFD gpu_id; NVIDIA: hash of the UUID */
	uint32_t queue_id;	/* UINT32_MAX: the whole GPU (no queues) */
	uint32_t type;		/* KFD queue type, 0 */
	char uuid[GP_BK_UUID_LEN]; /* NVIDIA "GPU-...", "" elsewhere */
};

/* One finished asynchronous operation (gp_bk_take_done). */
struct gp_bk_done {
	struct session_op op;	/* op.call KFD_CALL_SUSPEND / _RESUME;
				 * op.q malloc'd or NULL: session_op_free() */
	int r;			/* as gp_bk_suspend would have returned */
	struct gp_err e;	/* when r is not 0 */
};

struct gp_backend;

/* One process a backend holds; each backend embeds it first. */
struct gp_bproc {
	struct gp_backend *b;
	pid_t pid;
};

struct gp_bk_ops {
	const char *name;	/* "kfd", "cuda": logs, status, metrics */
	/* What the kernel or driver does if the holder dies (SIGKILL). */
	const char *if_holder_dies;
	bool has_queues;	/* suspend/resume take queue ids */
	/* First use: open the device or load the library. 0 or -1 with e. */
	int (*open)(struct gp_backend *b, struct gp_err *e);
	void (*close)(struct gp_backend *b);
	/* Cheap, never waits on the process: 1 this backend's, 0 not. */
	bool (*claims)(struct gp_backend *b, pid_t pid);
	struct gp_bproc *(*attach)(struct gp_backend *b, pid_t pid,
				   struct gp_bproc **pending,
				   struct gp_err *e);
	int (*release)(struct gp_bproc *p);
	int (*release_poll)(struct gp_bproc *p);
	void (*free)(struct gp_bproc *p);
	int (*suspend)(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		       uint32_t grace, struct session_op *op,
		       struct gp_err *e);
	int (*resume)(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		      struct session_op *op, struct gp_err *e);
	bool (*take_done)(struct gp_bproc *p, struct gp_bk_done *out);
	int (*event_fd)(const struct gp_bproc *p);
	int (*handle)(struct gp_bproc *p, struct gp_err *e);
	enum gp_bk_state (*state)(const struct gp_bproc *p);
	/* KFD's DEBUG_RUNTIME_STATE_*; others: ENABLED once usable */
	uint32_t (*runtime)(const struct gp_bproc *p);
	/* Queues held suspended (KFD), 1 while locked (CUDA). */
	uint32_t (*held)(const struct gp_bproc *p);
	/* Queues known (KFD's last snapshot); 0 without queues. */
	uint32_t (*nqueues)(const struct gp_bproc *p);
	/* Where its work runs: up to max places, or -1: unknown (all). */
	int (*where)(const struct gp_bproc *p, struct gp_bk_where *w,
		     int max);
};

/* One backend instance: its operations and its own state. */
struct gp_backend {
	const struct gp_bk_ops *ops;
	void *priv;
	bool opened;
};

/* The backends a daemon or a one-shot holder may use, in claim order. */
struct gp_bk_set {
	struct gp_backend *b[GP_BK_MAX];
	int n;
};

/* The first backend of set that claims pid, or NULL. */
struct gp_backend *gp_bk_claim(const struct gp_bk_set *set, pid_t pid);
/* The set's backend named name ("kfd", "cuda"), or NULL. */
struct gp_backend *gp_bk_named(const struct gp_bk_set *set,
			       const char *name);
int gp_bk_open(struct gp_backend *b, struct gp_err *e);
void gp_bk_set_close(struct gp_bk_set *set);
const char *gp_bk_name(const struct gp_bproc *p);
const char *gp_bk_state_name(enum gp_bk_state s);

/*
 * Attach pid (the backend opened first). NULL on failure with e; when
 * undoing a partial attach cannot finish at once, *pending (if not NULL)
 * gets the process to finish with gp_bk_release_poll() and gp_bk_free().
 */
struct gp_bproc *gp_bk_attach(struct gp_backend *b, pid_t pid,
			      struct gp_bproc **pending, struct gp_err *e);
/* 1 released, 0 pending: gp_bk_release_poll() until 1, then free. */
int gp_bk_release(struct gp_bproc *p);
int gp_bk_release_poll(struct gp_bproc *p);
void gp_bk_free(struct gp_bproc *p);
/*
 * Suspend ids[0..n) (n == 0: all its work), or resume. 0, GP_EXIT_PARTIAL,
 * GP_BK_PENDING (gp_bk_take_done() later), or an exit code with e.
 */
int gp_bk_suspend(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		  uint32_t grace, struct session_op *op, struct gp_err *e);
int gp_bk_resume(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		 struct session_op *op, struct gp_err *e);
/* A finished pending operation, once (then false until the next). */
bool gp_bk_take_done(struct gp_bproc *p, struct gp_bk_done *out);
/* Poll for POLLIN; call gp_bk_handle() then and on every tick. */
int gp_bk_event_fd(const struct gp_bproc *p);
/*
 * Events: KFD's runtime handshake and ptrace stops, CUDA's completions,
 * the target's exit. 1 once the target is gone (state GONE), else 0; e
 * filled (and logged by the caller) on an unexpected error.
 */
int gp_bk_handle(struct gp_bproc *p, struct gp_err *e);
enum gp_bk_state gp_bk_state(const struct gp_bproc *p);
bool gp_bk_alive(const struct gp_bproc *p);
uint32_t gp_bk_runtime(const struct gp_bproc *p);
uint32_t gp_bk_held(const struct gp_bproc *p);
uint32_t gp_bk_nqueues(const struct gp_bproc *p);
int gp_bk_where(const struct gp_bproc *p, struct gp_bk_where *w, int max);
/*
 * Where p's work runs, as text for status and policy: each GPU once,
 * comma-separated, by UUID where the driver names one (NVIDIA), else as
 * 0x<gpu_id> (KFD); "" when unknown (all its GPUs) or none. Returns the
 * places gp_bk_where found, -1 unknown.
 */
int gp_bk_gpus_text(const struct gp_bproc *p, char *buf, size_t len);
/* What the backend's driver promises when the holder dies. */
const char *gp_bk_if_holder_dies(const struct gp_bproc *p);

#endif
