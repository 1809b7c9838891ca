// SPDX-License-Identifier: GPL-2.0
/* Event formatting for gpreempt-trace: names, text lines, NDJSON. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "output.h"
#include "text.h"
#include "util.h"

/* Queue type names shortened for the text DETAIL column. */
static const char *qtype_short(const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, "compute_aql"))
		return "aql";
	if (!strcmp(name, "sdma_xgmi"))
		return "xgmi";
	if (!strcmp(name, "sdma_by_eng_id"))
		return "sdma_eng";
	return name;
}

static bool instant(__u32 op)
{
	return op == GP_OP_QUEUE_ADD || op == GP_OP_QUEUE_DEL ||
	       op == GP_OP_EXIT;
}

/* A duration in the LAT column's unit, without the unit. */
static int fmt_in_unit(char *buf, size_t len, __u64 ns, enum gp_unit u)
{
	switch (u) {
	case GP_UNIT_MSEC:
		return snprintf(buf, len, "%.3f", ns / 1e6);
	case GP_UNIT_USEC:
		return snprintf(buf, len, "%.1f", ns / 1e3);
	default:
		return snprintf(buf, len, "%llu", (unsigned long long)ns);
	}
}

static void fmt_lat(char *buf, size_t len, const struct gp_event *e,
		    enum gp_unit u)
{
	if (instant(e->op))
		snprintf(buf, len, "-");
	else
		fmt_in_unit(buf, len, e->duration_ns, u);
}

/* " hw_unmap 12.3 hw_fence 40.1": the phases seen, in the LAT unit. */
static void fmt_phases(char *buf, size_t len, const struct gp_event *e,
		       enum gp_unit u)
{
	size_t off = strlen(buf);

	for (__u32 ph = 0; ph < GP_PHASE_MAX && off < len; ph++) {
		if (!e->susp.phase_ns[ph])
			continue;
		off += snprintf(buf + off, len - off, " %s ",
				gp_phase_name(ph));
		if (off < len)
			off += fmt_in_unit(buf + off, len - off,
					   e->susp.phase_ns[ph], u);
	}
}

static void fmt_ret(char *buf, size_t len, int ret)
{
	const char *n = ret < 0 ? gp_errno_name(ret) : NULL;

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%d", ret);
}

/* The short op-specific column; see output.h. */
static void fmt_detail(char *buf, size_t len, const struct gp_event *e,
		       enum gp_unit u)
{
	char n[24], sz[24];
	const char *t;

	buf[0] = '\0';
	switch (e->op) {
	case GP_OP_CREATE:
		gp_fmt_size(sz, sizeof(sz), e->queue.ring_size);
		t = qtype_short(names_ioc_queue_type(e->queue.type));
		snprintf(buf, len, "%s p%u %s",
			 names_or_num(t, e->queue.type, n, sizeof(n)),
			 e->queue.priority, sz);
		break;
	case GP_OP_QUEUE_ADD:
	case GP_OP_QUEUE_DEL:
		t = qtype_short(gp_kq_type_name(e->queue.type));
		snprintf(buf, len, "%s p%u",
			 names_or_num(t, e->queue.type, n, sizeof(n)),
			 e->queue.priority);
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		snprintf(buf, len, "evicted %u->%u", e->evict.evicted_before,
			 e->evict.evicted_after);
		break;
	case GP_OP_PROC_EVICT:
		t = gp_trigger_name(e->evict.trigger);
		if (t && !strncmp(t, "criu_", 5))	/* fit the column */
			t = e->evict.trigger == 4 ? "criu_ckpt" : "criu_rstr";
		snprintf(buf, len, "%s",
			 names_or_num(t, e->evict.trigger, n, sizeof(n)));
		break;
	case GP_OP_DBG_TRAP:
		snprintf(buf, len, "%s >%u",
			 names_or_num(gp_dbg_op_short(e->dbg.dbg_op),
				e->dbg.dbg_op, n, sizeof(n)), e->target_pid);
		break;
	case GP_OP_SUSPEND:
		snprintf(buf, len, "%u/%u g%u", e->susp.done,
			 e->susp.num_queues, e->susp.grace_period);
		fmt_phases(buf, len, e, u);
		break;
	case GP_OP_RESUME:
		snprintf(buf, len, "%u/%u", e->susp.done, e->susp.num_queues);
		fmt_phases(buf, len, e, u);
		break;
	case GP_OP_HW_UNMAP:
		snprintf(buf, len, "f%u %u%s", e->hw.filter, e->hw.filter_param,
			 e->hw.reset ? " reset" : "");
		break;
	case GP_OP_HW_FENCE:
		snprintf(buf, len, "%ums", e->hw.timeout_ms);
		break;
	case GP_OP_EXIT:
		snprintf(buf, len, "%u rows", e->evict.n_queues);
		break;
	}
}

