// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend: the checkpoint lock behind backend.h (bk_cuda.h), per
 * process: attach, suspend, resume and the lock's life off the loop. The
 * backend object itself (its conf, start, the whole-backend calls) is in
 * bk_cuda_be.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bk_cuda.h"
#include "bk_cuda_int.h"
#include "cuda_api.h"
#include "cuda_guardian.h"
#include "cuda_find.h"
#include "cuda_journal.h"
#include "cuda_lock.h"
#include "cuda_nvml.h"
#include "exitcodes.h"
#include "kfd.h"
#include "offjob.h"
#include "util.h"

/* A lock that has not returned this long past its own timeout: the
 * driver is stuck; the caller is told, the journal keeps the entry. */
#define LOCK_GRACE_NS (2ULL * 1000000000ULL)

/* Where it runs (NVML), off the loop at attach. */
struct placejob {
	pid_t pid;
	int efd;
	int n;
	struct gp_bk_where w[GP_BK_MAX_WHERE];
};

struct cproc {
	struct gp_bproc base;	/* first */
	int pidfd, efd, epfd;
	uint64_t start;
	bool locked, gone, stuck, verified;
	struct gp_offjob *job;	/* a lock in flight */
	struct gp_offjob *pjob;	/* placement in flight */
	bool have_done;
	struct gp_bk_done done;
	int nw;			/* -1: unknown (all GPUs) */
	struct gp_bk_where w[GP_BK_MAX_WHERE];
};

static struct cproc *cp(const struct gp_bproc *p)
{
	return (struct cproc *)p;
}

/* e filled; returns its exit code (the interface returns exit codes). */
static int refuse(struct gp_err *e, int exit, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(struct gp_err *e, int exit, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_err_vset(e, exit, err, fmt, ap);
	va_end(ap);
	return exit;
}

static int cuda_open(struct gp_backend *b, struct gp_err *e)
{
	return gp_cuda_load(&be(b)->api, e);
}

static void cuda_close(struct gp_backend *b)
{
	/* libcuda stays mapped: a stuck lock thread may still be in it */
}

/* Any process not claimed before (KFD's go first): the check that it
 * maps libcuda reads its memory map, so it runs in the lock's job. */
static bool cuda_claims(struct gp_backend *b, pid_t pid)
{
	return b->opened;
}

static void place_fn(void *arg)
{
	struct placejob *j = arg;
	uint64_t one = 1;

	j->n = gp_nvml_gpus_of(j->pid, j->w, GP_BK_MAX_WHERE);
	if (write(j->efd, &one, sizeof(one)) < 0) {
		/* the tick looks anyway */
	}
}

static void place_free(void *arg)
{
	struct placejob *j = arg;

	close(j->efd);
	free(j);
}

static struct gp_bproc *cuda_attach(struct gp_backend *b, pid_t pid,
				    struct gp_bproc **pending,
				    struct gp_err *e)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct placejob *pj;
	struct cproc *p = calloc(1, sizeof(*p));

	if (!p) {
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	p->base.b = b;
	p->base.pid = pid;
	p->nw = -1;
	p->efd = p->epfd = -1;
	/* held through a pidfd, never a bare pid */
	p->pidfd = syscall(SYS_pidfd_open, pid, 0);
	p->start = gp_proc_start_time(pid);
	if (p->pidfd < 0 || !p->start) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH, "no process %d", pid);
		goto fail;
	}
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->efd < 0 || p->epfd < 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->efd, &ev) ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->pidfd, &ev)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "eventfd/epoll: %s",
			   strerror(errno));
		goto fail;
	}
	/* placement off the loop: NVML is a driver call */
	pj = calloc(1, sizeof(*pj));
	if (pj && (pj->efd = dup(p->efd)) >= 0) {
		pj->pid = pid;
		p->pjob = gp_offjob_start(place_fn, pj, place_free,
					  monotonic_ns(), NULL);
	} else {
		free(pj);
	}
	return &p->base;
