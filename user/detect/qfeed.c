// SPDX-License-Identifier: GPL-2.0
/* The queue feed: tracer events and seeds into the watcher (qfeed.h). */
#include <errno.h>
#include <string.h>

#include "qfeed.h"

static const char *const why_name[GP_QF_WHY_MAX] = {
	[GP_QF_WATCHED] = "watched",
	[GP_QF_NOT_AQL] = "not-aql",
	[GP_QF_NO_DEBUGFS] = "before-daemon-no-debugfs",
	[GP_QF_DEBUGFS_DENIED] = "before-daemon-debugfs-denied",
	[GP_QF_AMBIGUOUS] = "before-daemon-ambiguous",
	[GP_QF_MQD_UNKNOWN] = "before-daemon-mqd-layout-unknown",
	[GP_QF_NOT_IN_MQD] = "before-daemon-not-in-mqd",
	[GP_QF_TRACER_OFF] = "tracer-off",
	[GP_QF_NOT_CAPTURED] = "create-not-captured",
	[GP_QF_FULL] = "watcher-full",
};

static const char *const why_text[GP_QF_WHY_MAX] = {
	[GP_QF_WATCHED] = "watched",
	[GP_QF_NOT_AQL] = "not an AQL queue (SDMA or PM4): no dispatch "
		"counters",
	[GP_QF_NO_DEBUGFS] = "created before the daemon and no debugfs "
		"(mount it: mount -t debugfs none /sys/kernel/debug)",
	[GP_QF_DEBUGFS_DENIED] = "created before the daemon and the debugfs "
		"MQD dump is not readable (root only)",
	[GP_QF_AMBIGUOUS] = "created before the daemon; ambiguous in the MQD "
		"dump (several compute queues on one GPU)",
	[GP_QF_MQD_UNKNOWN] = "created before the daemon; MQD layout not "
		"known for its GPU",
	[GP_QF_NOT_IN_MQD] = "created before the daemon; not in the MQD dump",
	[GP_QF_TRACER_OFF] = "the embedded tracer is off (see the tracer "
		"line): creates are not seen",
	[GP_QF_NOT_CAPTURED] = "its create was not seen (events lost?)",
	[GP_QF_FULL] = "the watcher is full",
};

const char *gp_qf_why_name(enum gp_qf_why w)
{
	return w < GP_QF_WHY_MAX ? why_name[w] : "unknown";
}

const char *gp_qf_why_text(enum gp_qf_why w)
{
	return w < GP_QF_WHY_MAX ? why_text[w] : "unknown";
}

void gp_qfeed_init(struct gp_qfeed *f, struct gp_qwatch *w,
		   bool (*online)(void *, int), void *ctx)
{
	memset(f, 0, sizeof(*f));
	f->w = w;
	f->online = online;
	f->ctx = ctx;
}

bool gp_qfeed_watched(const struct gp_qfeed *f, int pid, uint32_t queue_id)
{
	const struct gp_qw_proc *p = gp_qwatch_find(f->w, pid);
	int i;

	for (i = 0; p && i < p->nq; i++)
		if (p->q[i].queue_id == queue_id)
			return true;
	return false;
}

static struct gp_qf_note *note_find(const struct gp_qfeed *f, int pid,
				    uint32_t queue_id)
{
	int i;

	for (i = 0; i < f->n_notes; i++)
		if (f->notes[i].pid == pid && f->notes[i].queue_id == queue_id)
			return (struct gp_qf_note *)&f->notes[i];
	return NULL;
}

void gp_qfeed_note(struct gp_qfeed *f, int pid, uint32_t queue_id,
		   enum gp_qf_why why)
{
	struct gp_qf_note *n = note_find(f, pid, queue_id);

	if (!n) {
		if (why == GP_QF_WATCHED || f->n_notes == GP_QF_MAX_WHY)
			return;
		n = &f->notes[f->n_notes++];
	}
	*n = (struct gp_qf_note){ pid, queue_id, why };
	if (why == GP_QF_WATCHED)
		*n = f->notes[--f->n_notes];
}

enum gp_qf_why gp_qfeed_why(const struct gp_qfeed *f, int pid,
			    uint32_t queue_id)
{
	const struct gp_qf_note *n = note_find(f, pid, queue_id);

	return n ? n->why : GP_QF_WHY_MAX;
}

void gp_qfeed_forget(struct gp_qfeed *f, int pid)
{
	int i;

	for (i = f->n_notes; i-- > 0;)
		if (f->notes[i].pid == pid)
			f->notes[i] = f->notes[--f->n_notes];
}

/* Removing a queue may remove the process from the watcher: if it was
 * busy, its busy must end (the watcher no longer reports on it). */
static bool removal_ends_busy(struct gp_qfeed *f, int pid, bool was_busy)
{
	return was_busy && !gp_qwatch_find(f->w, pid);
}

