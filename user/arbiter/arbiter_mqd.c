// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs MQD dump, read by a thread of its own so that the daemon's
 * loop never waits for it: KFD formats the dump holding each process's
 * mutex (kfd_debugfs_mqds_by_process -> pqm_debugfs_mqds), which an
 * ioctl, a suspend waiting for its preemption among them, can hold for
 * seconds. One read serves every online process waiting for it
 * (arbiter_queues.c); its result is picked up at the next tick.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_int.h"
#include "mqd.h"
#include "qfeed.h"

struct arb_mqd_read {
	atomic_int refs;	/* the thread's and the caller's */
	atomic_bool done;
	char mqds[PATH_MAX], hqds[PATH_MAX], proc[PATH_MAX];
	struct gp_qf_mqd m;	/* the result; m.a is malloc'd */
};

void arb_mqd_put(struct arb_mqd_read *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
		free((void *)r->m.a);
		free(r);
	}
}

static void *run(void *arg)
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
	atomic_store(&r->done, true);	/* publishes m */
	arb_mqd_put(r);
	return NULL;
}

struct arb_mqd_read *arb_mqd_start(const struct arbiter_opts *o)
{
	struct arb_mqd_read *r = calloc(1, sizeof(*r));
	pthread_attr_t at;
	pthread_t th;
	int e;

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
	atomic_init(&r->refs, 2);
	atomic_init(&r->done, false);
	e = pthread_attr_init(&at);
	if (!e) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		e = pthread_create(&th, &at, run, r);
		pthread_attr_destroy(&at);
	}
	if (e) {		/* no thread: a read that failed, said so */
		r->m.err = -e;
		atomic_store(&r->refs, 1);
		atomic_store(&r->done, true);
	}
	return r;
}

const struct gp_qf_mqd *arb_mqd_result(struct arb_mqd_read *r)
{
	return atomic_load(&r->done) ? &r->m : NULL;
}
