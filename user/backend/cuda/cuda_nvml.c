// SPDX-License-Identifier: GPL-2.0
/*
 * NVML at run time (cuda_nvml.h). Entry points and the process record
 * are those of NVIDIA's public NVML reference (nvml.h):
 * nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
 * nvmlDeviceGetUUID, nvmlDeviceGetComputeRunningProcesses_v3 with
 * nvmlProcessInfo_t { unsigned pid; unsigned long long usedGpuMemory;
 * unsigned gpuInstanceId, computeInstanceId; }.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda_nvml.h"

#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define MAX_PROCS 256

struct nvml_proc {
	unsigned int pid;
	unsigned long long used;
	unsigned int gi, ci;
};

static struct {
	pthread_mutex_t mu;
	int loaded;		/* 0 not tried, 1 ok, -1 absent */
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, void **);
	int (*uuid)(void *, char *, unsigned int);
	int (*procs)(void *, unsigned int *, struct nvml_proc *);
} nv = { .mu = PTHREAD_MUTEX_INITIALIZER };

uint32_t gp_nvml_gpu_id(const char *uuid)
{
	uint32_t h = 2166136261u;

	for (; *uuid; uuid++)
		h = (h ^ (unsigned char)*uuid) * 16777619u;
	return h ? h : 1;
}

static int load(void)
{
	int (*init)(void);
	void *h;

	if (nv.loaded)
		return nv.loaded;
	nv.loaded = -1;
#ifdef GP_STATIC
	return -1;	/* no dlopen in a static build (cuda_api.c) */
#endif
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	nv.count = (int (*)(unsigned int *))dlsym(h, "nvmlDeviceGetCount_v2");
	nv.handle = (int (*)(unsigned int, void **))dlsym(h,
				"nvmlDeviceGetHandleByIndex_v2");
	nv.uuid = (int (*)(void *, char *, unsigned int))dlsym(h,
				"nvmlDeviceGetUUID");
	nv.procs = (int (*)(void *, unsigned int *, struct nvml_proc *))
		dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!init || !nv.count || !nv.handle || !nv.uuid || !nv.procs ||
	    init())
		return -1;
	nv.loaded = 1;
	return 1;
}

int gp_nvml_gpus_of(pid_t pid, struct gp_bk_where *w, int max)
{
	static struct nvml_proc pr[MAX_PROCS];
	unsigned int ndev = 0, np, i, j;
	int k = 0;
	void *dev;

	pthread_mutex_lock(&nv.mu);
	if (load() < 0 || nv.count(&ndev)) {
		pthread_mutex_unlock(&nv.mu);
		return -1;
	}
	for (i = 0; i < ndev && k < max; i++) {
		np = MAX_PROCS;
		if (nv.handle(i, &dev) || nv.procs(dev, &np, pr))
			continue;
		for (j = 0; j < np && j < MAX_PROCS; j++) {
			if (pr[j].pid != (unsigned int)pid)
				continue;
			memset(&w[k], 0, sizeof(w[k]));
			if (nv.uuid(dev, w[k].uuid, sizeof(w[k].uuid)))
				snprintf(w[k].uuid, sizeof(w[k].uuid),
					 "GPU-index-%u", i);
			w[k].gpu_id = gp_nvml_gpu_id(w[k].uuid);
			w[k].queue_id = UINT32_MAX;
			k++;
			break;
		}
	}
	pthread_mutex_unlock(&nv.mu);
	return k;
}

int gp_nvml_pids(int *out, int max)
{
	static struct nvml_proc pr[MAX_PROCS];
	unsigned int ndev = 0, np, i, j;
	int k = 0, m;
	void *dev;

	pthread_mutex_lock(&nv.mu);
	if (load() < 0 || nv.count(&ndev)) {
		pthread_mutex_unlock(&nv.mu);
		return -1;
	}
	for (i = 0; i < ndev; i++) {
		np = MAX_PROCS;
		if (nv.handle(i, &dev) || nv.procs(dev, &np, pr))
			continue;
		for (j = 0; j < np && j < MAX_PROCS && k < max; j++) {
			for (m = 0; m < k && out[m] != (int)pr[j].pid; m++)
				;
			if (m == k)
				out[k++] = pr[j].pid;
		}
	}
	pthread_mutex_unlock(&nv.mu);
	return k;
}
