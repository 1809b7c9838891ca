// SPDX-License-Identifier: GPL-2.0
/* Which processes use CUDA (cuda_find.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_find.h"
#include "cuda_nvml.h"
#include "util.h"

#define FIND_EVERY_NS (1000ULL * 1000000ULL)
#define FIND_LATE_NS (10ULL * 1000000000ULL)

struct findjob {
	pid_t skip, self;
	int n, nprev;
	int pid[GP_CUDA_FIND_MAX];
	int prev[GP_CUDA_FIND_MAX];	/* the last list: no maps read again */
};

bool gp_cuda_maps_libcuda(pid_t pid)
{
	char path[64], buf[8192 + 32];
	size_t keep = 0;
	ssize_t n;
	bool hit = false;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* the tail of each chunk is kept: a name may straddle two reads */
	while (!hit && (n = read(fd, buf + keep, sizeof(buf) - 1 - keep)) > 0) {
		size_t len = keep + n;

		buf[len] = 0;
		hit = strstr(buf, "/libcuda.so") != NULL;
		keep = len < 16 ? len : 16;
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return hit;
}

static bool in(const int *a, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (a[i] == pid)
			return true;
	return false;
}

/* NVML's compute processes; without NVML, every map naming libcuda. */
static void find_fn(void *arg)
{
	struct findjob *j = arg;
	int nv[GP_CUDA_FIND_MAX], *all = NULL, n;

	n = gp_nvml_pids(nv, GP_CUDA_FIND_MAX);
	for (int i = 0; i < n; i++)
		if (nv[i] != j->self && nv[i] != j->skip &&
		    j->n < GP_CUDA_FIND_MAX)
			j->pid[j->n++] = nv[i];
	/* NVML answers: the processes with a CUDA context. A map naming
	 * libcuda is not one: a forked child (PyTorch's DataLoader workers)
	 * inherits the mapping without a context, and a lock of it gets
	 * CUresult 3. The maps are the fallback without NVML. */
	if (n >= 0)
		return;
	/* a process found before keeps libcuda mapped: its maps (and its
	 * mmap lock, which its own allocations want) are read only once */
	n = gp_dir_ids("/proc", &all);
	for (int i = 0; i < n && j->n < GP_CUDA_FIND_MAX; i++)
		if (all[i] != j->self && all[i] != j->skip &&
		    !in(j->pid, j->n, all[i]) &&
		    (in(j->prev, j->nprev, all[i]) ||
		     gp_cuda_maps_libcuda(all[i])))
			j->pid[j->n++] = all[i];
	free(all);
}

int gp_cuda_find_now(pid_t skip, int *out, int max)
{
	struct findjob *j = calloc(1, sizeof(*j));
	int n;

	if (!j)
		return -1;
	j->skip = skip;
	j->self = getpid();
	find_fn(j);
	n = j->n < max ? j->n : max;
	memcpy(out, j->pid, n * sizeof(int));
	free(j);
	return n;
}

int gp_cuda_find(struct gp_cuda_finder *f, pid_t skip, int **pids)
{
	uint64_t now = monotonic_ns();
	struct findjob *j;

	*pids = NULL;
	if (f->job && gp_offjob_done(f->job)) {
		j = gp_offjob_arg(f->job);
		f->n = j->n;
		memcpy(f->pid, j->pid, j->n * sizeof(int));
		gp_offjob_put(f->job);
		f->job = NULL;
	} else if (f->job && gp_offjob_late(f->job, now, FIND_LATE_NS)) {
		gp_offjob_put(f->job);	/* a stuck maps read: its thread */
		f->job = NULL;
	}
	/* at most one refresh a second: it reads every process's maps */
	if (!f->job && now - f->at >= FIND_EVERY_NS &&
	    (j = calloc(1, sizeof(*j)))) {
		f->at = now;
		j->skip = skip;
		j->self = getpid();
		j->nprev = f->n;
		memcpy(j->prev, f->pid, f->n * sizeof(int));
		f->job = gp_offjob_start(find_fn, j, free, now, NULL);
	}
	if (!f->n || !(*pids = malloc(f->n * sizeof(int))))
		return 0;
	memcpy(*pids, f->pid, f->n * sizeof(int));
	return f->n;
}

void gp_cuda_find_stop(struct gp_cuda_finder *f)
{
	gp_offjob_put(f->job);
	f->job = NULL;
}
