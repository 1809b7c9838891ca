// SPDX-License-Identifier: GPL-2.0
/* The daemon's metrics: counting and rendering (see metrics.h). */
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "metrics.h"

#define NS_PER_S 1e9

/* errors_total{cause}: the exit codes' meaning (exitcodes.h, README). */
static const char *const causes[16] = {
	[GP_EXIT_FAILURE] = "runtime",
	[GP_EXIT_USAGE] = "bad_request",
	[GP_EXIT_PRIV] = "privilege",
	[GP_EXIT_NO_KFD] = "no_kfd",
	[GP_EXIT_NO_DEBUG_API] = "no_debug_api",
	[GP_EXIT_TARGET] = "target_refused",
	[GP_EXIT_BUSY] = "target_busy",
	[GP_EXIT_PARTIAL] = "queues_failed",
	[GP_EXIT_DAEMON] = "protocol",
};

static const char *const ops[MOP__N] = {
	"suspend", "resume", "attach", "detach", "status", "other",
};

void metrics_init(struct gp_metrics *m, double start_unix)
{
	memset(m, 0, sizeof(*m));
	m->start_unix = start_unix;
}

void metrics_hist_add(struct metrics_hist *h, uint64_t ns)
{
	uint64_t us = (ns + 999) / 1000;	/* bucket "<= 2^k us" */
	int k = 0;

	while (k < METRICS_SLOTS && us > (1ULL << k))
		k++;
	h->counts[k]++;
	h->sum_ns += ns;
}

void metrics_on_request(struct gp_metrics *m, enum metrics_op op)
{
	m->requests[op < MOP__N ? op : MOP_OTHER]++;
}

void metrics_on_error(struct gp_metrics *m, int code)
{
	if (code <= 0 || code >= 16 || !causes[code])
		code = GP_EXIT_FAILURE;
	m->errors[code]++;
}

/* The row of pid, created if needed; when full, the least recently
 * active process not held now gives its row up. NULL if all are held. */
static struct metrics_pid *row(struct gp_metrics *m, pid_t pid, uint64_t now)
{
	struct metrics_pid *r, *old = NULL;

	for (int i = 0; i < m->npid; i++)
		if (m->pid[i].pid == pid)
			return &m->pid[i];
	if (m->npid < METRICS_MAX_PIDS) {
		r = &m->pid[m->npid++];
	} else {
		for (int i = 0; i < m->npid; i++)
			if (!m->pid[i].since_ns &&
			    (!old || m->pid[i].last_ns < old->last_ns))
				old = &m->pid[i];
		if (!old)
			return NULL;
		r = old;
	}
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->last_ns = now;
	return r;
}

void metrics_on_suspend(struct gp_metrics *m, pid_t pid, const char *comm,
			uint64_t ioctl_ns, uint64_t trigger_ns, uint64_t now)
{
	struct metrics_pid *r = row(m, pid, now);

	metrics_hist_add(&m->suspend, ioctl_ns);
	metrics_hist_add(&m->trigger, trigger_ns);
	if (!r)
		return;
	if (comm && *comm)
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->suspends++;
	r->last_ns = now;
	if (!r->since_ns)
		r->since_ns = now ? now : 1;
}

void metrics_on_resume(struct gp_metrics *m, pid_t pid, uint64_t ioctl_ns,
		       bool watchdog, uint64_t now)
{
	struct metrics_pid *r = row(m, pid, now);

	if (ioctl_ns)
		metrics_hist_add(&m->resume, ioctl_ns);
	if (watchdog)
		m->watchdog_resumes++;
	if (!r)
		return;
	r->resumes++;
	r->last_ns = now;
	if (r->since_ns) {
		r->suspended_ns += now > r->since_ns ? now - r->since_ns : 0;
		r->since_ns = 0;
	}
}

void metrics_on_gone(struct gp_metrics *m, pid_t pid, uint64_t now)
{
	for (int i = 0; i < m->npid; i++) {
		struct metrics_pid *r = &m->pid[i];

		if (r->pid != pid || !r->since_ns)
			continue;
		r->suspended_ns += now > r->since_ns ? now - r->since_ns : 0;
		r->since_ns = 0;
		r->last_ns = now;
	}
}

