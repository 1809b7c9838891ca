// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-trace --perfetto FILE: the file and the clocks around the pure
 * writer (pftrace.c), so that trace.c only calls pft_start/pft_finish.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdlib.h>

#include "exitcodes.h"
#include "mapdump.h"
#include "pftrace.h"
#include "procfs.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The queue map's rows at the start: who is on which GPU already. */
static void seed(struct pft *t, int fd)
{
	struct gp_queue_key *k = NULL;
	struct gp_queue_val *v = NULL;
	char comm[16];
	int n;

	n = fd < 0 ? 0 : gp_map_dump(fd, sizeof(*k), sizeof(*v), true,
				     (void **)&k, (void **)&v);
	for (int i = 0; i < n; i++) {
		/* the per-key walk may repeat a row: count each once */
		bool dup = false;

		for (int j = 0; j < i && !dup; j++)
			dup = !memcmp(&k[i], &k[j], sizeof(k[i]));
		if (!dup)
			pft_seed_queue(t, k[i].pid, k[i].gpu_id,
				       procfs_comm(k[i].pid, comm, sizeof(comm)),
				       v[i].state == GP_QS_SUSPENDED ||
				       v[i].state == GP_QS_EVICTED_SUSPENDED);
	}
	free(k);
	free(v);
}

int pft_start(struct pft *t, const char *path, int queues_fd,
	      struct gp_err *e)
{
	struct pft_clocks c;
	FILE *f = fopen(path, "we");

	if (!f)
		return gp_err_set(e, GP_EXIT_USAGE, errno, "--perfetto: cannot "
				  "create %s: %s (a writable path; nothing was "
				  "traced)", path, strerror(errno));
	/* Read together (monotonic and realtime between two boottime reads
	 * would be finer; a microsecond is below what the UI shows). */
	c.boottime = clock_ns(CLOCK_BOOTTIME);
	c.monotonic = clock_ns(CLOCK_MONOTONIC);
	c.realtime = clock_ns(CLOCK_REALTIME);
	/* the sequence id: our pid, unique among the producers on a host */
	if (pft_open(t, f, &c, (uint32_t)getpid())) {
		fclose(f);
		return gp_err_set(e, GP_EXIT_FAILURE, -t->werr, "--perfetto: "
				  "writing %s: %s", path, strerror(-t->werr));
	}
	seed(t, queues_fd);
	return 0;
}

int pft_finish(struct pft *t, const char *path, struct gp_err *e)
{
	int err = pft_close(t);

	if (fclose(t->f) && !err)
		err = -errno;
	t->f = NULL;
	if (err)
		return gp_err_set(e, GP_EXIT_FAILURE, -err, "--perfetto: "
				  "writing %s: %s (the trace is incomplete)",
				  path, strerror(-err));
	if (t->dropped)
		return gp_err_set(e, GP_EXIT_OK, 0, "--perfetto: %llu events "
				  "or tracks not in %s (more than %d GPUs or "
				  "%d process/GPU pairs)", (unsigned long long)
				  t->dropped, path, PFT_MAX_GPUS,
				  PFT_MAX_PROCS);
	return 0;
}
