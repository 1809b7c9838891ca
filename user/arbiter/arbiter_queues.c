// SPDX-License-Identifier: GPL-2.0
/*
 * --detect queues without `watch` requests: the daemon embeds the tracer
 * (user/trace/probe.h) and feeds the queue watcher from it (qfeed.h).
 *
 * The probe is opened with GP_EMIT_IMMEDIATE: only queue lifecycle and
 * suspend events reach user space, and successful creates and destroys
 * wake its fd at once (bpf/maps.bpf.h). The daemon's poll loop polls that
 * fd and every round drains it with gp_probe_poll(p, 0), which never
 * blocks. The probe pins nothing, so a gpreempt-trace running beside the
 * daemon keeps its own object, maps, ring and pin.
 *
 * Queues that existed before the daemon: when a process is first seen
 * online, its KFD sysfs queues are matched against what a tracer captured
 * (this probe's map, then a running gpreempt-trace's pinned map), then
 * against the debugfs MQD dump (gp_mqd_read_addrs). What is left gets a
 * reason, printed by `policy` ("unwatched" lines). The dump is read by a
 * thread, never by the loop: KFD formats it holding each process's
 * mutex, which an ioctl (a suspend waiting for its preemption) can hold
 * for seconds. A process that needs it is seeded when the read ends.
 *
 * If BPF cannot be loaded (no CAP_BPF/CAP_PERFMON, lockdown), the daemon
 * says so once, shows it in `policy` (tracer state=off) and goes on:
 * notify and `watch` requests still work.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arbiter_int.h"
#include "offjob.h"
#include "attach.h"
#include "mqd.h"
#include "probe.h"
#include "qfeed.h"
#include "queues.h"
#include "util.h"

struct arbq {
	struct gp_offjob *job;	/* the MQD dump's read under way, or NULL */
	int n_wait;		/* online pids waiting for a read */
	struct { int pid; bool started; } wait[ARB_MAX_PROCS];
	struct gp_probe *probe;
	bool feeding;		/* the create hook is attached */
	char off_why[32];	/* protocol token when the probe is off */
	struct gp_qfeed f;
	uint64_t events;
	bool ready;		/* the fd was readable: immediate events */
	uint64_t next_drain;	/* batched ones (failed creates) */
	int n_seeded;
	int seeded[ARB_MAX_PROCS];	/* online pids already seeded */
};

static struct arbq arbq_storage;
static bool arbq_verbose;

