// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU runtime libraries the launch detector probes (detect_libs.h).
 * A process maps one of them; one that maps both is probed in its HIP
 * library only (detect_launch.c says so in its reason).
 */
#include <string.h>

#include "detect_libs.h"

/*
 * HIP 5.7.1 (Debian trixie libamdhip64-5, nm -D --defined-only): every
 * entry below is exported; hipExtModuleLaunchKernel only C++-mangled
 * (_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjm...), the
 * path rocBLAS/hipBLASLt GEMMs take. No .symtab: internal ihip*
 * functions have no names to probe.
 */
static const struct gp_dl_entry hip[GP_ENT_MAX] = {
	[GP_ENT_LAUNCH] = { "hipLaunchKernel" },
	[GP_ENT_LAUNCH_SPT] = { "hipLaunchKernel_spt" },
	[GP_ENT_EXT_LAUNCH] = { "hipExtLaunchKernel" },
	[GP_ENT_MODULE] = { "hipModuleLaunchKernel" },
	[GP_ENT_EXT_MODULE] = { "_Z24hipExtModuleLaunchKernel", true },
	[GP_ENT_COOP] = { "hipLaunchCooperativeKernel" },
	[GP_ENT_COOP_SPT] = { "hipLaunchCooperativeKernel_spt" },
	[GP_ENT_MODULE_COOP] = { "hipModuleLaunchCooperativeKernel" },
	[GP_ENT_GRAPH] = { "hipGraphLaunch" },
	[GP_ENT_GRAPH_SPT] = { "hipGraphLaunch_spt" },
	[GP_ENT_DEV_SYNC] = { "hipDeviceSynchronize", false, true },
	[GP_ENT_STREAM_SYNC] = { "hipStreamSynchronize", false, true },
	[GP_ENT_EVENT_SYNC] = { "hipEventSynchronize", false, true },
};

/*
 * The CUDA driver API's launch and synchronisation calls, exported with C
 * names by libcuda.so.1 (NVIDIA's CUDA Driver API reference: Execution
 * Control, Graph Management, Context, Stream and Event Management; the
 * _ptsz forms are the per-thread default stream's). Measured on the lent
 * H200 (driver 580.159.04, 2026-11-28): an unmodified eager PyTorch
 * process launches every kernel through cuLaunchKernel and
 * cuLaunchKernelEx (cuBLAS); the _ptsz forms counted 0. The runtime API
 * (libcudart, linked into the application) calls these.
 */
static const struct gp_dl_entry cuda[GP_ENT_MAX] = {
	[GP_ENT_LAUNCH] = { "cuLaunchKernel" },
	[GP_ENT_LAUNCH_SPT] = { "cuLaunchKernel_ptsz" },
	[GP_ENT_EXT_LAUNCH] = { "cuLaunchKernelEx" },
	[GP_ENT_EXT_LAUNCH_SPT] = { "cuLaunchKernelEx_ptsz" },
	[GP_ENT_COOP] = { "cuLaunchCooperativeKernel" },
	[GP_ENT_COOP_SPT] = { "cuLaunchCooperativeKernel_ptsz" },
	[GP_ENT_GRAPH] = { "cuGraphLaunch" },
	[GP_ENT_GRAPH_SPT] = { "cuGraphLaunch_ptsz" },
	[GP_ENT_DEV_SYNC] = { "cuCtxSynchronize", false, true },
	[GP_ENT_STREAM_SYNC] = { "cuStreamSynchronize", false, true },
	[GP_ENT_STREAM_SYNC_SPT] = { "cuStreamSynchronize_ptsz", false, true },
	[GP_ENT_EVENT_SYNC] = { "cuEventSynchronize", false, true },
};

/* "libcuda.so", not "libcuda": libcudart (the runtime API, linked into
 * the application) is not the driver library. */
const struct gp_dl_runtime gp_dl_runtimes[GP_RT_MAX] = {
	[GP_RT_HIP] = { "HIP", "libamdhip64", hip },
	[GP_RT_CUDA] = { "CUDA", "libcuda.so", cuda },
};

int gp_dl_runtime_of(const char *path, size_t len)
{
	const char *b = memrchr(path, '/', len);
	size_t n;
	int r;

	if (b)
		len -= b + 1 - path, path = b + 1;
	for (r = 0; r < GP_RT_MAX; r++) {
		n = strlen(gp_dl_runtimes[r].lib);
		if (len >= n && !memcmp(path, gp_dl_runtimes[r].lib, n))
			return r;
	}
	return -1;
}

const char *gp_dl_entry_name(__u32 cookie)
{
	__u32 rt = GP_ENT_RT(cookie), slot = GP_ENT_SLOT(cookie);

	if (rt >= GP_RT_MAX || slot >= GP_ENT_MAX)
		return NULL;
	return gp_dl_runtimes[rt].entries[slot].sym;
}
