// SPDX-License-Identifier: GPL-2.0
// L3 offline stand-in (Case B, a transformer-like training job): a
// long-running loop of small-grid kernels (few waves each, many
// launches), progress every 100 ms on stdout (CLOCK_BOOTTIME ns):
//   {"type":"progress","t_ns":N,"iters":N}
// A suspension shows up as iters not growing; throughput is iters/s.
//   offline [--duration S] [--grid BLOCKS] [--iters N]
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l3_common.h"

__global__ void attn_like(float *buf, int iters)
{
	float x = threadIdx.x;

	for (int k = 0; k < iters; k++)
		x = x * 0.9999999f + 1.0f;
	buf[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main(int argc, char **argv)
{
	double duration = 60;
	int grid = 16, iters = 20000;
	unsigned long long start, last, done = 0;
	float *buf;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--duration")) duration = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--grid")) grid = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
		else { fprintf(stderr, "offline: unknown option %s\n", argv[i]); return 2; }
	}
	if (hipMalloc(&buf, (size_t)grid * 64 * sizeof(float)) != hipSuccess) {
		fprintf(stderr, "offline: hipMalloc failed: no usable GPU?\n");
		return 1;
	}
	start = last = boot_ns();
	printf("{\"type\":\"progress\",\"t_ns\":%llu,\"iters\":0}\n", start);
	fflush(stdout);
	while (boot_ns() - start < duration * 1e9) {
		hipLaunchKernelGGL(attn_like, dim3(grid), dim3(64), 0, 0, buf, iters);
		if (hipDeviceSynchronize() != hipSuccess) {
			fprintf(stderr, "offline: kernel failed\n");
			return 1;
		}
		done++;
		if (boot_ns() - last >= 100000000ULL) {
			last = boot_ns();
			printf("{\"type\":\"progress\",\"t_ns\":%llu,\"iters\":%llu}\n",
			       last, done);
			fflush(stdout);
		}
	}
	return 0;
}
