// SPDX-License-Identifier: GPL-2.0
/* One CUDA lock off the loop (cuda_lock.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuda_find.h"
#include "cuda_journal.h"
#include "cuda_lock.h"
#include "util.h"

static void lock_fn(void *arg)
{
	struct gp_cuda_lockjob *j = arg;
	uint64_t t0, one = 1;
	int st = -1;

	/* once per process: a big process's maps take a while */
	if (!j->verified && !gp_cuda_maps_libcuda(j->pid)) {
		j->stage = gp_proc_start_time(j->pid) ? GP_CL_NOT_CUDA :
							GP_CL_GONE;
		goto out;
	}
	if (gp_proc_start_time(j->pid) != j->start) {
		j->stage = GP_CL_GONE;
		goto out;
	}
	/* durable first: a lock outlives its holder (cuda_journal.h) */
	j->err = -gp_cjournal_add(j->journal, j->pid, j->start);
	if (j->err) {
		j->stage = GP_CL_JOURNAL;
		goto out;
	}
	t0 = monotonic_ns();
	j->res = gp_cuda_lock(j->api, j->pid, j->timeout_ms);
	j->ns = monotonic_ns() - t0;
	if (j->res != GP_CU_SUCCESS) {
		/* not ours: never unlock a lock another holder took (401) */
		if (j->res == GP_CU_NOT_READY &&
		    !gp_cuda_state(j->api, j->pid, &st) &&
		    st == GP_CU_STATE_LOCKED)
			gp_cuda_unlock(j->api, j->pid);
		gp_cjournal_remove(j->journal, j->pid, j->start);
	}
out:
	if (write(j->efd, &one, sizeof(one)) < 0) {
		/* the loop also looks on every tick */
	}
}

static void lock_free(void *arg)
{
	struct gp_cuda_lockjob *j = arg;

	close(j->efd);
	free(j);
}

struct gp_offjob *gp_cuda_lock_start(const struct gp_cuda_api *api,
				     const char *journal, pid_t pid,
				     uint64_t start, uint32_t timeout_ms,
				     bool verified, int efd, int *err)
{
	struct gp_cuda_lockjob *j = calloc(1, sizeof(*j));

	if (!j || (j->efd = dup(efd)) < 0) {
		*err = -(j ? errno : ENOMEM);
		free(j);
		return NULL;
	}
	j->api = api;
	snprintf(j->journal, sizeof(j->journal), "%s", journal);
	j->pid = pid;
	j->start = start;
	j->timeout_ms = timeout_ms;
	j->verified = verified;
	return gp_offjob_start(lock_fn, j, lock_free, monotonic_ns(), err);
}
