// SPDX-License-Identifier: GPL-2.0
/*
 * `suspend|resume --gpu GPU_ID`: the target's queues on those GPUs, one
 * ioctl naming exactly them. Queue ids are per process and
 * SUSPEND_QUEUES re-runs the runlist only on the GPUs holding a listed
 * queue (docs/arbiter.md), so the other GPUs are not touched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_args.h"
#include "ctl_cmd.h"
#include "exitcodes.h"
#include "qplace.h"

int ctl_resolve_gpus(struct ctl_args *a)
{
	static struct gp_qplace q[CTL_MAX_QUEUES];
	struct ctl_out o = { .json = a->json };
	struct gp_err e = {};
	uint32_t on[CTL_MAX_GPUS];
	char have[256] = "";
	int n, k, m;

	n = gp_qplace_from_sysfs(a->kfd_proc, a->pid, q, CTL_MAX_QUEUES);
	if (n < 0) {
		gp_err_set(&e, GP_EXIT_TARGET, -n, "cannot read the KFD queue "
			   "directories of pid %d under %s: %s", a->pid,
			   a->kfd_proc ? a->kfd_proc : "/sys/class/kfd/kfd/proc",
			   strerror(-n));
		return ctl_report(&o, &e);
	}
	k = gp_qplace_subset(q, n, a->gpus, a->n_gpus, a->queues,
			     CTL_MAX_QUEUES);
	if (!k) {
		m = gp_qplace_gpus(q, n, on, CTL_MAX_GPUS);
		for (int i = 0; i < m; i++)
			snprintf(have + strlen(have), sizeof(have) - strlen(have),
				 "%s%u", i ? ", " : "", on[i]);
		gp_err_set(&e, GP_EXIT_USAGE, ENOENT, "pid %d has no KFD queue "
			   "on the gpu_id%s given (its queues are on: %s); "
			   "nothing was done", a->pid, a->n_gpus > 1 ? "s" : "",
			   m ? have : "none, it has no KFD queue");
		return ctl_report(&o, &e);
	}
	a->n_queues = k;
	return 0;
}
