// SPDX-License-Identifier: GPL-2.0
/* The arbiter's part of the --metrics scrape (arbiter.h, metrics.h). */
#include "arbiter_int.h"
#include "metrics_policy.h"
#include "util.h"

static const char *comm_of(void *ctx, int pid)
{
	struct arb_proc *p = arb_find(ctx, pid);

	return p ? p->comm : "";
}

void arbiter_metrics(const struct daemon *d, struct prom_buf *b)
{
	struct arbiter *a = arb_of(d);

	if (a) {
		uint64_t now = monotonic_ns();

		/* The node-wide families: the per-GPU policy's node view. */
		metrics_render_policy(arbg_view(a, now), now, comm_of, a, b);
		arbg_metrics(a, b);
	}
}
