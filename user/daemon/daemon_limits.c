// SPDX-License-Identifier: GPL-2.0
/*
 * A table that is full, a slot refused, a busy expired: counted by cause
 * (gpreempt_limit_hits_total{cause}) and logged, at most
 * LIMIT_LOG_PER_SEC lines a second so that a tenant filling a table
 * cannot fill the log as well; the lines dropped are counted and said.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "daemon_int.h"
#include "prom.h"
#include "util.h"

#define LIMIT_LOG_PER_SEC 10

/* The daemon's own causes; the modules' are their gp_module.limits. */
static const char *const names[GP_LIMIT__N] = {
	[GP_LIMIT_CLIENTS] = "clients",
	[GP_LIMIT_CLIENTS_UID] = "clients_per_uid",
	[GP_LIMIT_EVICTED] = "idle_evicted_for_admin",
	[GP_LIMIT_SESSIONS] = "sessions",
	[GP_LIMIT_HOLDS_UID] = "holds_per_uid",
};

static uint64_t hits[GP_LIMIT__N];
/* The registered modules' causes, in registration order. */
static const struct gp_module *mods[DAEMON_MAX_MODULES];
static unsigned int n_mods;
static uint64_t mod_hits[DAEMON_MAX_MODULES][DAEMON_MAX_MOD_LIMITS];
static uint64_t sec, in_sec, dropped;

static void vlimit(const char *name, uint64_t *hit, const char *fmt,
		   va_list ap)
{
	uint64_t now = monotonic_ns() / NSEC_PER_SEC;
	char buf[512];

	if (hit)
		(*hit)++;
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
	vsnprintf(buf, sizeof(buf), fmt, ap);
	dlog_at(LOG_WARNING, "limit %s: %s", name, buf);
}

void dlimit(enum gp_limit cause, const char *fmt, ...)
{
	bool ok = (unsigned int)cause < GP_LIMIT__N;
	va_list ap;

	va_start(ap, fmt);
	vlimit(ok ? names[cause] : "unknown", ok ? &hits[cause] : NULL, fmt,
	       ap);
	va_end(ap);
}

int dlimit_add_module(const struct gp_module *m)
{
	unsigned int k;
	int i;

	for (k = 0; k < n_mods; k++)
		if (mods[k] == m)
			return 0;
	if (n_mods == DAEMON_MAX_MODULES)
		return -ENOSPC;
	for (i = 0; m->limits && m->limits[i]; i++)
		if (i == DAEMON_MAX_MOD_LIMITS)
			return -E2BIG;
	mods[n_mods++] = m;
	return 0;
}

/* m's cause i: its counter and name, or NULL when m or i is unknown. */
static uint64_t *mod_slot(const struct gp_module *m, int i,
			  const char **name)
{
	unsigned int k = 0;
	int n = 0;

	while (k < n_mods && mods[k] != m)
		k++;
	if (k == n_mods || i < 0 || i >= DAEMON_MAX_MOD_LIMITS ||
	    !m->limits)
		return NULL;
	while (n < i && m->limits[n])
		n++;
	if (n != i || !m->limits[i])
		return NULL;
	*name = m->limits[i];
	return &mod_hits[k][i];
}

void dlimit_mod(const struct gp_module *m, int cause, const char *fmt, ...)
{
	const char *name = "unknown";
	uint64_t *hit = mod_slot(m, cause, &name);
	va_list ap;

	va_start(ap, fmt);
	vlimit(name, hit, fmt, ap);
	va_end(ap);
}

uint64_t dlimit_mod_hits(const struct gp_module *m, int cause)
{
	const char *name;
	uint64_t *hit = mod_slot(m, cause, &name);

	return hit ? *hit : 0;
}

uint64_t dlimit_hits(enum gp_limit cause)
{
	return (unsigned int)cause < GP_LIMIT__N ? hits[cause] : 0;
}

void dlimit_render(struct prom_buf *b)
{
	const struct gp_module *m;
	char lab[64];
	unsigned int k;
	int i;

	prom_family(b, "gpreempt_limit_hits_total", "counter",
		    "Requests or connections refused, or state ended, because "
		    "a bounded table or slot was full, by cause.");
	for (i = 0; i < GP_LIMIT__N; i++)
		prom_sample(b, "gpreempt_limit_hits_total",
			    prom_labels(lab, sizeof(lab), "cause", names[i],
					NULL), hits[i]);
	for (k = 0; k < n_mods; k++)
		for (i = 0; (m = mods[k])->limits && m->limits[i] &&
			    i < DAEMON_MAX_MOD_LIMITS; i++)
			prom_sample(b, "gpreempt_limit_hits_total",
				    prom_labels(lab, sizeof(lab), "cause",
						m->limits[i], NULL),
				    mod_hits[k][i]);
}
