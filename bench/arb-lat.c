// SPDX-License-Identifier: GPL-2.0
/*
 * Arbiter benchmark client (bench/arbiter.sh): on one connection, N times:
 * stamp, "busy", wait for the daemon's "ok" (sent after the SUSPEND ioctl
 * of every offline process), stamp; then "idle". Prints
 *	BENCH arb K I BUSY_RTT_NS IDLE_RTT_NS
 * With GPU_ID, busy and idle name that KFD gpu_id (per-GPU arbitration:
 * bench/guest-arbiter.sh's 8-GPU part).
 * Built from gp_notify.c, the client servers embed.
 *	arb-lat SOCKET N K [PAUSE_US [GPU_ID]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gp_notify.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1, t2;
	int fd, i, n, k, pause_us, r, ng;
	unsigned int gpu;

	if (argc < 4) {
		fprintf(stderr, "usage: arb-lat SOCKET N K [PAUSE_US "
			"[GPU_ID]]\n");
		return 2;
	}
	n = atoi(argv[2]);
	k = atoi(argv[3]);
	pause_us = argc > 4 ? atoi(argv[4]) : 1000;
	gpu = argc > 5 ? strtoul(argv[5], NULL, 0) : 0;
	ng = gpu ? 1 : 0;	/* 0: every GPU of the caller (gp_notify.h) */
	fd = gp_notify_open(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "arb-lat: cannot connect to %s\n", argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		r = gp_notify_busy_gpus(fd, &gpu, ng);
		t1 = now_ns();
		if (r) {
			fprintf(stderr, "arb-lat: busy: %d\n", r);
			return 1;
		}
		usleep(pause_us);
		t2 = now_ns();
		r = gp_notify_idle_gpus(fd, &gpu, ng);
		if (r) {
			fprintf(stderr, "arb-lat: idle: %d\n", r);
			return 1;
		}
		printf("BENCH arb %d %d %llu %llu\n", k, i, t1 - t0,
		       now_ns() - t2);
		usleep(pause_us);
	}
	gp_notify_close(fd);
	return 0;
}
