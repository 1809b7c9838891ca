/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arbiter's Prometheus families (metrics.h lists them), rendered
 * from the policy's own state at scrape time (metrics_policy.c).
 */
#ifndef GP_METRICS_POLICY_H
#define GP_METRICS_POLICY_H

#include <stdint.h>

#include "prom.h"
#include "policy.h"

/* The comm of an offline pid, for its labels ("" if unknown). */
typedef const char *(*metrics_comm_fn)(void *ctx, int pid);
/* The arbiter's families from its policy at monotonic now (the policy's
 * clock). */
void metrics_render_policy(const struct gp_policy *p, uint64_t now,
			   metrics_comm_fn comm, void *ctx, struct prom_buf *b);

#endif
