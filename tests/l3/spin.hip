// SPDX-License-Identifier: GPL-2.0
// L3 workload: launch short GPU kernels back to back and print progress
// every 100 ms as "tick <CLOCK_BOOTTIME ns> <kernels completed>", so a
// suspension shows up as ticks whose count stops growing. Boot time lines
// up with gpreempt-trace's event timestamps.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__global__ void burn(unsigned long long *out, int iters)
{
	unsigned long long x = threadIdx.x;

	for (int i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	if (x == 42)
		*out = x;	/* keeps the loop from being optimised away */
}

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10.0;
	unsigned long long *out, done = 0;
	unsigned long long start = boot_ns(), last = start;

	if (hipMalloc(&out, sizeof(*out)) != hipSuccess) {
		fprintf(stderr, "spin: hipMalloc failed: no usable GPU?\n");
		return 1;
	}
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	while (boot_ns() - start < seconds * 1e9) {
		hipLaunchKernelGGL(burn, dim3(64), dim3(256), 0, 0, out, 4096);
		if (hipDeviceSynchronize() != hipSuccess) {
			fprintf(stderr, "spin: kernel failed\n");
			return 1;
		}
		done++;
		if (boot_ns() - last >= 100000000ULL) {
			last = boot_ns();
			printf("tick %llu %llu\n", last, done);
			fflush(stdout);
		}
	}
	return 0;
}