fail:
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->efd >= 0)
		close(p->efd);
	if (p->epfd >= 0)
		close(p->epfd);
	free(p);
	return NULL;
}

static void op_init(struct session_op *op, enum kfd_call call, pid_t pid)
{
	memset(op, 0, sizeof(*op));
	op->call = call;
	op->pid = pid;
}

/*
 * A CUDA process is one unit: its result is one entry, id 0, so the
 * wire format (requested=1 with a one-entry queue list) stays KFD's.
 */
static void op_whole(struct session_op *op, enum kfd_qstatus st)
{
	op->n = 1;
	op->n_ok = st == KFD_Q_OK;
	op->n_invalid = st == KFD_Q_INVALID;
	op->n_error = st == KFD_Q_ERROR || st == KFD_Q_NOT_DONE;
	free(op->q);
	op->q = calloc(1, sizeof(*op->q));
	op->nq = op->q != NULL;
	if (op->q)
		op->q[0] = (struct session_qres){ .id = 0, .status = st };
	else
		op->n = 0;	/* (requested must match the list) */
}

/* The unlock, on the caller's thread (0.12-0.22 ms measured, it waits
 * for no GPU work). 0, or an exit code with e. */
static int unlock_now(struct cproc *p, struct session_op *op,
		      struct gp_err *e)
{
	struct cuda_be *c = be(p->base.b);
	uint64_t t0 = monotonic_ns();
	int res = gp_cuda_unlock(&c->api, p->base.pid);

	op->ns = monotonic_ns() - t0;
	if (res == GP_CU_SUCCESS || res == GP_CU_ILLEGAL_STATE ||
	    res == GP_CU_OPERATING_SYSTEM) {
		/* unlocked; not locked (after all); or gone with its lock */
		p->locked = false;
		p->stuck = false;
		gp_cjournal_remove(c->journal, p->base.pid, p->start);
		op->ret = res == GP_CU_SUCCESS;
		op_whole(op, op->ret ? KFD_Q_OK : KFD_Q_INVALID);
		return 0;
	}
	op->ret = -EIO;
	op_whole(op, KFD_Q_ERROR);
	gp_cuda_err(e, "unlock", p->base.pid, res, c->timeout_ms);
	return e->exit;
}

/* Take a finished lock job's result into p->done. */
static void lock_finished(struct cproc *p)
{
	struct gp_cuda_lockjob *j = gp_offjob_arg(p->job);
	struct gp_bk_done *d = &p->done;
	struct cuda_be *c = be(p->base.b);

	memset(d, 0, sizeof(*d));
	op_init(&d->op, KFD_CALL_SUSPEND, p->base.pid);
	d->op.ns = j->ns;
	if (j->stage != GP_CL_NOT_CUDA && j->stage != GP_CL_GONE)
		p->verified = true;
	if (j->stage == GP_CL_CALLED && j->res == GP_CU_SUCCESS) {
		p->locked = true;
		d->op.ret = 1;
		op_whole(&d->op, KFD_Q_OK);
	} else {
		d->op.ret = -EIO;
		op_whole(&d->op, KFD_Q_ERROR);
		if (j->stage == GP_CL_NOT_CUDA)
			gp_err_set(&d->e, GP_EXIT_TARGET, EINVAL, "pid %d does "
				   "not map libcuda.so.1: not a CUDA process "
				   "(and no KFD process): pick a process that "
				   "uses the GPU", p->base.pid);
		else if (j->stage == GP_CL_GONE)
			gp_err_set(&d->e, GP_EXIT_TARGET, ESRCH, "pid %d exited "
				   "(or is another process now): nothing "
				   "locked", p->base.pid);
		else if (j->stage == GP_CL_JOURNAL)
			gp_err_set(&d->e, GP_EXIT_FAILURE, j->err, "cannot "
				   "record the hold in %s (%s): not locked, "
				   "since a lock outlives its holder; make its "
				   "directory writable or pass --cuda-journal",
				   c->journal, strerror(j->err));
		else
			gp_cuda_err(&d->e, "lock", p->base.pid, j->res,
				    c->timeout_ms);
		d->r = d->e.exit;
	}
	p->have_done = true;
	gp_offjob_put(p->job);
	p->job = NULL;
}

