// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's Perfetto trace: see pftrace.h. Field numbers are those of
 * Perfetto's protos (protos/perfetto/trace/: trace.proto, trace_packet.proto,
 * clock_snapshot.proto, track_event/track_event.proto,
 * track_descriptor.proto, counter_descriptor.proto,
 * debug_annotation.proto; stable by protobuf's rules), and
 * tests/perfetto/perfetto_subset.proto restates the ones used here, for
 * the golden test's protoc --decode.
 */
#include <errno.h>
#include <string.h>

#include "names.h"
#include "pbuf.h"
#include "pftrace.h"

/* Trace */
#define F_TRACE_PACKET		1
/* TracePacket */
#define F_PKT_CLOCK_SNAPSHOT	6
#define F_PKT_TIMESTAMP		8
#define F_PKT_SEQ_ID		10
#define F_PKT_TRACK_EVENT	11
#define F_PKT_SEQ_FLAGS		13
#define F_PKT_CLOCK_ID		58
#define F_PKT_TRACK_DESC	60
#define F_PKT_FIRST_ON_SEQ	87
#define SEQ_INCREMENTAL_STATE_CLEARED 1
/* ClockSnapshot, Clock; BuiltinClock */
#define F_CS_CLOCKS		1
#define F_CS_PRIMARY		2
#define F_CLK_ID		1
#define F_CLK_TS		2
#define CLOCK_REALTIME_ID	1
#define CLOCK_MONOTONIC_ID	3
#define CLOCK_BOOTTIME_ID	6
/* TrackDescriptor, CounterDescriptor */
#define F_TD_UUID		1
#define F_TD_NAME		2
#define F_TD_PARENT		5
#define F_TD_COUNTER		8
#define F_CD_UNIT		3
#define UNIT_COUNT		2
/* TrackEvent, DebugAnnotation */
#define F_TE_ANNOT		4
#define F_TE_TYPE		9
#define F_TE_TRACK		11
#define F_TE_NAME		23
#define F_TE_COUNTER		30
#define TYPE_SLICE_BEGIN	1
#define TYPE_SLICE_END		2
#define TYPE_COUNTER		4
#define F_DA_UINT		3
#define F_DA_INT		4
#define F_DA_STRING		6
#define F_DA_NAME		10

/* Room for one packet: a slice with its annotations is ~300 bytes. */
#define PKT_MAX 1024

struct annot {
	const char *name;
	const char *s;		/* a string, else the number */
	int64_t v;
};

/* Write one packet (p's bytes) as Trace.packet. */
static void emit(struct pft *t, const struct pbuf *p)
{
	uint8_t hdr[12];
	size_t n;

	if (p->err) {
		t->dropped++;
		return;
	}
	hdr[0] = F_TRACE_PACKET << 3 | 2;
	n = 1 + pb_put_varint(hdr + 1, p->len);
	if (!t->werr && (fwrite(hdr, 1, n, t->f) != n ||
			 fwrite(p->b, 1, p->len, t->f) != p->len))
		t->werr = errno ? -errno : -EIO;
}

static void packet_head(struct pft *t, struct pbuf *p, uint64_t ts)
{
	pb_varint(p, F_PKT_SEQ_ID, t->seq);
	if (ts) {
		pb_varint(p, F_PKT_TIMESTAMP, ts);
		pb_varint(p, F_PKT_CLOCK_ID, CLOCK_BOOTTIME_ID);
	}
}