static int64_t boot_to_real(const struct gp_out_opts *o)
{
	static int64_t cached;
	struct timespec rt;

	if (o->boot_to_real_ns)
		return o->boot_to_real_ns;
	if (!cached) {
		clock_gettime(CLOCK_REALTIME, &rt);
		cached = (int64_t)rt.tv_sec * NSEC_PER_SEC + rt.tv_nsec -
			 (int64_t)boottime_ns();
	}
	return cached;
}

void gp_out_header(FILE *f, const struct gp_out_opts *o)
{
	char lat[16];

	if (o->json)
		return;
	snprintf(lat, sizeof(lat), "LAT(%s)", gp_unit_short(o->unit));
	if (o->timestamp)
		fprintf(f, "%-8s ", "TIME");
	fprintf(f, "%-8s %-7s %-7s %-7s %-15s %10s %4s %-6s %8s %s\n", "OP",
		"PID", "NSPID", "CGROUP", "COMM", "GPU", "QID", "RET", lat,
		"DETAIL");
}

void gp_out_event_text(FILE *f, const struct gp_event *e,
		       const struct gp_out_opts *o)
{
	char op[16], ret[24], lat[32], detail[64], comm[GP_COMM_LEN + 1];

	if (o->timestamp) {
		int64_t real = (int64_t)e->ts_ns + boot_to_real(o);
		time_t t = real / (int64_t)NSEC_PER_SEC;
		struct tm tm;
		char ts[16];

		localtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		fprintf(f, "%-8s ", ts);
	}
	/* A comm is the process's choice: no escape sequences to a tty. */
	gp_text_safe(comm, sizeof(comm), e->comm, GP_COMM_LEN);
	fmt_ret(ret, sizeof(ret), e->ret);
	fmt_lat(lat, sizeof(lat), e, o->unit);
	fmt_detail(detail, sizeof(detail), e, o->unit);
	fprintf(f, "%-8s %-7u %-7u %-7llu %-15.15s %10u %4u %-6s %8s%s%s\n",
		names_or_num(gp_op_name(e->op), e->op, op, sizeof(op)), e->pid,
		e->ns_pid, (unsigned long long)e->cgroup_id, comm, e->gpu_id,
		e->queue_id, ret, lat, detail[0] ? " " : "", detail);
}

static void json_name(struct json *j, const char *key, const char *raw_key,
		      const char *name, __u32 raw)
{
	char n[16];

	json_str(j, key, names_or_num(name, raw, n, sizeof(n)));
	json_u64(j, raw_key, raw);
}

void gp_out_event_json(FILE *f, const struct gp_event *e)
{
	char comm[GP_COMM_LEN + 1], n[16];
	struct json j;

	memcpy(comm, e->comm, GP_COMM_LEN);
	comm[GP_COMM_LEN] = '\0';
	json_begin(&j, f);
	json_str(&j, "type", "event");
	json_str(&j, "op", names_or_num(gp_op_name(e->op), e->op, n, sizeof(n)));
	json_u64(&j, "ts_boot_ns", e->ts_ns);
	json_u64(&j, "duration_ns", e->duration_ns);
	json_u64(&j, "pid", e->pid);
	json_u64(&j, "tid", e->tid);
	json_u64(&j, "ns_pid", e->ns_pid);
	json_u64(&j, "cgroup_id", e->cgroup_id);
	json_str(&j, "comm", comm);
	json_u64(&j, "gpu_id", e->gpu_id);
	json_u64(&j, "queue_id", e->queue_id);
	json_s64(&j, "ret", e->ret);
	if (e->ret < 0)
		json_str(&j, "errno_name", names_or_num(gp_errno_name(e->ret),
						  -e->ret, n, sizeof(n)));
	json_u64(&j, "pasid", e->pasid);
	json_bool(&j, "reduced", e->flags & GP_EVF_REDUCED);
	json_bool(&j, "kworker", e->flags & GP_EVF_KWORKER);

	switch (e->op) {
	case GP_OP_CREATE:
	case GP_OP_QUEUE_ADD:
	case GP_OP_QUEUE_DEL:
		json_name(&j, "queue_type", "queue_type_raw",
			  e->op == GP_OP_CREATE ?
			  names_ioc_queue_type(e->queue.type) :
			  gp_kq_type_name(e->queue.type), e->queue.type);
		json_u64(&j, "priority", e->queue.priority);
		json_u64(&j, "percentage", e->queue.percentage);
		json_u64(&j, "ring_size_bytes", e->queue.ring_size);
		json_hex(&j, "doorbell_offset", e->queue.doorbell_offset);
		break;
	case GP_OP_EVICT:
	case GP_OP_RESTORE:
		json_u64(&j, "evicted_before", e->evict.evicted_before);
		json_u64(&j, "evicted_after", e->evict.evicted_after);
		json_u64(&j, "n_queues", e->evict.n_queues);
		break;
	case GP_OP_PROC_EVICT:
		json_name(&j, "trigger", "trigger_raw",
			  gp_trigger_name(e->evict.trigger), e->evict.trigger);
		break;
	case GP_OP_DBG_TRAP:
		json_name(&j, "dbg_op", "dbg_op_raw",
			  gp_dbg_op_name(e->dbg.dbg_op), e->dbg.dbg_op);
		json_u64(&j, "target_pid", e->target_pid);
		json_u64(&j, "debugger_pid", e->dbg.debugger_pid);
		break;
	case GP_OP_SUSPEND:
	case GP_OP_RESUME:
		json_u64(&j, "target_pid", e->target_pid);
		json_u64(&j, "queues_asked", e->susp.num_queues);
		json_u64(&j, "queues_done", e->susp.done);
		if (e->op == GP_OP_SUSPEND)
			json_u64(&j, "grace_period_kcycles",
				 e->susp.grace_period);
		for (__u32 ph = 0; ph < GP_PHASE_MAX; ph++) {
			char key[32];

			snprintf(key, sizeof(key), "phase_%s_ns",
				 gp_phase_name(ph));
			json_u64(&j, key, e->susp.phase_ns[ph]);
		}
		break;
	case GP_OP_HW_UNMAP:
		json_u64(&j, "target_pid", e->target_pid);
		json_u64(&j, "filter", e->hw.filter);
		json_u64(&j, "filter_param", e->hw.filter_param);
		json_bool(&j, "reset", e->hw.reset);
		break;
	case GP_OP_HW_FENCE:
		json_u64(&j, "target_pid", e->target_pid);
		json_u64(&j, "timeout_ms", e->hw.timeout_ms);
		break;
	case GP_OP_MES_REMOVE:
	case GP_OP_MES_ADD:
		json_u64(&j, "target_pid", e->target_pid);
		break;
	case GP_OP_EXIT:
		json_u64(&j, "queues_dropped", e->evict.n_queues);
		break;
	}
	json_end_batched(&j);	/* trace.c flushes per poll */
}