static int cuda_handle(struct gp_bproc *bp, struct gp_err *e)
{
	struct cproc *p = cp(bp);
	struct pollfd f = { .fd = p->pidfd, .events = POLLIN };
	uint64_t v, now = monotonic_ns();
	struct cuda_be *c = be(bp->b);

	while (read(p->efd, &v, sizeof(v)) == sizeof(v))
		;
	if (p->job && gp_offjob_done(p->job)) {
		lock_finished(p);
	} else if (p->job && gp_offjob_late(p->job, now, c->timeout_ms *
					    1000000ULL + LOCK_GRACE_NS)) {
		/* left to its thread; held as if locked: a resume unlocks
		 * (401 if it never landed), the journal keeps it */
		gp_offjob_put(p->job);
		p->job = NULL;
		p->locked = p->stuck = true;
		memset(&p->done, 0, sizeof(p->done));
		op_init(&p->done.op, KFD_CALL_SUSPEND, bp->pid);
		p->done.op.ret = -ETIMEDOUT;
		op_whole(&p->done.op, KFD_Q_ERROR);
		gp_err_set(&p->done.e, GP_EXIT_LOCK_TIMEOUT, ETIMEDOUT, "CUDA "
			   "lock of pid %d has not returned %u ms past its "
			   "timeout: the driver may be stuck; treated as "
			   "locked, a resume unlocks it", bp->pid,
			   (unsigned)(LOCK_GRACE_NS / 1000000));
		p->done.r = GP_EXIT_LOCK_TIMEOUT;
		p->have_done = true;
	}
	if (p->pjob && gp_offjob_done(p->pjob)) {
		struct placejob *j = gp_offjob_arg(p->pjob);

		p->nw = j->n;
		if (j->n > 0)
			memcpy(p->w, j->w, j->n * sizeof(j->w[0]));
		gp_offjob_put(p->pjob);
		p->pjob = NULL;
	}
	if (!p->gone && poll(&f, 1, 0) > 0) {
		p->gone = true;
		/* its lock went with it */
		if (p->locked)
			gp_cjournal_remove(c->journal, bp->pid, p->start);
		p->locked = false;
	}
	return p->gone;
}

/* Queue ids given for a CUDA process: it is locked or unlocked whole. */
static int whole_only(struct gp_err *e, pid_t pid, const char *verb)
{
	return refuse(e, GP_EXIT_USAGE, EINVAL, "pid %d is a CUDA process: it "
		      "has no queue ids; %s it whole (no --queues)", pid, verb);
}

static int cuda_suspend(struct gp_bproc *bp, const uint32_t *ids,
			uint32_t n, uint32_t grace, struct session_op *op,
			struct gp_err *e)
{
	struct cproc *p = cp(bp);
	struct cuda_be *c = be(bp->b);
	int err = 0;

	op_init(op, KFD_CALL_SUSPEND, bp->pid);
	if (n)
		return whole_only(e, bp->pid, "suspend");
	if (p->gone)
		return refuse(e, GP_EXIT_TARGET, ESRCH, "pid %d exited",
				  bp->pid);
	if (p->job)
		return refuse(e, GP_EXIT_BUSY, EBUSY, "pid %d: a CUDA lock "
				  "is in progress (it waits for the GPU work in "
				  "flight, up to %u ms): retry after it",
				  bp->pid, c->timeout_ms);
	if (p->locked) {
		op_whole(op, KFD_Q_INVALID);	/* held already */
		return 0;
	}
	p->job = gp_cuda_lock_start(&c->api, c->journal, bp->pid, p->start,
				    c->timeout_ms, p->verified, p->efd, &err);
	if (!p->job)
		return refuse(e, GP_EXIT_FAILURE, -err, "cannot start the "
				   "CUDA lock's thread: %s", strerror(-err));
	op->ret = -EINPROGRESS;
	return GP_BK_PENDING;
}