enum gp_qf_result gp_qfeed_event(struct gp_qfeed *f, const struct gp_event *e,
				 bool *ended_busy)
{
	const struct gp_qw_proc *p = gp_qwatch_find(f->w, e->pid);
	bool was_busy = p && p->busy;
	int r;

	*ended_busy = false;
	switch (e->op) {
	case GP_OP_CREATE:
		f->st.creates++;
		/* A failed create made no queue (the ioctl returned an
		 * error; its queue_id was never written). */
		if (e->ret < 0) {
			f->st.create_failed++;
			return GP_QF_CREATE_FAILED;
		}
		if (!f->online(f->ctx, e->pid)) {
			f->st.offline++;
			return GP_QF_OFFLINE;
		}
		if (e->queue.type != GP_QF_IOC_AQL || !e->queue.wptr_addr ||
		    !e->queue.rptr_addr) {
			f->st.skipped++;
			gp_qfeed_note(f, e->pid, e->queue_id, GP_QF_NOT_AQL);
			return GP_QF_SKIPPED;
		}
		r = gp_qwatch_add(f->w, e->pid, e->queue_id,
				  e->queue.wptr_addr, e->queue.rptr_addr);
		if (r == -EEXIST)
			return GP_QF_EXISTS;
		if (r == -EACCES) {	/* unwatched: its reads got stuck */
			f->st.skipped++;
			return GP_QF_SKIPPED;
		}
		if (r) {
			f->st.no_room++;
			gp_qfeed_note(f, e->pid, e->queue_id, GP_QF_FULL);
			return GP_QF_NO_ROOM;
		}
		f->st.added++;
		gp_qfeed_note(f, e->pid, e->queue_id, GP_QF_WATCHED);
		return GP_QF_ADDED;
	case GP_OP_DESTROY:
		if (e->ret < 0)
			return GP_QF_IGNORED;	/* the queue is still there */
		f->st.destroys++;
		gp_qfeed_note(f, e->pid, e->queue_id, GP_QF_WATCHED);
		if (!gp_qwatch_remove(f->w, e->pid, e->queue_id))
			return GP_QF_UNKNOWN;
		f->st.removed++;
		*ended_busy = removal_ends_busy(f, e->pid, was_busy);
		return GP_QF_REMOVED;
	case GP_OP_EXIT:
		f->st.exits++;
		gp_qfeed_forget(f, e->pid);
		if (!gp_qwatch_remove_pid(f->w, e->pid))
			return GP_QF_UNKNOWN;
		f->st.removed++;
		*ended_busy = was_busy;
		return GP_QF_REMOVED;
	default:
		return GP_QF_IGNORED;
	}
}

static enum gp_qf_why from_mqd(struct gp_qfeed *f, int pid,
			       const struct gp_qf_sysq *q,
			       const struct gp_qf_mqd *m)
{
	bool mine = false;
	size_t i;

	if (!m || m->err == -ENOENT)
		return GP_QF_NO_DEBUGFS;
	if (m->err)
		return GP_QF_DEBUGFS_DENIED;
	for (i = 0; i < m->n; i++) {
		const struct gp_mqd_addr *a = &m->a[i];

		if (a->pid != pid || a->gpu_id != q->gpu_id)
			continue;
		if (a->queue_id == -1)
			mine = true;
		if (a->queue_id != (int)q->queue_id)
			continue;
		if (!a->wptr_poll_addr || !a->rptr_report_addr)
			return GP_QF_NOT_IN_MQD;
		if (gp_qwatch_add(f->w, pid, q->queue_id, a->wptr_poll_addr,
				  a->rptr_report_addr) == -ENOSPC)
			return GP_QF_FULL;
		f->st.seeded_mqd++;
		return GP_QF_WATCHED;
	}
	/* Rows of this process on that GPU without an id: the dump prints
	 * none, and more than one queue could be this one. */
	if (mine)
		return GP_QF_AMBIGUOUS;
	return m->undecoded ? GP_QF_MQD_UNKNOWN : GP_QF_NOT_IN_MQD;
}

int gp_qfeed_seed(struct gp_qfeed *f, int pid, const struct gp_qf_sysq *q,
		  size_t nq, const gp_qf_capture_fn *captures,
		  void *const *capture_ctx, size_t ncaptures,
		  const struct gp_qf_mqd *mqd)
{
	int added = 0;
	size_t i, c;

	for (i = 0; i < nq; i++) {
		enum gp_qf_why why = GP_QF_WHY_MAX;
		uint64_t w, r;

		if (gp_qfeed_watched(f, pid, q[i].queue_id)) {
			gp_qfeed_note(f, pid, q[i].queue_id, GP_QF_WATCHED);
			continue;
		}
		if (q[i].type != GP_QF_KFD_COMPUTE) {
			gp_qfeed_note(f, pid, q[i].queue_id, GP_QF_NOT_AQL);
			continue;
		}
		for (c = 0; c < ncaptures && why == GP_QF_WHY_MAX; c++) {
			w = r = 0;
			if (!captures[c](capture_ctx[c], pid, q[i].gpu_id,
					 q[i].queue_id, &w, &r) || !w || !r)
				continue;
			if (gp_qwatch_add(f->w, pid, q[i].queue_id, w, r) ==
			    -ENOSPC) {
				why = GP_QF_FULL;
			} else {
				f->st.seeded_capture++;
				why = GP_QF_WATCHED;
			}
		}
		if (why == GP_QF_WHY_MAX)
			why = from_mqd(f, pid, &q[i], mqd);
		added += why == GP_QF_WATCHED;
		gp_qfeed_note(f, pid, q[i].queue_id, why);
	}
	return added;
}
