// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN for NVIDIA's libcuda.so.1, for the launch detector's L1 tests
 * (no NVIDIA GPU or driver on the host or in CI). Built as libcuda.so.1
 * (Makefile: $(OUTPUT)/tests/standin-launch/libcuda.so.1), it exports
 * the CUDA driver API's launch and synchronisation entry points the
 * detector probes (user/detect/detect_libs.c) under their real C names,
 * plus cuInit, and does nothing but count calls: what is real in the
 * tests is the ELF reader, the process, its mapping and the uprobes.
 * Prototypes follow NVIDIA's cuda.h (CUDA 13.0) with opaque handles;
 * every call returns 0 (CUDA_SUCCESS). Each entry has a body of its own
 * (and the Makefile builds it -O0), so no two names share an address.
 * Not tests/cuda/standin_libcuda.c: that name is the CUDA backend's
 * stand-in (cuCheckpointProcess*).
 */
#include <stddef.h>

typedef int CUresult;
typedef void *CUfunction, *CUstream, *CUevent, *CUgraphExec;

/* calls per entry, for a debugger; nothing reads them in the tests */
static volatile unsigned long calls[16];

CUresult cuInit(unsigned int flags)
{
	calls[0]++;
	return 0;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
			unsigned bx, unsigned by, unsigned bz, unsigned shmem,
			CUstream s, void **params, void **extra)
{
	calls[1]++;
	return 0;
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
			     unsigned gz, unsigned bx, unsigned by,
			     unsigned bz, unsigned shmem, CUstream s,
			     void **params, void **extra)
{
	calls[2]++;
	return 0;
}

CUresult cuLaunchKernelEx(const void *config, CUfunction f, void **params,
			  void **extra)
{
	calls[3]++;
	return 0;
}

CUresult cuLaunchKernelEx_ptsz(const void *config, CUfunction f,
			       void **params, void **extra)
{
	calls[4]++;
	return 0;
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy,
				   unsigned gz, unsigned bx, unsigned by,
				   unsigned bz, unsigned shmem, CUstream s,
				   void **params)
{
	calls[5]++;
	return 0;
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx,
					unsigned gy, unsigned gz, unsigned bx,
					unsigned by, unsigned bz,
					unsigned shmem, CUstream s,
					void **params)
{
	calls[6]++;
	return 0;
}

CUresult cuGraphLaunch(CUgraphExec g, CUstream s)
{
	calls[7]++;
	return 0;
}

CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s)
{
	calls[8]++;
	return 0;
}

CUresult cuCtxSynchronize(void)
{
	calls[9]++;
	return 0;
}

CUresult cuStreamSynchronize(CUstream s)
{
	calls[10]++;
	return 0;
}

CUresult cuStreamSynchronize_ptsz(CUstream s)
{
	calls[11]++;
	return 0;
}

CUresult cuEventSynchronize(CUevent e)
{
	calls[12]++;
	return 0;
}
