// SPDX-License-Identifier: GPL-2.0
// L3 workload for scripts/l3-launch.sh: one long kernel, so the kit can
// read the queue's read/write dispatch ids while it runs. Makes its queue
// with a short kernel, prints "ready <boot ns>", waits for a line on stdin,
// launches one kernel that spins SECONDS on the GPU's 100 MHz real-time
// counter (s_memrealtime, gfx9), prints "launched <boot ns>", sleeps on the
// host until the kernel should be done (no sync call, so HIP queues no
// marker behind it), then syncs and prints "done <boot ns>".
//   long [SECONDS]
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__global__ void hold(unsigned long long *out, unsigned long long ticks)
{
	unsigned long long t0 = __builtin_amdgcn_s_memrealtime();

	while (__builtin_amdgcn_s_memrealtime() - t0 < ticks)
		;
	if (threadIdx.x == 0)
		*out = t0;
}

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	unsigned long long *out;
	char line[16];

	if (seconds <= 0 || hipMalloc(&out, sizeof(*out)) != hipSuccess) {
		fprintf(stderr, "long: bad SECONDS or hipMalloc failed: no usable GPU?\n");
		return 1;
	}
	hipLaunchKernelGGL(hold, dim3(1), dim3(64), 0, 0, out, 1ULL);
	if (hipDeviceSynchronize() != hipSuccess) {
		fprintf(stderr, "long: kernel failed\n");
		return 1;
	}
	printf("pid %d\nready %llu\n", (int)getpid(), boot_ns());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	hipLaunchKernelGGL(hold, dim3(1), dim3(64), 0, 0, out,
			   (unsigned long long)(seconds * 1e8));
	printf("launched %llu\n", boot_ns());
	fflush(stdout);
	usleep((useconds_t)(seconds * 1e6) + 500000);
	if (hipDeviceSynchronize() != hipSuccess) {
		fprintf(stderr, "long: kernel failed\n");
		return 1;
	}
	printf("done %llu\n", boot_ns());
	return 0;
}