/* libbpf's messages only with -v: the daemon says what failed itself. */
static int arbq_libbpf_print(enum libbpf_print_level l, const char *fmt,
			     va_list ap)
{
	char buf[256];

	if (!arbq_verbose || l == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = 0;
	dlog("arbiter: libbpf: %s", buf);
	return 0;
}

static struct arbq *arbq_of(const struct daemon *d)
{
	return arb_of(d) && arb_of(d)->o->detect_queues ? &arbq_storage : NULL;
}

/*
 * Is pid online? A creator the arbiter has not met yet is not read here:
 * its /proc files can wait on it (arbiter_discover.c). The scan runs at
 * once and describes it off the loop; once it is found online, arbq_tick
 * seeds its queues from KFD's sysfs list and this probe's capture of the
 * create (arbq_seed), so the queue is still watched, a scan later.
 */
static bool arbq_online(void *ctx, int pid)
{
	struct daemon *d = ctx;
	struct arbiter *a = arb_of(d);
	struct arb_proc *p = arb_find(a, pid);

	if (!p && !arb_stuck_find(a, pid))
		a->next_scan = 0;
	return p && p->cls == GP_CLASS_ONLINE;
}

/* The daemon's feeding function: one tracer event into the watcher. */
void arbq_event(struct daemon *d, const struct gp_event *e)
{
	struct arbiter *a = arb_of(d);
	struct arbq *q = arbq_of(d);
	bool ended;
	enum gp_qf_result r;

	if (!q)
		return;
	arbg_event(d, e);	/* offline queues' placement, --scope gpu */
	r = gp_qfeed_event(&q->f, e, &ended);
	switch (r) {
	case GP_QF_ADDED:
		alog(a, "queue %u of online pid %d created: watching "
		     "(wptr 0x%llx, rptr 0x%llx)", e->queue_id, e->pid,
		     (unsigned long long)e->queue.wptr_addr,
		     (unsigned long long)e->queue.rptr_addr);
		break;
	case GP_QF_CREATE_FAILED:
		if (arbq_online(d, e->pid))
			alog(a, "create by online pid %d failed (%s): no "
			     "queue, nothing watched", e->pid,
			     strerror(-e->ret));
		break;
	case GP_QF_NO_ROOM:
		alog(a, "queue %u of online pid %d: the watcher is full, not "
		     "watched", e->queue_id, e->pid);
		break;
	case GP_QF_REMOVED:
		if (e->op == GP_OP_EXIT)
			alog(a, "pid %d exited: its queues are no longer "
			     "watched", e->pid);
		else
			alog(a, "queue %u of pid %d destroyed: no longer "
			     "watched", e->queue_id, e->pid);
		break;
	default:
		break;
	}
	if (ended) {
		/* The watcher forgot the process while it was busy. */
		arb_feed(a, &(struct gp_activity){ .pid = e->pid,
			 .kind = GP_SRC_QUEUES, .id = (uint32_t)e->pid,
			 .t_ns = monotonic_ns() });
		arb_apply(d);
	}
}

static int on_event(void *ctx, const struct gp_event *e)
{
	struct daemon *d = ctx;

	arbq_storage.events++;
	arbq_event(d, e);
	return 0;
}

/* Index of the hook on CREATE_QUEUE in gp_hooks. */
static int create_hook(void)
{
	int i;

	for (i = 0; i < gp_nhooks; i++)
		if (!strcmp(gp_hooks[i].func, "kfd_ioctl_create_queue"))
			return i;
	return -1;
}

/* The embedded tracer's fd was readable (daemon_io_add): drain it at
 * the next tick. */
static void queues_ready(struct daemon *d, void *ud)
{
	struct arbq *q = arbq_of(d);

	if (q)
		q->ready = true;
}

void arbq_start(struct daemon *d)
{
	struct arbq *q = &arbq_storage;
	struct gp_probe_opts po = {
		.emit = GP_EMIT_IMMEDIATE,
		.on_event = on_event,
		.ctx = d,
	};
	struct gp_probe_err err;
	const struct gp_attach *at;
	int h;

	memset(q, 0, sizeof(*q));
	if (!arbq_of(d))
		return;
	gp_qfeed_init(&q->f, &arb_of(d)->qw, arbq_online, d);
	arbq_verbose = daemon_verbose(d);
	libbpf_set_print(arbq_libbpf_print);
	if (gp_probe_open(&po, &q->probe, &err)) {
		snprintf(q->off_why, sizeof(q->off_why), "%s",
			 err.err == -EPERM || err.err == -EACCES ?
			 "no-bpf-privilege" : err.exit_code == GP_EXIT_NO_BPF ?
			 "bpf-refused" : "probe-failed");
		dlog("arbiter: embedded tracer off: %s%s; new queues are not "
		     "watched automatically (notify and watch requests still "
		     "work)", err.msg, err.err == -EPERM ? " (needs CAP_BPF "
		     "and CAP_PERFMON, or root)" : "");
		q->probe = NULL;
		return;
	}
	if (daemon_io_add(d, gp_probe_fd(q->probe), queues_ready, NULL))
		dlog_at(LOG_ERR, "arbiter: the daemon's loop has no room "
			"for the embedded tracer's fd (DAEMON_MAX_IO)");
	at = gp_probe_attach_info(q->probe);
	h = create_hook();
	q->feeding = h >= 0 && at->plan[h].attached;
	if (!q->feeding)
		snprintf(q->off_why, sizeof(q->off_why), "no-create-hook");
	if (q->feeding)
		dlog("arbiter: embedded tracer on (%s mode, %d hooks "
		     "attached): queue creates of online processes are "
		     "watched", at->reduced ? "reduced" : "full", at->attached);
	else
		dlog("arbiter: embedded tracer on (%s mode, %d hooks "
		     "attached) but kfd_ioctl_create_queue is not hooked "
		     "(%s): new queues are not watched automatically (notify "
		     "and watch requests still work)", at->reduced ? "reduced" :
		     "full", at->attached, h >= 0 && at->plan[h].why ?
		     at->plan[h].why : "amdgpu not loaded?");
}

void arbq_stop(struct daemon *d)
{
	struct arbq *q = &arbq_storage;

	if (q->probe)
		daemon_io_remove(d, gp_probe_fd(q->probe));
	gp_probe_close(q->probe);
	q->probe = NULL;
	if (q->job)		/* its thread frees it when it ends */
		gp_offjob_put(q->job);
	q->job = NULL;
	q->n_wait = 0;
}


/* Captured addresses: this daemon's probe map. */
static bool cap_probe(void *ctx, int pid, uint32_t gpu, uint32_t qid,
		      uint64_t *w, uint64_t *r)
{
	struct gp_queue_val v;

	if (!ctx || gp_probe_queue(ctx, pid, gpu, qid, &v))
		return false;
	*w = v.wptr_addr;
	*r = v.rptr_addr;
	return true;
}

/* ... or a running gpreempt-trace's pinned map (fd in ctx). */
static bool cap_pinned(void *ctx, int pid, uint32_t gpu, uint32_t qid,
		       uint64_t *w, uint64_t *r)
{
	struct gp_queue_key k = { .pid = pid, .gpu_id = gpu, .queue_id = qid };
	struct gp_queue_val v;
	int fd = (int)(intptr_t)ctx;

	if (fd < 0 || bpf_map_lookup_elem(fd, &k, &v))
		return false;
	*w = v.wptr_addr;
	*r = v.rptr_addr;
	return true;
}

static int sysq_cb(const struct gp_queue_row *r, void *ctx)
{
	struct { struct gp_qf_sysq q[GP_QW_MAX_QUEUES]; size_t n; } *s = ctx;

	if (s->n < GP_QW_MAX_QUEUES)
		s->q[s->n++] = (struct gp_qf_sysq){ r->k.queue_id, r->k.gpu_id,
						    r->v.type };
	return 0;
}

static bool need_mqd(const struct arbq *q, int pid,
		     const struct gp_qf_sysq *s, size_t n,
		     const gp_qf_capture_fn *caps, void *const *ctx, size_t nc)
{
	uint64_t w, r;
	size_t i, c;

	for (i = 0; i < n; i++) {
		bool have = s[i].type != GP_QF_KFD_COMPUTE ||
			    gp_qfeed_watched(&q->f, pid, s[i].queue_id);

		for (c = 0; c < nc && !have; c++)
			have = caps[c](ctx[c], pid, s[i].gpu_id,
				       s[i].queue_id, &w, &r) && w && r;
		if (!have)
			return true;
	}
	return false;
}

static void mqd_wait_add(struct arbq *q, int pid)
{
	int i;

	for (i = 0; i < q->n_wait; i++)
		if (q->wait[i].pid == pid && !q->wait[i].started)
			return;
	if (q->n_wait < ARB_MAX_PROCS)
		q->wait[q->n_wait++] = (typeof(q->wait[0])){ pid, false };
}

/*
 * An online process seen for the first time: its existing queues. m is
 * the MQD dump's result, NULL when none has been read for it yet: if a
 * capture does not have every compute queue, it waits for a read.
 */
static void arbq_seed(struct daemon *d, struct arbq *q, int pid,
		      const struct gp_qf_mqd *m)
{
	struct { struct gp_qf_sysq q[GP_QW_MAX_QUEUES]; size_t n; } s = {};
	struct gp_scan_opts so = { .root = arb_of(d)->o->kfd_proc_dir,
				   .pids = &pid, .npids = 1 };
	gp_qf_capture_fn caps[2] = { cap_probe, cap_pinned };
	static const struct gp_qf_mqd none;
	void *ctx[2];
	int pin, added;

	gp_queues_scan(&so, sysq_cb, &s);
	if (!s.n)
		return;
	pin = gp_queues_open_pinned();
	ctx[0] = q->probe;
	ctx[1] = (void *)(intptr_t)pin;
	/* The MQD dump (debugfs, KFD formats every queue of the machine):
	 * only when a capture does not have every compute queue. */
	if (!m && need_mqd(q, pid, s.q, s.n, caps, ctx, 2)) {
		mqd_wait_add(q, pid);
		if (pin >= 0)
			close(pin);
		return;
	}
	added = gp_qfeed_seed(&q->f, pid, s.q, s.n, caps, ctx, 2,
			      m ? m : &none);
	if (pin >= 0)
		close(pin);
	if (added)
		alog(arb_of(d), "online pid %d: %d existing queue%s watched "
		     "(tracer capture or debugfs MQD dump)", pid, added,
		     added == 1 ? "" : "s");
	if ((size_t)added < s.n)
		alog(arb_of(d), "online pid %d: %zu of its %zu queues not "
		     "watched (gpreempt-ctl policy says why)", pid,
		     s.n - added, s.n);
}

static bool seeded(const struct arbq *q, int pid)
{
	int i;

	for (i = 0; i < q->n_seeded; i++)
		if (q->seeded[i] == pid)
			return true;
	return false;
}

void arbq_tick(struct daemon *d)
{
	struct arbq *q = arbq_of(d);
	struct arbiter *a = arb_of(d);
	const struct gp_qf_mqd *m;
	int i;

	if (!q)
		return;
	/* Immediate events wake the fd (the loop polls it); batched ones
	 * are read every ARB_SCAN_MS. gp_probe_poll(p, 0) never blocks. */
	if (q->probe && (q->ready || monotonic_ns() >= q->next_drain)) {
		q->ready = false;
		q->next_drain = monotonic_ns() + ARB_SCAN_MS * NSEC_PER_MSEC;
		gp_probe_poll(q->probe, 0);
	}
	/* Online processes no longer known or no longer online. */
	for (i = q->n_seeded; i-- > 0;) {
		struct arb_proc *p = arb_find(a, q->seeded[i]);

		if (!p || p->cls != GP_CLASS_ONLINE) {
			gp_qfeed_forget(&q->f, q->seeded[i]);
			q->seeded[i] = q->seeded[--q->n_seeded];
		}
	}
	for (i = 0; i < a->n; i++)
		if (a->p[i].cls == GP_CLASS_ONLINE &&
		    !seeded(q, a->p[i].pid) && q->n_seeded < ARB_MAX_PROCS) {
			q->seeded[q->n_seeded++] = a->p[i].pid;
			arbq_seed(d, q, a->p[i].pid, NULL);
		}
	/* A read of the MQD dump ended: seed those it was started for. */
	if (q->job && (m = arb_mqd_result(q->job))) {
		struct gp_offjob *j = q->job;

		q->job = NULL;
		for (i = q->n_wait; i-- > 0;) {
			int pid = q->wait[i].pid;

			if (!q->wait[i].started)
				continue;
			q->wait[i] = q->wait[--q->n_wait];
			if (seeded(q, pid))	/* still online */
				arbq_seed(d, q, pid, m);
		}
		gp_offjob_put(j);
	}
	if (!q->job && q->n_wait &&
	    (q->job = arb_mqd_start(a->o, monotonic_ns())))
		for (i = 0; i < q->n_wait; i++)
			q->wait[i].started = true;
}

struct unw_ctx {
	struct client *c;
	const struct arbq *q;
};

static int unwatched_cb(const struct gp_queue_row *r, void *ctx)
{
	struct unw_ctx *u = ctx;
	enum gp_qf_why w;

	if (gp_qfeed_watched(&u->q->f, r->k.pid, r->k.queue_id))
		return 0;
	w = gp_qfeed_why(&u->q->f, r->k.pid, r->k.queue_id);
	if (w == GP_QF_WHY_MAX)		/* created since: no note */
		w = r->v.type != GP_QF_KFD_COMPUTE ? GP_QF_NOT_AQL :
		    u->q->feeding ? GP_QF_NOT_CAPTURED : GP_QF_TRACER_OFF;
	reply_linef(u->c, "unwatched pid=%u queue=%u gpu_id=%u reason=%s\n", r->k.pid,
	    r->k.queue_id, r->k.gpu_id, gp_qf_why_name(w));
	return 0;
}

/* `policy`: the tracer's state and every online queue not watched. */
void arbq_policy(struct daemon *d, struct client *c)
{
	struct arbq *q = arbq_of(d);
	const struct gp_qfeed_stats *s;
	const struct gp_attach *at;
	struct arbiter *a = arb_of(d);
	struct unw_ctx u = { c, q };
	int i;

	if (!q)
		return;
	s = &q->f.st;
	at = q->probe ? gp_probe_attach_info(q->probe) : NULL;
	reply_linef(c, "tracer state=%s mode=%s hooks=%d feeding=%d why=%s "
	    "events=%llu lost=%llu creates=%llu added=%llu "
	    "create_failed=%llu not_online=%llu skipped=%llu destroys=%llu "
	    "exits=%llu removed=%llu seeded_capture=%llu seeded_mqd=%llu\n",
	    q->probe ? "on" : "off", !at ? "none" : at->reduced ? "reduced" :
	    "full", at ? at->attached : 0, q->feeding,
	    q->off_why[0] ? q->off_why : "-", (unsigned long long)q->events,
	    (unsigned long long)(q->probe ? gp_probe_lost(q->probe) : 0),
	    (unsigned long long)s->creates, (unsigned long long)s->added,
	    (unsigned long long)s->create_failed,
	    (unsigned long long)s->offline, (unsigned long long)s->skipped,
	    (unsigned long long)s->destroys, (unsigned long long)s->exits,
	    (unsigned long long)s->removed,
	    (unsigned long long)s->seeded_capture,
	    (unsigned long long)s->seeded_mqd);
	for (i = 0; i < a->n; i++) {
		struct gp_scan_opts so = { .root = a->o->kfd_proc_dir,
					   .pids = &a->p[i].pid, .npids = 1 };

		if (a->p[i].cls == GP_CLASS_ONLINE &&
		    arb_shows(a, c, a->p[i].pid))
			gp_queues_scan(&so, unwatched_cb, &u);
	}
}
