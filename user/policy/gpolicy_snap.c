// SPDX-License-Identifier: GPL-2.0
/*
 * A held process's GET_QUEUE_SNAPSHOT as its placement (gpolicy.h): the
 * session takes one at attach and before every suspend and resume
 * (session.h), and it lists every queue of the process with its gpu_id,
 * those created before any tracer ran included. It fills the placement
 * (new queues) and refreshes it (the newest gpu_id and type win). It does
 * not remove: a queue it lacks may be one another source reported that
 * this kernel does not show (the tests' stand-in sysfs tree); the
 * tracer's DESTROY_QUEUE removes.
 */
#include <errno.h>

#include "gpolicy.h"

int gp_gpolicy_snapshot(struct gp_gpolicy *g, uint64_t now, int pid,
			const struct gp_qplace *rows, int n,
			struct gp_gactions *out)
{
	int r;

	if (!gp_gpolicy_proc(g, pid))
		return -ENOENT;
	for (int i = 0; i < n; i++) {
		struct gp_qplace q = rows[i];

		q.origin = GP_QP_SNAPSHOT;
		r = gp_gpolicy_queue(g, now, pid, &q, out);
		if (r)
			return r;
	}
	return 0;
}
