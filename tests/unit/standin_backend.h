/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A STAND-IN backend (backend.h) for L0/L1 tests of the daemon's hold
 * path: it claims every pid, attaches with no driver, and its suspend is
 * asynchronous as CUDA's is (GP_BK_PENDING), completed only when the test
 * says so (standin_bk_complete), through a real eventfd. Resume is
 * immediate; a resume or second suspend while one is pending is refused
 * with GP_EXIT_BUSY; a release while pending stays pending. Nothing here
 * claims to be a GPU driver's behaviour.
 */
#ifndef GP_TEST_STANDIN_BACKEND_H
#define GP_TEST_STANDIN_BACKEND_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backend.h"
#include "exitcodes.h"
#include "kfd.h"

struct standin_proc {
	struct gp_bproc base;
	int efd;
	bool pending, held, have_done, gone;
	struct gp_bk_done done;
	int suspends, resumes, releases;
};

static struct standin_proc *sp(const struct gp_bproc *p)
{
	return (struct standin_proc *)p;
}

static bool standin_claims(struct gp_backend *b, pid_t pid)
{
	return true;
}

static struct gp_bproc *standin_attach(struct gp_backend *b, pid_t pid,
				       struct gp_bproc **pending,
				       struct gp_err *e)
{
	struct standin_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base.b = b;
	p->base.pid = pid;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return &p->base;
}

static int standin_release_poll(struct gp_bproc *bp)
{
	struct standin_proc *p = sp(bp);

	if (p->pending)
		return 0;
	p->held = false;
	p->releases++;
	return 1;
}

static void standin_free(struct gp_bproc *bp)
{
	close(sp(bp)->efd);
	free(bp);
}

static void standin_whole(struct session_op *op, enum kfd_call call,
			  pid_t pid, bool ok)
{
	memset(op, 0, sizeof(*op));
	op->call = call;
	op->pid = pid;
	op->ret = ok ? 1 : -EIO;
	op->n = 1;
	op->n_ok = ok;
	op->n_error = !ok;
	op->q = calloc(1, sizeof(*op->q));
	op->nq = 1;
	op->q[0].status = ok ? KFD_Q_OK : KFD_Q_ERROR;
}

static int standin_suspend(struct gp_bproc *bp, const uint32_t *ids,
			   uint32_t n, uint32_t grace, struct session_op *op,
			   struct gp_err *e)
{
	struct standin_proc *p = sp(bp);

	memset(op, 0, sizeof(*op));
	if (p->pending)
		return (gp_err_set(e, GP_EXIT_BUSY, EBUSY, "stand-in: pending"),
			GP_EXIT_BUSY);
	p->pending = true;
	p->suspends++;
	op->ret = -EINPROGRESS;
	return GP_BK_PENDING;
}

static int standin_resume(struct gp_bproc *bp, const uint32_t *ids,
			  uint32_t n, struct session_op *op, struct gp_err *e)
{
	struct standin_proc *p = sp(bp);

	memset(op, 0, sizeof(*op));
	if (p->pending)
		return (gp_err_set(e, GP_EXIT_BUSY, EBUSY, "stand-in: a lock "
				  "is in progress"), GP_EXIT_BUSY);
	if (p->held) {
		standin_whole(op, KFD_CALL_RESUME, bp->pid, true);
		p->held = false;
		p->resumes++;
	}
	return 0;
}

/* The test finishes the pending suspend: ok or failed (exit 13). */
static inline void standin_bk_complete(struct gp_bproc *bp, bool ok)
{
	struct standin_proc *p = sp(bp);
	uint64_t one = 1;

	p->pending = false;
	p->held = ok;
	memset(&p->done, 0, sizeof(p->done));
	standin_whole(&p->done.op, KFD_CALL_SUSPEND, bp->pid, ok);
	if (!ok) {
		gp_err_set(&p->done.e, GP_EXIT_LOCK_TIMEOUT, ETIMEDOUT,
			   "stand-in: timed out");
		p->done.r = GP_EXIT_LOCK_TIMEOUT;
	}
	p->have_done = true;
	if (write(p->efd, &one, sizeof(one)) != sizeof(one))
		p->have_done = true;
}

static bool standin_take_done(struct gp_bproc *bp, struct gp_bk_done *out)
{
	struct standin_proc *p = sp(bp);

	if (!p->have_done)
		return false;
	*out = p->done;
	p->have_done = false;
	return true;
}

static int standin_event_fd(const struct gp_bproc *bp)
{
	return sp(bp)->efd;
}

static int standin_handle(struct gp_bproc *bp, struct gp_err *e)
{
	uint64_t v;

	while (read(sp(bp)->efd, &v, sizeof(v)) == sizeof(v))
		;
	return sp(bp)->gone;
}

static enum gp_bk_state standin_state(const struct gp_bproc *bp)
{
	const struct standin_proc *p = sp(bp);

	if (p->gone)
		return GP_BK_GONE;
	return p->pending ? GP_BK_LOCKING : p->held ? GP_BK_SUSPENDED :
						      GP_BK_RUNNING;
}

static uint32_t standin_runtime(const struct gp_bproc *bp)
{
	return DEBUG_RUNTIME_STATE_ENABLED;
}

static uint32_t standin_held(const struct gp_bproc *bp)
{
	return sp(bp)->held || sp(bp)->pending;
}

static const struct gp_bk_ops standin_ops = {
	.name = "standin",
	.if_holder_dies = "stand-in: nothing (a test double)",
	.claims = standin_claims,
	.attach = standin_attach,
	.release = standin_release_poll,
	.release_poll = standin_release_poll,
	.free = standin_free,
	.suspend = standin_suspend,
	.resume = standin_resume,
	.take_done = standin_take_done,
	.event_fd = standin_event_fd,
	.handle = standin_handle,
	.state = standin_state,
	.runtime = standin_runtime,
	.held = standin_held,
};

static struct gp_backend standin_backend = { .ops = &standin_ops,
					     .opened = true };

#endif
