// SPDX-License-Identifier: GPL-2.0
/* The AQL queue watcher (qwatch.h). */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "qsignal.h"
#include "qwatch.h"

void gp_qwatch_init(struct gp_qwatch *w)
{
	memset(w, 0, sizeof(*w));
}

struct gp_qw_proc *gp_qwatch_find(const struct gp_qwatch *w, int pid)
{
	int i;

	for (i = 0; i < w->n; i++)
		if (w->p[i].pid == pid)
			return (struct gp_qw_proc *)&w->p[i];
	return NULL;
}

const char *gp_qwatch_unwatched(const struct gp_qwatch *w, int pid)
{
	for (int i = 0; i < w->n_unw; i++)
		if (w->unw[i].pid == pid)
			return w->unw[i].why;
	return NULL;
}

void gp_qwatch_unwatch(struct gp_qwatch *w, int pid, const char *why)
{
	gp_qwatch_remove_pid(w, pid);
	if (gp_qwatch_unwatched(w, pid))
		return;
	if (w->n_unw == GP_QW_MAX_UNWATCHED)
		memmove(w->unw, w->unw + 1, sizeof(w->unw[0]) * --w->n_unw);
	w->unw[w->n_unw++] = (struct gp_qw_unwatched){ pid, why };
}

int gp_qwatch_add(struct gp_qwatch *w, int pid, uint32_t queue_id,
		  uint64_t wptr_addr, uint64_t rptr_addr)
{
	struct gp_qw_proc *p = gp_qwatch_find(w, pid);
	int i;

	if (gp_qwatch_unwatched(w, pid))
		return -EACCES;

	if (!p) {
		if (w->n == GP_QW_MAX_PROCS)
			return -ENOSPC;
		p = &w->p[w->n++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
	}
	for (i = 0; i < p->nq; i++)
		if (p->q[i].queue_id == queue_id)
			return -EEXIST;
	if (p->nq == GP_QW_MAX_QUEUES)
		return -ENOSPC;
	p->q[p->nq++] = (struct gp_qw_queue){ .queue_id = queue_id,
					      .wptr_addr = wptr_addr,
					      .rptr_addr = rptr_addr };
	return 0;
}

static void drop_proc(struct gp_qwatch *w, struct gp_qw_proc *p)
{
	*p = w->p[--w->n];
}

bool gp_qwatch_remove(struct gp_qwatch *w, int pid, uint32_t queue_id)
{
	struct gp_qw_proc *p = gp_qwatch_find(w, pid);
	int i;

	for (i = 0; p && i < p->nq; i++)
		if (p->q[i].queue_id == queue_id) {
			p->q[i] = p->q[--p->nq];
			if (!p->nq)
				drop_proc(w, p);
			return true;
		}
	return false;
}

bool gp_qwatch_remove_pid(struct gp_qwatch *w, int pid)
{
	struct gp_qw_proc *p = gp_qwatch_find(w, pid);

	if (p)
		drop_proc(w, p);
	return p != NULL;
}

/*
 * One syscall for all of p's queues. process_vm_readv stops at the first
 * remote iovec it cannot read and returns the bytes read so far, so a
 * short count names the queue that failed: drop it, keep the rest.
 * Returns 0, or -errno when nothing could be read at all.
 */
static int read_proc(struct gp_qwatch *w, struct gp_qw_proc *p,
		     const struct gp_qw_cb *cb)
{
	struct iovec local[1], remote[2 * GP_QW_MAX_QUEUES];
	uint64_t vals[2 * GP_QW_MAX_QUEUES];
	ssize_t n;
	int i, done;

	for (i = 0; i < p->nq; i++) {
		remote[2 * i].iov_base = (void *)(uintptr_t)p->q[i].wptr_addr;
		remote[2 * i].iov_len = 8;
		remote[2 * i + 1].iov_base =
			(void *)(uintptr_t)p->q[i].rptr_addr;
		remote[2 * i + 1].iov_len = 8;
	}
	local[0].iov_base = vals;
	local[0].iov_len = 16 * p->nq;
	w->syscalls++;
	n = process_vm_readv(p->pid, local, 1, remote, 2 * p->nq, 0);
	/* EFAULT before any byte: the first queue is the bad one. */
	if (n < 0 && errno == EFAULT)
		n = 0;
	if (n < 0)
		return -errno;
	done = n / 16;
	for (i = 0; i < done; i++) {
		p->q[i].write = vals[2 * i];
		p->q[i].read = vals[2 * i + 1];
	}
	if (done < p->nq) {
		uint32_t id = p->q[done].queue_id;

		p->q[done] = p->q[--p->nq];
		if (cb && cb->lost)
			cb->lost(cb->ctx, p->pid, id, -EFAULT);
	}
	return 0;
}

/*
 * read == write: is the last packet done? Tested once per write value.
 * An error (not ROCr's amd_queue_t layout around the counters, or a
 * freed ring) counts as "no signal": the counters' answer stands.
 */
static bool last_running(struct gp_qwatch *w, struct gp_qw_proc *p,
			 struct gp_qw_queue *q)
{
	struct gp_qsig_res r;

	if (!q->write || q->write == q->tested_write) {
		p->unproven |= q->write && q->nosig;
		return false;
	}
	w->sig_tests++;
	if (gp_qsig_read(p->pid, q->wptr_addr - GP_AMDQ_WRITE_DISPATCH_ID,
			 &r, NULL, NULL) || r.state == GP_QS_NOSIG) {
		q->tested_write = q->write;
		q->nosig = true;
		p->unproven = true;
		return false;
	}
	if (r.state == GP_QS_IDLE) {
		q->tested_write = q->write;
		q->nosig = false;
		return false;
	}
	return true;	/* running, or write moved: busy, test again later */
}

int gp_qwatch_poll(struct gp_qwatch *w, const struct gp_qw_cb *cb)
{
	int i, j, n_busy = 0;

	for (i = 0; i < w->n;) {
		struct gp_qw_proc *p = &w->p[i];
		bool busy = false, was = p->busy;
		int pid = p->pid, prev_err = p->err;

		if (p->nq && cb && cb->reading)
			cb->reading(cb->ctx, pid);
		p->err = p->nq ? read_proc(w, p, cb) : 0;
		if (p->err == -ESRCH || (p->err == 0 && !p->nq)) {
			/* Gone, or every queue unreadable: stop watching. */
			int err = p->err ? p->err : -EFAULT;

			drop_proc(w, p);
			if (was && cb && cb->busy)
				cb->busy(cb->ctx, pid, false);
			if (err == -ESRCH && cb && cb->lost)
				cb->lost(cb->ctx, pid, UINT32_MAX, err);
			continue;
		}
		if (p->err) {
			/* -EPERM and the like: said once, not per poll;
			 * the last known state stays. */
			if (p->err != prev_err && cb && cb->lost)
				cb->lost(cb->ctx, pid, UINT32_MAX, p->err);
			n_busy += p->busy;
			i++;
			continue;
		}
		for (j = 0; j < p->nq; j++)
			if (p->q[j].write > p->q[j].read)
				busy = true;
		p->unproven = false;
		for (j = 0; !busy && j < p->nq; j++)
			busy = last_running(w, p, &p->q[j]);
		p->polls++;
		p->busy_polls += busy;
		p->busy = busy;
		if (busy != was && cb && cb->busy)
			cb->busy(cb->ctx, pid, busy);
		n_busy += busy;
		i++;
	}
	return n_busy;
}
