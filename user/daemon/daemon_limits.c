// SPDX-License-Identifier: GPL-2.0
/*
 * A table that is full, a slot refused, a busy expired: counted by cause
 * (gpreempt_limit_hits_total{cause}) and logged, at most
 * LIMIT_LOG_PER_SEC lines a second so that a tenant filling a table
 * cannot fill the log as well; the lines dropped are counted and said.
 */
#include <stdarg.h>
#include <stdio.h>

#include "daemon_int.h"
#include "prom.h"
#include "util.h"

#define LIMIT_LOG_PER_SEC 10

static const char *const names[GP_LIMIT__N] = {
	[GP_LIMIT_CLIENTS] = "clients",
	[GP_LIMIT_CLIENTS_UID] = "clients_per_uid",
	[GP_LIMIT_EVICTED] = "idle_evicted_for_admin",
	[GP_LIMIT_ARB_PROCS] = "arbiter_processes",
	[GP_LIMIT_CLASSES] = "classes",
	[GP_LIMIT_SESSIONS] = "sessions",
	[GP_LIMIT_HOLDS_UID] = "holds_per_uid",
	[GP_LIMIT_BUSY_EXPIRED] = "busy_expired",
	[GP_LIMIT_STUCK_UID] = "stuck_per_uid",
	[GP_LIMIT_STUCK] = "stuck",
	[GP_LIMIT_PARKED] = "parked_requests",
};

static uint64_t hits[GP_LIMIT__N];
static uint64_t sec, in_sec, dropped;

void dlimit(enum gp_limit cause, const char *fmt, ...)
{
	uint64_t now = monotonic_ns() / NSEC_PER_SEC;
	char buf[512];
	va_list ap;

	if ((unsigned int)cause < GP_LIMIT__N)
		hits[cause]++;
	if (now != sec) {
		if (dropped)
			dlog_at(LOG_WARNING, "limits: %llu more lines not "
				"logged", (unsigned long long)dropped);
		sec = now;
		in_sec = dropped = 0;
	}
	if (in_sec++ >= LIMIT_LOG_PER_SEC) {
		dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dlog_at(LOG_WARNING, "limit %s: %s", names[cause], buf);
}

uint64_t dlimit_hits(enum gp_limit cause)
{
	return (unsigned int)cause < GP_LIMIT__N ? hits[cause] : 0;
}

void dlimit_render(struct prom_buf *b)
{
	char lab[64];
	int i;

	prom_family(b, "gpreempt_limit_hits_total", "counter",
		    "Requests or connections refused, or state ended, because "
		    "a bounded table or slot was full, by cause.");
	for (i = 0; i < GP_LIMIT__N; i++)
		prom_sample(b, "gpreempt_limit_hits_total",
			    prom_labels(lab, sizeof(lab), "cause", names[i],
					NULL), hits[i]);
}
