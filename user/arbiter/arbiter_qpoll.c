// SPDX-License-Identifier: GPL-2.0
/*
 * The queue watcher's poll, off the loop (guide: the loop never waits on
 * another process's memory). process_vm_readv and the completion-signal
 * read (qsignal.c) fault the target's pages in; a page that never
 * resolves (a userfaultfd range nobody serves, a stalled FUSE mapping)
 * would hold the daemon there. So each poll copies the watched
 * processes into a job off the loop (offjob.h); the loop merges the
 * copy at a later tick and replays its events. A
 * job not done within ARB_QPOLL_DEADLINE_NS leaves its thread behind: the
 * process it was reading is unwatched for good and a fresh job polls the
 * rest.
 *
 * The stuck thread does not keep the daemon alive. handle_userfault()
 * (fs/userfaultfd.c, userfaultfd_get_blocking_state()) sleeps
 * TASK_KILLABLE when the fault carries FAULT_FLAG_KILLABLE, and
 * faultin_page() (mm/gup.c) sets it whenever the caller can drop the
 * mmap lock (a "locked" argument), which process_vm_rw_single_vec()
 * (mm/process_vm_access.c) passes to pin_user_pages_remote(). Read in
 * the v6.0-era sources; on 6.18 tests/unit/test_policy_qstuck.c shows it:
 * SIGTERM still ends the daemon with a reader in the fault.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_int.h"
#include "offjob.h"

#define ARB_QP_MAX_EV (3 * GP_QW_MAX_PROCS)

struct arb_qpoll {	/* a job's (offjob.h) argument and result */
	atomic_int cur_pid;	/* the process being read, 0 before */
	int n_ev;
	struct arb_qp_ev {
		int pid;
		uint32_t qid;
		int err;
		int busy;	/* 0/1: a busy edge; -1: a lost queue */
	} ev[ARB_QP_MAX_EV];
	struct gp_qwatch w;	/* the copy; only .n procs are valid */
};

static void add_ev(struct arb_qpoll *j, int pid, uint32_t qid, int err,
		   int busy)
{
	if (j->n_ev < ARB_QP_MAX_EV)
		j->ev[j->n_ev++] = (struct arb_qp_ev){ pid, qid, err, busy };
}

static void on_busy(void *ctx, int pid, bool busy)
{
	add_ev(ctx, pid, 0, 0, busy);
}

static void on_lost(void *ctx, int pid, uint32_t qid, int err)
{
	add_ev(ctx, pid, qid, err, -1);
}

static void on_reading(void *ctx, int pid)
{
	atomic_store(&((struct arb_qpoll *)ctx)->cur_pid, pid);
}

static void run(void *arg)
{
	struct arb_qpoll *j = arg;
	const struct gp_qw_cb cb = { on_busy, on_lost, j, on_reading };

	gp_qwatch_poll(&j->w, &cb);
}

struct gp_offjob *arb_qpoll_start(const struct gp_qwatch *w, uint64_t now)
{
	struct arb_qpoll *j = malloc(sizeof(*j));

	if (!j)
		return NULL;
	atomic_init(&j->cur_pid, 0);
	j->n_ev = 0;
	j->w.n = w->n;
	j->w.n_unw = 0;
	j->w.syscalls = w->syscalls;
	j->w.sig_tests = w->sig_tests;
	memcpy(j->w.p, w->p, sizeof(w->p[0]) * w->n);
	return gp_offjob_start(run, j, free, now, NULL);
}

int arb_qpoll_current(const struct gp_offjob *job)
{
	struct arb_qpoll *j = gp_offjob_arg(job);

	return atomic_load(&j->cur_pid);
}

static struct gp_qw_queue *find_q(struct gp_qw_proc *p, uint32_t id)
{
	for (int i = 0; i < p->nq; i++)
		if (p->q[i].queue_id == id)
			return &p->q[i];
	return NULL;
}

/*
 * Into the live watcher w, by pid and queue id: queues added since the
 * copy stay, processes and queues removed since are not brought back;
 * the events are replayed through cb (a busy edge only for a process
 * still watched, an end of busy always).
 */
void arb_qpoll_merge(struct gp_offjob *job, struct gp_qwatch *w,
		     const struct gp_qw_cb *cb)
{
	struct arb_qpoll *j = gp_offjob_arg(job);

	for (int i = 0; i < j->n_ev; i++) {
		const struct arb_qp_ev *e = &j->ev[i];
		struct gp_qw_proc *p = gp_qwatch_find(w, e->pid);

		if (e->busy < 0) {
			if (e->qid != UINT32_MAX)
				gp_qwatch_remove(w, e->pid, e->qid);
			else if (e->err == -ESRCH)
				gp_qwatch_remove_pid(w, e->pid);
			cb->lost(cb->ctx, e->pid, e->qid, e->err);
			continue;
		}
		if (p)
			p->busy = e->busy;
		if (p || !e->busy)
			cb->busy(cb->ctx, e->pid, e->busy);
	}
	for (int i = 0; i < j->w.n; i++) {
		struct gp_qw_proc *r = &j->w.p[i];
		struct gp_qw_proc *p = gp_qwatch_find(w, r->pid);

		if (!p)
			continue;
		for (int k = 0; k < p->nq; k++) {
			struct gp_qw_queue *q = find_q(r, p->q[k].queue_id);

			if (q)
				p->q[k] = *q;
		}
		p->busy = r->busy;
		p->err = r->err;
		p->polls = r->polls;
		p->busy_polls = r->busy_polls;
		p->unproven = r->unproven;
	}
	w->syscalls = j->w.syscalls;
	w->sig_tests = j->w.sig_tests;
}
