// SPDX-License-Identifier: GPL-2.0
/* libcuda.so.1's checkpoint API at run time (cuda_api.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "cuda_api.h"
#include "exitcodes.h"

/* CUcheckpointLockArgs: timeoutMs, reserved0, reserved1[7]; zeroed. */
struct cu_lock_args {
	unsigned int timeout_ms;
	unsigned int reserved0;
	uint64_t reserved1[7];
};

/* CUcheckpointUnlockArgs: reserved[8]; zeroed. */
struct cu_unlock_args {
	uint64_t reserved[8];
};

int gp_cuda_load(struct gp_cuda_api *a, struct gp_err *e)
{
	int (*ver)(int *);

	memset(a, 0, sizeof(*a));
#ifdef GP_STATIC
	/* static glibc loads no driver library reliably */
	return gp_err_set(e, GP_EXIT_NO_CUDA, ENOSYS, "this is a static "
			  "build (make STATIC=1): it cannot load libcuda.so.1; "
			  "build with 'make PORTABLE=1' for NVIDIA GPUs");
#endif
	a->h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->h)
		return gp_err_set(e, GP_EXIT_NO_CUDA, ENOENT, "cannot load "
				  "libcuda.so.1 (%s): install the NVIDIA driver, "
				  "or put its directory on LD_LIBRARY_PATH",
				  dlerror());
	a->lock = (int (*)(int, void *))dlsym(a->h, "cuCheckpointProcessLock");
	a->unlock = (int (*)(int, void *))dlsym(a->h,
						"cuCheckpointProcessUnlock");
	a->get_state = (int (*)(int, int *))dlsym(a->h,
					"cuCheckpointProcessGetState");
	ver = (int (*)(int *))dlsym(a->h, "cuDriverGetVersion");
	if (ver && ver(&a->version))
		a->version = 0;
	if (!a->lock || !a->unlock || !a->get_state) {
		gp_cuda_unload(a);
		return gp_err_set(e, GP_EXIT_NO_CUDA, ENOSYS, "libcuda.so.1 has "
				  "no cuCheckpointProcessLock/Unlock/GetState: "
				  "a driver with the CUDA checkpoint API is "
				  "needed (R550 or later)");
	}
	return 0;
}

void gp_cuda_unload(struct gp_cuda_api *a)
{
	if (a->h)
		dlclose(a->h);
	memset(a, 0, sizeof(*a));
}

int gp_cuda_lock(const struct gp_cuda_api *a, pid_t pid, uint32_t timeout_ms)
{
	struct cu_lock_args args = { .timeout_ms = timeout_ms };

	return a->lock(pid, &args);
}

int gp_cuda_unlock(const struct gp_cuda_api *a, pid_t pid)
{
	struct cu_unlock_args args = {};

	return a->unlock(pid, &args);
}

int gp_cuda_state(const struct gp_cuda_api *a, pid_t pid, int *state)
{
	return a->get_state(pid, state);
}

const char *gp_cuda_state_name(int state)
{
	static const char *const n[] = { "running", "locked", "checkpointed",
					 "failed" };

	return state >= 0 && state < 4 ? n[state] : "?";
}

void gp_cuda_err(struct gp_err *e, const char *call, pid_t pid, int res,
		 uint32_t timeout_ms)
{
	switch (res) {
	case GP_CU_NOT_INITIALIZED:
		gp_err_set(e, GP_EXIT_TARGET, EINVAL, "CUDA %s of pid %d: "
			   "CUresult 3 (not initialized): the process has not "
			   "initialised CUDA (not a CUDA process, or not yet); "
			   "pick a process that uses the GPU", call, pid);
		return;
	case GP_CU_OPERATING_SYSTEM:
		gp_err_set(e, GP_EXIT_TARGET, ESRCH, "CUDA %s of pid %d: "
			   "CUresult 304 (operating system): no such process "
			   "(it exited?)", call, pid);
		return;
	case GP_CU_ILLEGAL_STATE:
		if (!strcmp(call, "lock"))
			gp_err_set(e, GP_EXIT_BUSY, EBUSY, "CUDA lock of pid "
				   "%d: CUresult 401 (illegal state): it is "
				   "locked already (by another holder, a "
				   "checkpoint tool, or a holder that died); "
				   "'gpreempt-ctl resume --pid %d' unlocks it",
				   pid, pid);
		else
			gp_err_set(e, GP_EXIT_TARGET, EINVAL, "CUDA %s of pid "
				   "%d: CUresult 401 (illegal state): it is not "
				   "locked", call, pid);
		return;
	case GP_CU_NOT_READY:
		gp_err_set(e, GP_EXIT_LOCK_TIMEOUT, ETIMEDOUT, "CUDA lock of "
			   "pid %d: CUresult 600 (not ready): its GPU work in "
			   "flight did not finish within %u ms (the lock waits "
			   "for running kernels); it was left running. Retry, "
			   "or raise --cuda-lock-timeout", pid, timeout_ms);
		return;
	default:
		gp_err_set(e, GP_EXIT_FAILURE, EIO, "CUDA %s of pid %d: CUresult "
			   "%d: see the CUDA driver API's error list", call, pid,
			   res);
	}
}
