// SPDX-License-Identifier: GPL-2.0
/*
 * LAYER 3 of 3, queue operations: the ids a session holds suspended, and
 * one SUSPEND_QUEUES or RESUME_QUEUES of a subset with every queue's
 * result decoded. Calls down only: layer 2 (session.c: the snapshot, the
 * session's state) and user/kfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exitcodes.h"
#include "procfs.h"
#include "session_int.h"
#include "util.h"

/* ---- queues ----------------------------------------------------------- */

bool session_is_suspended(const struct session *s, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < s->n_held; i++)
		if (s->held[i] == id)
			return true;
	return false;
}

static int held_add(struct session *s, uint32_t id)
{
	uint32_t *p;

	if (session_is_suspended(s, id))
		return 0;
	if (s->n_held == s->cap_held) {
		p = realloc(s->held, (s->cap_held + 16) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->held = p;
		s->cap_held += 16;
	}
	s->held[s->n_held++] = id;
	return 0;
}

static void held_del(struct session *s, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < s->n_held; i++) {
		if (s->held[i] == id) {
			s->held[i] = s->held[--s->n_held];
			return;
		}
	}
}

void session_op_free(struct session_op *op)
{
	if (op) {
		free(op->q);
		op->q = NULL;
	}
}

/* Append ids not yet in the list (dedup keeps results one per queue). */
static uint32_t add_ids(uint32_t *dst, uint32_t n, const uint32_t *src,
			uint32_t m)
{
	uint32_t i, j;

	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++)
			if (dst[j] == src[i])
				break;
		if (j == n)
			dst[n++] = src[i];
	}
	return n;
}

/*
 * The shared body of suspend and resume: snapshot, build the id array,
 * one ioctl, decode every word.
 */
static int queue_op(struct session *s, enum kfd_call call,
		    const uint32_t *ids, uint32_t n, uint32_t grace,
		    struct session_op *op, struct gp_err *e)
{
	uint32_t *words = NULL, nw = 0, i, dummy = 0;
	int r;

	memset(op, 0, sizeof(*op));
	op->call = call;
	op->pid = s->pid;
	op->ret = -ESRCH;
	if (!session_alive(s)) {
		gp_err_set(e, GP_EXIT_TARGET, ESRCH, "pid %d has exited",
			   s->pid);
		return e->exit;
	}
	/* A queue created since the last snapshot is refused (INVALID)
	 * until a snapshot has cleared its EC_QUEUE_NEW. */
	if (session_snapshot(s, e)) {
		op->ret = -e->err;
		return e->exit;
	}
	op->snapshot_ns = s->kfd->last_ns;

	words = calloc(n + s->n_snap + s->n_held + 1, sizeof(*words));
	if (!words) {
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		op->ret = -ENOMEM;
		return e->exit;
	}
	if (n) {
		nw = add_ids(words, 0, ids, n);
	} else {
		if (call == KFD_CALL_RESUME)
			nw = add_ids(words, nw, s->held, s->n_held);
		for (i = 0; i < s->n_snap; i++)
			nw = add_ids(words, nw, &s->snap[i].queue_id, 1);
	}
	op->q = calloc(nw + 1, sizeof(*op->q));
	if (!op->q) {
		free(words);
		gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		op->ret = -ENOMEM;
		return e->exit;
	}
	/* nothing is done to a queue until the kernel says so */
	for (i = 0; i < nw; i++)
		op->q[i] = (struct session_qres){ words[i], KFD_Q_NOT_DONE };
	op->n = op->nq = nw;

	/* Called even with no queue: the kernel's permission checks (runtime
	 * enabled?) still run and tell the user what is wrong. */
	if (call == KFD_CALL_SUSPEND)
		r = kfd_dbg_suspend(s->kfd, s->pid, nw ? words : &dummy, nw,
				    grace);
	else
		r = kfd_dbg_resume(s->kfd, s->pid, nw ? words : &dummy, nw);
	op->ns = s->kfd->last_ns;
	op->ret = r;
	if (r < 0) {
		session_mark_gone_if(s, r);
		if ((r == -EPERM || r == -EACCES) &&
		    s->runtime_state != DEBUG_RUNTIME_STATE_ENABLED)
			gp_err_set(e, GP_EXIT_TARGET, -r,
				   "%s on pid %d failed: %s: the target's "
				   "runtime has not enabled debug support "
				   "(runtime state %s): ROCr calls "
				   "RUNTIME_ENABLE at start-up only with "
				   "KFD >= 1.13 and GPU firmware that "
				   "supports debugging; a process without a "
				   "ROCm runtime cannot be suspended",
				   kfd_call_name(call), s->pid, strerror(-r),
				   kfd_runtime_state_name(s->runtime_state));
		else
			kfd_err(e, call, s->pid, -r);
		free(words);
		return e->exit;
	}
	for (i = 0; i < nw; i++) {
		op->q[i].status = kfd_queue_word_status(words[i]);
		switch (op->q[i].status) {
		case KFD_Q_OK:
			op->n_ok++;
			if (call == KFD_CALL_SUSPEND)
				held_add(s, op->q[i].id);
			else
				held_del(s, op->q[i].id);
			break;
		case KFD_Q_INVALID:
			op->n_invalid++;
			if (call == KFD_CALL_RESUME)
				held_del(s, op->q[i].id);
			break;
		case KFD_Q_ERROR:
		case KFD_Q_NOT_DONE:	/* never from a status word */
			op->n_error++;
			break;
		}
	}
	free(words);
	if (op->n_invalid || op->n_error) {
		gp_err_set(e, GP_EXIT_PARTIAL, 0,
			   "%s on pid %d: %u of %u queues invalid, %u failed",
			   kfd_call_name(call), s->pid, op->n_invalid, nw,
			   op->n_error);
		return GP_EXIT_PARTIAL;
	}
	return GP_EXIT_OK;
}

int session_suspend(struct session *s, const uint32_t *ids, uint32_t n,
		    uint32_t grace_period, struct session_op *op,
		    struct gp_err *e)
{
	return queue_op(s, KFD_CALL_SUSPEND, ids, n, grace_period, op, e);
}

int session_resume(struct session *s, const uint32_t *ids, uint32_t n,
		   struct session_op *op, struct gp_err *e)
{
	return queue_op(s, KFD_CALL_RESUME, ids, n, 0, op, e);
}