int pft_open(struct pft *t, FILE *f, const struct pft_clocks *c, uint32_t seq)
{
	static const struct { uint32_t id; size_t off; } clk[] = {
		{ CLOCK_BOOTTIME_ID, offsetof(struct pft_clocks, boottime) },
		{ CLOCK_MONOTONIC_ID, offsetof(struct pft_clocks, monotonic) },
		{ CLOCK_REALTIME_ID, offsetof(struct pft_clocks, realtime) },
	};
	uint8_t buf[PKT_MAX];
	struct pbuf p;
	size_t cs, m;

	memset(t, 0, sizeof(*t));
	t->f = f;
	t->seq = seq;
	/* uuids: "gp" in the top bytes, so they stay apart from other
	 * producers' tracks when traces are opened together */
	t->next_uuid = 0x6770000000000000ULL | (uint64_t)seq << 24;
	t->last_ts = c->boottime;
	pb_init(&p, buf, sizeof(buf));
	packet_head(t, &p, c->boottime);
	cs = pb_begin(&p, F_PKT_CLOCK_SNAPSHOT);
	for (size_t i = 0; i < sizeof(clk) / sizeof(clk[0]); i++) {
		m = pb_begin(&p, F_CS_CLOCKS);
		pb_varint(&p, F_CLK_ID, clk[i].id);
		pb_varint(&p, F_CLK_TS,
			  *(const uint64_t *)((const char *)c + clk[i].off));
		pb_end(&p, m);
	}
	pb_varint(&p, F_CS_PRIMARY, CLOCK_BOOTTIME_ID);
	pb_end(&p, cs);
	pb_varint(&p, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_varint(&p, F_PKT_FIRST_ON_SEQ, 1);
	emit(t, &p);
	return t->werr;
}

static uint64_t describe(struct pft *t, const char *name, uint64_t parent,
			 bool counter)
{
	uint8_t buf[PKT_MAX];
	struct pbuf p;
	uint64_t uuid = ++t->next_uuid;
	size_t m;

	pb_init(&p, buf, sizeof(buf));
	packet_head(t, &p, 0);
	m = pb_begin(&p, F_PKT_TRACK_DESC);
	pb_varint(&p, F_TD_UUID, uuid);
	pb_string(&p, F_TD_NAME, name);
	if (parent)
		pb_varint(&p, F_TD_PARENT, parent);
	if (counter) {
		size_t c = pb_begin(&p, F_TD_COUNTER);

		pb_varint(&p, F_CD_UNIT, UNIT_COUNT);
		pb_end(&p, c);
	}
	pb_end(&p, m);
	emit(t, &p);
	return uuid;
}

/* A slice begin (name set) or end (name NULL), or a counter value. */
static void track_event(struct pft *t, uint64_t ts, uint64_t track, int type,
			const char *name, const struct annot *a, int na,
			int64_t counter)
{
	uint8_t buf[PKT_MAX];
	struct pbuf p;
	size_t m, d;

	pb_init(&p, buf, sizeof(buf));
	packet_head(t, &p, ts);
	m = pb_begin(&p, F_PKT_TRACK_EVENT);
	pb_varint(&p, F_TE_TYPE, type);
	pb_varint(&p, F_TE_TRACK, track);
	if (name)
		pb_string(&p, F_TE_NAME, name);
	if (type == TYPE_COUNTER)
		pb_varint(&p, F_TE_COUNTER, (uint64_t)counter);
	for (int i = 0; i < na; i++) {
		d = pb_begin(&p, F_TE_ANNOT);
		pb_string(&p, F_DA_NAME, a[i].name);
		if (a[i].s)
			pb_string(&p, F_DA_STRING, a[i].s);
		else if (a[i].v < 0)
			pb_varint(&p, F_DA_INT, (uint64_t)a[i].v);
		else
			pb_varint(&p, F_DA_UINT, (uint64_t)a[i].v);
		pb_end(&p, d);
	}
	pb_end(&p, m);
	emit(t, &p);
}

/* A complete slice: begin at ts - dur, end at ts. */
static void slice(struct pft *t, uint64_t ts, uint64_t dur, uint64_t track,
		  const char *name, const struct annot *a, int na)
{
	track_event(t, ts > dur ? ts - dur : ts, track, TYPE_SLICE_BEGIN,
		    name, a, na, 0);
	track_event(t, ts, track, TYPE_SLICE_END, NULL, NULL, 0, 0);
}

/* comm as a valid UTF-8 (ASCII) string: others become '?' */
static void safe_comm(char *out, const char *in)
{
	size_t i;

	for (i = 0; i < GP_COMM_LEN - 1 && i < 15 && in[i]; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = 0;
}

static struct pft_gpu *gpu(struct pft *t, uint32_t gpu_id)
{
	struct pft_gpu *g;
	char name[64];

	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].gpu_id == gpu_id)
			return &t->gpus[i];
	if (t->ngpus == PFT_MAX_GPUS)
		return NULL;
	g = &t->gpus[t->ngpus++];
	g->gpu_id = gpu_id;
	if (gpu_id)
		snprintf(name, sizeof(name), "gpreempt: GPU %u", gpu_id);
	else
		snprintf(name, sizeof(name), "gpreempt: GPU unknown");
	g->uuid = describe(t, name, 0, false);
	g->online_uuid = describe(t, "online busy", g->uuid, false);
	g->evict_uuid = describe(t, "evictions", g->uuid, false);
	g->counter_uuid = describe(t, "suspended queues", g->uuid, true);
	return g;
}