static void hist(struct prom_buf *b, const char *name, const char *help,
		 const struct metrics_hist *h)
{
	double bounds[METRICS_SLOTS];

	for (int k = 0; k < METRICS_SLOTS; k++)
		bounds[k] = (double)(1ULL << k) / 1e6;
	prom_family(b, name, "histogram", help);
	prom_histogram(b, name, NULL, bounds, h->counts, METRICS_SLOTS,
		       h->sum_ns / NS_PER_S);
}

static void per_pid(struct prom_buf *b, const struct gp_metrics *m,
		    const char *name, const char *help, uint64_t now, int which)
{
	char lab[96], pid[16];

	prom_family(b, name, "counter", help);
	for (int i = 0; i < m->npid; i++) {
		const struct metrics_pid *r = &m->pid[i];
		double v = which == 0 ? r->suspends : which == 1 ? r->resumes :
			   (r->suspended_ns + (r->since_ns && now > r->since_ns ?
					       now - r->since_ns : 0)) / NS_PER_S;

		snprintf(pid, sizeof(pid), "%d", (int)r->pid);
		prom_sample(b, name, prom_labels(lab, sizeof(lab), "pid", pid,
						 "comm", r->comm, NULL), v);
	}
}

void metrics_render(const struct gp_metrics *m, uint64_t now,
		    struct prom_buf *b)
{
	char lab[64];
	uint32_t held = 0;

	for (int i = 0; i < m->npid; i++)
		held += !!m->pid[i].since_ns;
	prom_family(b, "gpreempt_start_time_seconds", "gauge",
		    "Start time of the daemon since the Unix epoch.");
	prom_sample(b, "gpreempt_start_time_seconds", NULL, m->start_unix);
	prom_family(b, "gpreempt_sessions_held", "gauge",
		    "Target processes the daemon holds a debug session on.");
	prom_sample(b, "gpreempt_sessions_held", NULL, m->sessions_held);
	prom_family(b, "gpreempt_processes_suspended", "gauge",
		    "Target processes whose queues are suspended now.");
	prom_sample(b, "gpreempt_processes_suspended", NULL, held);

	per_pid(b, m, "gpreempt_suspends_total",
		"Suspend requests that suspended a process's queues.", now, 0);
	per_pid(b, m, "gpreempt_resumes_total",
		"Resumes of a process's queues (request, watchdog or policy).",
		now, 1);
	per_pid(b, m, "gpreempt_suspended_seconds_total",
		"Time a process's queues were held suspended.", now, 2);

	prom_family(b, "gpreempt_requests_total", "counter",
		    "Requests on the daemon's socket, by operation.");
	for (int i = 0; i < MOP__N; i++)
		prom_sample(b, "gpreempt_requests_total",
			    prom_labels(lab, sizeof(lab), "op", ops[i], NULL),
			    m->requests[i]);
	prom_family(b, "gpreempt_errors_total", "counter",
		    "Failed requests, by cause (the exit code's meaning).");
	for (int i = 0; i < 16; i++)
		if (causes[i])
			prom_sample(b, "gpreempt_errors_total",
				    prom_labels(lab, sizeof(lab), "cause",
						causes[i], NULL), m->errors[i]);
	prom_family(b, "gpreempt_watchdog_resumes_total", "counter",
		    "Holds ended by the --max-hold watchdog.");
	prom_sample(b, "gpreempt_watchdog_resumes_total", NULL,
		    m->watchdog_resumes);
	prom_family(b, "gpreempt_clients_rejected_total", "counter",
		    "Socket clients refused because too many were connected.");
	prom_sample(b, "gpreempt_clients_rejected_total", NULL,
		    m->clients_rejected);

	hist(b, "gpreempt_suspend_duration_seconds",
	     "Duration of the SUSPEND_QUEUES debug-trap ioctl.", &m->suspend);
	hist(b, "gpreempt_resume_duration_seconds",
	     "Duration of the RESUME_QUEUES debug-trap ioctl.", &m->resume);
	hist(b, "gpreempt_trigger_to_suspend_seconds",
	     "From a suspend request's arrival to its queues suspended.",
	     &m->trigger);
}
