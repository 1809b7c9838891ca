// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter's Prometheus families (prom.h), rendered at scrape time
 * from the policy's own state (user/policy/policy.h): one home for the
 * counts, which `gpreempt-ctl policy` shows too. Pure: no I/O, no clock.
 */
#include <stdio.h>

#include "metrics_policy.h"
#include "prom.h"

#define NS_PER_S 1e9

static void counter(struct prom_buf *b, const char *name, const char *help,
		    uint64_t v)
{
	prom_family(b, name, "counter", help);
	prom_sample(b, name, NULL, v);
}

static void gauge(struct prom_buf *b, const char *name, const char *help,
		  double v)
{
	prom_family(b, name, "gauge", help);
	prom_sample(b, name, NULL, v);
}

static void per_offline(struct prom_buf *b, const struct gp_policy *p,
			uint64_t now, metrics_comm_fn comm, void *ctx,
			bool ratio)
{
	const char *name = ratio ? "gpreempt_policy_offline_suspended_ratio" :
			   "gpreempt_policy_offline_suspended_seconds_total";
	char lab[96], pid[16];
	int i;

	prom_family(b, name, ratio ? "gauge" : "counter", ratio ?
		    "Fraction of its time in the arbiter an offline process "
		    "spent suspended (0..1)." :
		    "Time an offline process spent suspended by the arbiter.");
	for (i = 0; i < p->n_off; i++) {
		const struct gp_poffline *o = &p->off[i];
		uint64_t s = 0;
		double f = gp_policy_suspended_fraction(p, o->pid, now, &s);
		const char *c = comm ? comm(ctx, o->pid) : "";

		snprintf(pid, sizeof(pid), "%d", o->pid);
		prom_sample(b, name, prom_labels(lab, sizeof(lab), "pid", pid,
						 "comm", c ? c : "", NULL),
			    ratio ? f : s / NS_PER_S);
	}
}

void metrics_render_policy(const struct gp_policy *p, uint64_t now,
			   metrics_comm_fn comm, void *ctx, struct prom_buf *b)
{
	const struct gp_policy_stats *s = &p->st;
	int i, held = 0;

	for (i = 0; i < p->n_off; i++)
		held += p->off[i].suspended;
	gauge(b, "gpreempt_policy_online_busy",
	      "1 while any online process is busy, else 0.",
	      gp_policy_online_busy(p));
	gauge(b, "gpreempt_policy_offline_processes",
	      "Offline processes attached and arbitrated.", p->n_off);
	gauge(b, "gpreempt_policy_offline_suspended",
	      "Offline processes the arbiter holds suspended now.", held);
	counter(b, "gpreempt_policy_busy_periods_total",
		"Online idle-to-busy transitions.", s->busy_periods);
	counter(b, "gpreempt_policy_suspends_total",
		"Suspends of offline processes by the arbiter.", s->suspends);
	counter(b, "gpreempt_policy_resumes_total",
		"Resumes of offline processes by the arbiter.", s->resumes);
	counter(b, "gpreempt_policy_budget_resumes_total",
		"Offline resumed while online was busy: the window's "
		"--min-offline-share budget was spent.", s->budget_resumes);
	counter(b, "gpreempt_policy_max_hold_resumes_total",
		"Suspensions the arbiter ended at --max-hold.",
		s->max_hold_resumes);
	counter(b, "gpreempt_policy_cancelled_resumes_total",
		"Resumes avoided: online busy again within --resume-after.",
		s->cancelled_resumes);
	counter(b, "gpreempt_policy_failures_total",
		"Suspends or resumes of the arbiter that failed.",
		s->failures);
	per_offline(b, p, now, comm, ctx, false);
	per_offline(b, p, now, comm, ctx, true);
	metrics_render_log2(b, "gpreempt_policy_trigger_to_suspend_seconds",
			    "From online's busy to the arbiter's SUSPEND "
			    "ioctl issued.", &s->trigger_to_suspend);
	metrics_render_log2(b, "gpreempt_policy_suspend_duration_seconds",
			    "The arbiter's SUSPEND_QUEUES ioctls.",
			    &s->suspend_ioctl);
	metrics_render_log2(b, "gpreempt_policy_resume_duration_seconds",
			    "The arbiter's RESUME_QUEUES ioctls.",
			    &s->resume_ioctl);
}
