// SPDX-License-Identifier: GPL-2.0
// L3 online stand-in (Case A, a CNN-like inference service): requests
// arrive as a Poisson process (open loop: a late request is still timed
// from its arrival), each a burst of big-grid kernels on one stream.
// One NDJSON line per request on stdout (CLOCK_BOOTTIME ns):
//   {"type":"request","id":N,"arrival_ns":N,"start_ns":N,"end_ns":N,
//    "busy_real_ns":N,"kernels":K[,"error":".."]}
// busy_real_ns: CLOCK_REALTIME just before the busy; a first line
//   {"type":"start","clock":"boottime","clock_ns":N,"real_ns":N}
// reads both clocks together (bench/cuda/report.py's busy->locked).
// With --notify-socket it tells the arbiter "busy" before each burst and
// "idle" after it (the notify client's round trips are part of the
// measured latency, as they would be in a real server).
//   online [--rate REQ/S] [--burst K] [--grid BLOCKS] [--iters N]
//          [--duration S] [--seed N] [--notify-socket PATH]
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l3_common.h"

__global__ void conv_like(float *buf, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = i;

	for (int k = 0; k < iters; k++)
		x = x * 1.0000001f + 0.5f;
	if (i < n)
		buf[i] = x;
}

int main(int argc, char **argv)
{
	double rate = 20, duration = 30;
	int burst = 8, grid = 8192, iters = 2000, fd = -1;
	unsigned int seed = 1;
	const char *sock = NULL;
	unsigned long long t0, arrival, start, end, breal;
	float *buf;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--burst")) burst = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--grid")) grid = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--duration")) duration = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--seed")) seed = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--notify-socket")) sock = argv[i + 1];
		else { fprintf(stderr, "online: unknown option %s\n", argv[i]); return 2; }
	}
	if (rate <= 0 || burst <= 0 || grid <= 0) {
		fprintf(stderr, "online: rate, burst and grid must be > 0\n");
		return 2;
	}
	if (hipMalloc(&buf, (size_t)grid * 256 * sizeof(float)) != hipSuccess) {
		fprintf(stderr, "online: hipMalloc failed: no usable GPU?\n");
		return 1;
	}
	/* warm up: first launch loads the code object */
	hipLaunchKernelGGL(conv_like, dim3(grid), dim3(256), 0, 0, buf, grid * 256, 1);
	hipDeviceSynchronize();
	if (sock && (fd = notify_open(sock)) < 0)
		return 1;
	srand48(seed);
	/* the two clocks read together (bench/cuda/report.py) */
	printf("{\"type\":\"start\",\"clock\":\"boottime\",\"clock_ns\":%llu,"
	       "\"real_ns\":%llu}\n", boot_ns(), real_ns());
	t0 = arrival = boot_ns();
	for (int id = 0;; id++) {
		const char *err = NULL;
		struct timespec ts;

		arrival += (unsigned long long)(-log(1 - drand48()) / rate * 1e9);
		if (arrival - t0 > duration * 1e9)
			break;
		ts.tv_sec = arrival / 1000000000ULL;
		ts.tv_nsec = arrival % 1000000000ULL;
		while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL))
			;
		start = boot_ns();
		breal = real_ns();
		if (notify(fd, "busy"))
			err = "notify busy failed";
		for (int k = 0; k < burst; k++)
			hipLaunchKernelGGL(conv_like, dim3(grid), dim3(256), 0, 0,
					   buf, grid * 256, iters);
		if (hipDeviceSynchronize() != hipSuccess)
			err = "kernel failed";
		end = boot_ns();
		if (notify(fd, "idle") && !err)
			err = "notify idle failed";
		printf("{\"type\":\"request\",\"id\":%d,\"arrival_ns\":%llu,"
		       "\"start_ns\":%llu,\"end_ns\":%llu,\"busy_real_ns\":%llu,"
		       "\"kernels\":%d%s%s%s}\n",
		       id, arrival, start, end, breal, burst,
		       err ? ",\"error\":\"" : "",
		       err ? err : "", err ? "\"" : "");
		fflush(stdout);
	}
	return 0;
}
