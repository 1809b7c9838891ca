// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl list`'s CUDA processes (NVIDIA): where libcuda.so.1
 * loads, every process NVML reports (without NVML: whose maps name libcuda),
 * with its checkpoint state (cuCheckpointProcessGetState) and its GPUs
 * (NVML UUIDs; "all" without NVML). A one-shot command: the driver calls
 * and /proc reads run on this thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ctl_cmd.h"
#include "cuda_api.h"
#include "cuda_find.h"
#include "cuda_nvml.h"
#include "json.h"
#include "procfs.h"

#define LIST_MAX 256

static void gpus_of(pid_t pid, char *buf, size_t len)
{
	struct gp_bk_where w[GP_BK_MAX_WHERE];
	int n = gp_nvml_gpus_of(pid, w, GP_BK_MAX_WHERE);
	size_t off = 0;

	snprintf(buf, len, "%s", n < 0 ? "all (no NVML)" : n ? "" :
		 "none (NVML: no compute context)");
	for (int i = 0; i < n && off + 1 < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "",
				w[i].uuid);
}

void ctl_list_cuda(const struct ctl_out *o, pid_t want, int *listed)
{
	static int pids[LIST_MAX];
	struct gp_cuda_api api;
	struct gp_err e = {};
	char comm[64], gpus[256];
	struct json j;
	int n, st;

	*listed = 0;
	if (gp_cuda_load(&api, &e))
		return;		/* not an NVIDIA machine: KFD's list alone */
	n = gp_cuda_find_now(0, pids, LIST_MAX);
	for (int i = 0; i < n; i++) {
		if (want && pids[i] != want)
			continue;
		if (!procfs_comm(pids[i], comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "?");
		if (gp_cuda_state(&api, pids[i], &st))
			st = -1;
		gpus_of(pids[i], gpus, sizeof(gpus));
		if (o->json) {
			json_begin(&j, stdout);
			json_str(&j, "type", "cuda_process");
			json_s64(&j, "pid", pids[i]);
			json_str(&j, "comm", comm);
			json_str(&j, "backend", "cuda");
			json_str(&j, "state", gp_cuda_state_name(st));
			json_str(&j, "gpus", gpus);
			json_end(&j);
		} else {
			if (!*listed)
				printf("\nCUDA processes (backend cuda):\n"
				       "%-8s %-16s %-13s %s\n", "PID", "COMM",
				       "STATE", "GPUS");
			printf("%-8d %-16s %-13s %s\n", pids[i], comm,
			       gp_cuda_state_name(st), gpus);
		}
		(*listed)++;
	}
	fflush(stdout);
	gp_cuda_unload(&api);
}
