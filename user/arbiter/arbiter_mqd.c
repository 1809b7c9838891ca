// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs MQD dump, read by a thread of its own so that the daemon's
 * loop never waits for it: KFD formats the dump holding each process's
 * mutex (kfd_debugfs_mqds_by_process -> pqm_debugfs_mqds), which an
 * ioctl, a suspend waiting for its preemption among them, can hold for
 * seconds. One read, a job off the loop (offjob.h), serves every
 * online process waiting for it (arbiter_queues.c); its result is
 * picked up at the next tick.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "arbiter_int.h"
#include "mqd.h"
#include "offjob.h"
#include "qfeed.h"

struct arb_mqd_read {	/* the job's argument and result */
	char mqds[PATH_MAX], hqds[PATH_MAX], proc[PATH_MAX];
	struct gp_qf_mqd m;	/* the result; m.a is malloc'd */
};

static void mqd_free(void *arg)
{
	struct arb_mqd_read *r = arg;

	free((void *)r->m.a);
	free(r);
}

static void run(void *arg)
{
	struct arb_mqd_read *r = arg;
	struct gp_mqd_paths mp = {
		r->mqds[0] ? r->mqds : NULL, r->hqds[0] ? r->hqds : NULL,
		NULL, r->proc[0] ? r->proc : NULL,
	};
	struct gp_mqd_addr *rows = NULL;
	int n = gp_mqd_read_addrs(&mp, &rows, &r->m.undecoded);

	if (n >= 0) {
		r->m.n = n;
		r->m.a = rows;
	} else {
		r->m.err = n;
		free(rows);
	}
}

struct gp_offjob *arb_mqd_start(const struct arbiter_opts *o, uint64_t now)
{
	struct arb_mqd_read *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (o->debugfs_kfd_dir) {
		snprintf(r->mqds, sizeof(r->mqds), "%s/mqds",
			 o->debugfs_kfd_dir);
		snprintf(r->hqds, sizeof(r->hqds), "%s/hqds",
			 o->debugfs_kfd_dir);
	}
	if (o->kfd_proc_dir)
		snprintf(r->proc, sizeof(r->proc), "%s", o->kfd_proc_dir);
	return gp_offjob_start(run, r, mqd_free, now, NULL);
}

const struct gp_qf_mqd *arb_mqd_result(const struct gp_offjob *job)
{
	const struct arb_mqd_read *r = gp_offjob_arg(job);

	return gp_offjob_done(job) ? &r->m : NULL;
}
