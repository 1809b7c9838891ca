// SPDX-License-Identifier: GPL-2.0
/*
 * rocr-store: the call a doorbell probe would trap on, timed. Loads
 * trixie's libhsa-runtime64.so.1 (dlopen, for the reason
 * tests/rocr/rocr-probe.c gives), hsa_init() (6.12 guest: one CPU agent,
 * no GPU), creates a signal with HSA_AMD_SIGNAL_AMD_GPU_ONLY (a plain
 * memory signal: a store is one atomic write, no KFD SET_EVENT, as for a
 * doorbell signal, whose store is one MMIO write), then calls
 * hsa_signal_store_screlease N times in each of ROUNDS rounds, waiting
 * for GO before each round (bench/doorbell.sh attaches or detaches its
 * uprobe in between). One JSON line per round:
 *   {"step":"round","calls":N,"ns_per_call":X}
 *
 *   rocr-store -n N -k ROUNDS -g GO -r READY
 * Exit: 0 done, 1 hsa_init or the signal failed, 2 usage, 3 no runtime.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "../tests/lib/gofile.h"

static struct {
	__typeof__(hsa_init) *init;
	__typeof__(hsa_amd_signal_create) *amd_signal_create;
	__typeof__(hsa_signal_store_screlease) *signal_store_screlease;
} hsa;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *go = NULL, *ready = NULL;
	long n = 100000, rounds = 1, r, i;
	hsa_signal_t s;
	void *h;
	double t0;
	int opt;

	while ((opt = getopt(argc, argv, "n:k:g:r:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'k': rounds = atol(optarg); break;
		case 'g': go = optarg; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (n < 1 || rounds < 1)
		return 2;
	h = dlopen("libhsa-runtime64.so.1", RTLD_NOW);
	if (!h)
		return 3;
	hsa.init = (__typeof__(hsa.init))dlsym(h, "hsa_init");
	hsa.amd_signal_create = (__typeof__(hsa.amd_signal_create))
		dlsym(h, "hsa_amd_signal_create");
	hsa.signal_store_screlease = (__typeof__(hsa.signal_store_screlease))
		dlsym(h, "hsa_signal_store_screlease");
	if (!hsa.init || !hsa.amd_signal_create || !hsa.signal_store_screlease)
		return 3;
	if (hsa.init() != HSA_STATUS_SUCCESS ||
	    hsa.amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY,
				  &s) != HSA_STATUS_SUCCESS) {
		printf("{\"step\":\"init\",\"ok\":false}\n");
		return 1;
	}
	printf("{\"step\":\"init\",\"ok\":true,\"pid\":%d}\n", getpid());
	fflush(stdout);
	gofile_ready(ready);
	for (r = 0; r < rounds; r++) {
		gofile_wait(go);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			hsa.signal_store_screlease(s, i);
		printf("{\"step\":\"round\",\"calls\":%ld,\"ns_per_call\":%.1f}\n",
		       n, (now_ns() - t0) / n);
		fflush(stdout);
	}
	return 0;
}