static struct pft_proc *proc(struct pft *t, uint32_t pid, uint32_t gpu_id,
			     const char *comm)
{
	struct pft_proc *q;
	char name[64];

	for (int i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid && t->procs[i].gpu_id == gpu_id)
			return &t->procs[i];
	if (t->nprocs == PFT_MAX_PROCS || !gpu(t, gpu_id))
		return NULL;
	q = &t->procs[t->nprocs++];
	q->pid = pid;
	q->gpu_id = gpu_id;
	if (comm)
		safe_comm(q->comm, comm);
	else
		snprintf(q->comm, sizeof(q->comm), "pid");
	snprintf(name, sizeof(name), "suspended: %s %u", q->comm, pid);
	q->uuid = describe(t, name, gpu(t, gpu_id)->uuid, false);
	return q;
}

static void counter(struct pft *t, uint32_t gpu_id, uint64_t ts)
{
	struct pft_gpu *g = gpu(t, gpu_id);
	uint64_t n = 0;

	if (!g)
		return;
	for (int i = 0; i < t->nprocs; i++)
		if (t->procs[i].gpu_id == gpu_id)
			n += t->procs[i].suspended;
	g->suspended = n;
	track_event(t, ts, g->counter_uuid, TYPE_COUNTER, NULL, NULL, 0,
		    (int64_t)n);
}

/* End a process's "suspended" slice (resume, exit). */
static void unsuspend(struct pft *t, struct pft_proc *q, uint64_t ts)
{
	if (q->in_span)
		track_event(t, ts, q->uuid, TYPE_SLICE_END, NULL, NULL, 0, 0);
	q->in_span = false;
	if (q->suspended) {
		q->suspended = 0;
		counter(t, q->gpu_id, ts);
	}
}

static void suspend_resume(struct pft *t, const struct gp_event *e)
{
	bool susp = e->op == GP_OP_SUSPEND;
	char comm[16], res[24], b[NAMES_NUM_LEN];
	struct pft_proc *on[PFT_MAX_GPUS];
	uint32_t total = 0;
	int n = 0;

	for (int i = 0; i < t->nprocs && n < PFT_MAX_GPUS; i++)
		if (t->procs[i].pid == e->target_pid) {
			on[n++] = &t->procs[i];
			total += t->procs[i].queues;
		}
	if (!n && (on[0] = proc(t, e->target_pid, 0, NULL)))
		n = 1;
	if (!n) {
		t->dropped++;
		return;
	}
	safe_comm(comm, e->comm);
	if (e->ret < 0)
		snprintf(res, sizeof(res), "%s",
			 names_or_num(gp_errno_name(-e->ret), -e->ret, b,
				      sizeof(b)));
	else
		snprintf(res, sizeof(res), "%d queues", e->ret);
	struct annot a[] = {
		{ "queues_asked", NULL, e->susp.num_queues },
		{ "queues_done", NULL, e->susp.done },
		{ "result", res, 0 },
		{ "caller_pid", NULL, e->pid },
		{ "caller_comm", comm, 0 },
		{ "grace_period_kcycles", NULL, e->susp.grace_period },
	};
	for (int i = 0; i < n; i++) {
		struct pft_proc *q = on[i];
		/* this GPU's share of the queues done, by queues seen */
		uint32_t done = e->ret > 0 ? (uint32_t)e->ret : 0;
		uint32_t share = total && n > 1 ?
			(uint32_t)((uint64_t)done * q->queues / total) : done;

		slice(t, e->ts_ns, e->duration_ns, q->uuid, susp ?
		      "SUSPEND_QUEUES" : "RESUME_QUEUES", a, susp ? 6 : 5);
		if (!done)
			continue;
		if (susp) {
			if (!q->in_span)
				track_event(t, e->ts_ns, q->uuid,
					    TYPE_SLICE_BEGIN, "suspended",
					    NULL, 0, 0);
			q->in_span = true;
			q->suspended = share;
			counter(t, q->gpu_id, e->ts_ns);
		} else {
			unsuspend(t, q, e->ts_ns);
		}
	}
}