static int cuda_resume(struct gp_bproc *bp, const uint32_t *ids,
		       uint32_t n, struct session_op *op, struct gp_err *e)
{
	struct cproc *p = cp(bp);

	op_init(op, KFD_CALL_RESUME, bp->pid);
	if (n)
		return whole_only(e, bp->pid, "resume");
	if (p->job)
		return refuse(e, GP_EXIT_BUSY, EBUSY, "pid %d: a CUDA lock "
				  "is in progress: its resume has to wait for "
				  "it (retried)", bp->pid);
	if (!p->locked || p->gone)
		return 0;	/* nothing held */
	return unlock_now(p, op, e);
}

static bool cuda_take_done(struct gp_bproc *bp, struct gp_bk_done *out)
{
	struct cproc *p = cp(bp);

	if (!p->have_done)
		return false;
	*out = p->done;
	p->have_done = false;
	return true;
}

static int cuda_release_poll(struct gp_bproc *bp)
{
	struct cproc *p = cp(bp);
	struct session_op op;
	struct gp_err e = {};

	cuda_handle(bp, &e);
	if (p->job)
		return 0;	/* a lock that lands is undone next */
	if (p->locked && !p->gone) {
		op_init(&op, KFD_CALL_RESUME, bp->pid);
		unlock_now(p, &op, &e);
		session_op_free(&op);
	}
	return 1;
}

static int cuda_release(struct gp_bproc *bp)
{
	return cuda_release_poll(bp);
}

static void cuda_free(struct gp_bproc *bp)
{
	struct cproc *p = cp(bp);

	/* a job still running frees its own argument when it returns */
	gp_offjob_put(p->job);
	gp_offjob_put(p->pjob);
	close(p->pidfd);
	close(p->efd);
	close(p->epfd);
	free(p);
}

static int cuda_event_fd(const struct gp_bproc *bp)
{
	return cp(bp)->epfd;
}

static enum gp_bk_state cuda_state(const struct gp_bproc *bp)
{
	const struct cproc *p = cp(bp);

	if (p->gone)
		return GP_BK_GONE;
	if (p->job)
		return GP_BK_LOCKING;
	return p->locked ? GP_BK_SUSPENDED : GP_BK_RUNNING;
}

static uint32_t cuda_runtime(const struct gp_bproc *bp)
{
	return DEBUG_RUNTIME_STATE_ENABLED;	/* no handshake to wait for */
}

static uint32_t cuda_held(const struct gp_bproc *bp)
{
	/* locking counts: a watchdog's resume then waits for it */
	return cp(bp)->locked || cp(bp)->job;
}

static int cuda_where(const struct gp_bproc *bp, struct gp_bk_where *w,
		      int max)
{
	const struct cproc *p = cp(bp);
	int n = p->nw < max ? p->nw : max;

	if (n > 0)
		memcpy(w, p->w, n * sizeof(*w));
	return p->nw < 0 ? -1 : n;
}

const struct gp_bk_ops gp_bk_cuda_ops = {
	.name = "cuda",
	.if_holder_dies = "nothing: a CUDA lock outlives its holder (measured"
			  " on an H200, driver 580); the journal and the "
			  "guardian unlock it",
	.has_queues = false,
	.open = cuda_open,
	.close = cuda_close,
	.claims = cuda_claims,
	.attach = cuda_attach,
	.release = cuda_release,
	.release_poll = cuda_release_poll,
	.free = cuda_free,
	.suspend = cuda_suspend,
	.resume = cuda_resume,
	.take_done = cuda_take_done,
	.event_fd = cuda_event_fd,
	.handle = cuda_handle,
	.state = cuda_state,
	.runtime = cuda_runtime,
	.held = cuda_held,
	.where = cuda_where,
};