void gp_out_event(FILE *f, const struct gp_event *e,
		  const struct gp_out_opts *o)
{
	if (o->json)
		gp_out_event_json(f, e);
	else
		gp_out_event_text(f, e, o);
}

bool gp_out_wanted(const struct gp_event *e, const struct gp_out_opts *o)
{
	/* enum kfd_dbg_trap_operations: SUSPEND_QUEUES 6, RESUME_QUEUES 7 */
	return o->json || o->all_dbg || e->op != GP_OP_DBG_TRAP ||
	       e->dbg.dbg_op == 6 || e->dbg.dbg_op == 7;
}

void gp_out_counts(FILE *f, const struct gp_count *c,
		   const struct gp_out_opts *o)
{
	char n[NAMES_NUM_LEN];
	bool any = false;
	struct json j;

	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		const char *name;

		if (!c[op].count)
			continue;
		name = names_or_num(gp_op_name(op), op, n, sizeof(n));
		if (o->json) {
			json_begin(&j, f);
			json_str(&j, "type", "count");
			json_str(&j, "op", name);
			json_u64(&j, "count", c[op].count);
			json_u64(&j, "failed", c[op].failed);
			json_end_batched(&j);
			continue;
		}
		if (!any)
			fprintf(f, "\n%-8s %8s %8s\n", "OP", "COUNT", "FAILED");
		fprintf(f, "%-8s %8llu %8llu\n", name,
			(unsigned long long)c[op].count,
			(unsigned long long)c[op].failed);
		any = true;
	}
	if (!any && !o->json)
		fprintf(f, "\nNo KFD events counted.\n");
}

void gp_out_full(FILE *f, uint64_t hist_samples, uint64_t queues,
		 const struct gp_out_opts *o)
{
	struct json j;

	if (!hist_samples && !queues)
		return;
	if (o->json) {
		json_begin(&j, f);
		json_str(&j, "type", "map_full");
		json_u64(&j, "hist_samples", hist_samples);
		json_u64(&j, "queues", queues);
		json_end(&j);
		return;
	}
	if (hist_samples)
		fprintf(f, "%" PRIu64 " histogram samples dropped (gp_hists "
			"full)\n", hist_samples);
	if (queues)
		fprintf(f, "%" PRIu64 " queues not tracked (gp_queues full)\n",
			queues);
}

void gp_out_lost(FILE *f, uint64_t lost, const struct gp_out_opts *o)
{
	struct json j;

	if (o->json) {
		json_begin(&j, f);
		json_str(&j, "type", "lost");
		json_u64(&j, "events", lost);
		json_end(&j);
	} else if (lost) {
		fprintf(f, "%" PRIu64 " events lost (ring buffer full)\n",
			lost);
	}
}