static void evict(struct pft *t, const struct gp_event *e)
{
	char comm[16], res[24], name[48], b[NAMES_NUM_LEN];
	struct pft_gpu *g;

	safe_comm(comm, e->comm);
	snprintf(res, sizeof(res), "%d", e->ret);
	if (e->op == GP_OP_PROC_EVICT) {
		struct annot a[] = {
			{ "pid", NULL, e->pid }, { "comm", comm, 0 },
			{ "result", res, 0 },
		};

		if (!t->trigger_uuid)
			t->trigger_uuid = describe(t, "gpreempt: evictions "
						   "by trigger", 0, false);
		snprintf(name, sizeof(name), "evict: %s", names_or_num(
			 gp_trigger_name(e->evict.trigger), e->evict.trigger,
			 b, sizeof(b)));
		slice(t, e->ts_ns, e->duration_ns, t->trigger_uuid, name, a, 3);
		return;
	}
	g = gpu(t, e->gpu_id);
	if (!g) {
		t->dropped++;
		return;
	}
	struct annot a[] = {
		{ "pid", NULL, e->pid }, { "comm", comm, 0 },
		{ "evicted_before", NULL, e->evict.evicted_before },
		{ "evicted_after", NULL, e->evict.evicted_after },
		{ "queues", NULL, e->evict.n_queues }, { "result", res, 0 },
	};
	slice(t, e->ts_ns, e->duration_ns, g->evict_uuid,
	      e->op == GP_OP_EVICT ? "evict queues" : "restore queues", a, 6);
}

void pft_seed_queue(struct pft *t, uint32_t pid, uint32_t gpu_id,
		    const char *comm, bool suspended)
{
	struct pft_proc *q = proc(t, pid, gpu_id, comm);

	if (!q) {
		t->dropped++;
		return;
	}
	q->queues++;
	if (!suspended)
		return;
	if (!q->in_span)
		track_event(t, t->last_ts, q->uuid, TYPE_SLICE_BEGIN,
			    "suspended", NULL, 0, 0);
	q->in_span = true;
	q->suspended++;
	counter(t, gpu_id, t->last_ts);
}

void pft_event(struct pft *t, const struct gp_event *e)
{
	struct pft_proc *q;
	bool reduced = e->flags & GP_EVF_REDUCED;

	if (e->ts_ns > t->last_ts)
		t->last_ts = e->ts_ns;
	switch (e->op) {
	case GP_OP_CREATE:
	case GP_OP_QUEUE_ADD:
		/* a queue is seen once: QUEUE_ADD, or CREATE when reduced
		 * mode has no QUEUE_ADD */
		if ((e->op == GP_OP_CREATE) != reduced || e->ret != 0)
			break;
		q = proc(t, e->pid, e->gpu_id, e->comm);
		if (q)
			q->queues++;
		else
			t->dropped++;
		break;
	case GP_OP_QUEUE_DEL:
		q = proc(t, e->pid, e->gpu_id, e->comm);
		if (q && q->queues)
			q->queues--;
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		suspend_resume(t, e);
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
	case GP_OP_PROC_EVICT:
		evict(t, e);
		break;
	case GP_OP_EXIT:
		for (int i = 0; i < t->nprocs; i++)
			if (t->procs[i].pid == e->pid)
				unsuspend(t, &t->procs[i], e->ts_ns);
		break;
	}
}

void pft_online_busy(struct pft *t, uint32_t gpu_id, bool busy, uint64_t ts)
{
	struct pft_gpu *g = gpu(t, gpu_id);

	if (ts > t->last_ts)
		t->last_ts = ts;
	if (!g || g->online == busy)
		return;
	g->online = busy;
	track_event(t, ts, g->online_uuid, busy ? TYPE_SLICE_BEGIN :
		    TYPE_SLICE_END, busy ? "online busy" : NULL, NULL, 0, 0);
}

int pft_close(struct pft *t)
{
	for (int i = 0; i < t->nprocs; i++)
		if (t->procs[i].in_span) {
			track_event(t, t->last_ts, t->procs[i].uuid,
				    TYPE_SLICE_END, NULL, NULL, 0, 0);
			t->procs[i].in_span = false;
		}
	for (int i = 0; i < t->ngpus; i++)
		pft_online_busy(t, t->gpus[i].gpu_id, false, t->last_ts);
	if (fflush(t->f) && !t->werr)
		t->werr = -errno;
	return t->werr;
}
