// SPDX-License-Identifier: GPL-2.0
/*
 * cuda-launch: an unmodified CUDA driver API program's launch calls, for
 * the launch detector's L1 tests (tests/bats/detect_cuda.bats), the CUDA
 * twin of tests/rocr/hip-launch. It loads libcuda.so.1 by its soname
 * (or the file given with -l), calls cuInit, then one launch entry point
 * N times per round, and optionally cuCtxSynchronize. On the host the
 * library is the STAND-IN of tests/cuda/standin_launch.c (no NVIDIA
 * driver here): the calls do nothing, the uprobes on them still fire.
 * One JSON object per line on stdout.
 *
 *   cuda-launch [-l LIB] [-f FUNC] [-n N] [-k ROUNDS] [-r READY] [-g GO]
 *               [-s | -z]
 *
 *   FUNC    launch (cuLaunchKernel, the default), launch_ptsz, ex
 *           (cuLaunchKernelEx), ex_ptsz, coop (cuLaunchCooperativeKernel),
 *           coop_ptsz, graph (cuGraphLaunch), graph_ptsz
 *   -k      ROUNDS rounds of N calls (default 1)
 *   -r      write READY (empty) once the library is loaded
 *   -g      before each round wait until GO exists, then remove it
 *   -s      cuCtxSynchronize after each round
 *   -z      cuCtxSynchronize after the last round only (a busy period
 *           over several rounds, ended by the sync)
 *
 * Prototypes: NVIDIA's cuda.h (CUDA 13.0), handles opaque.
 * Exit: 0 done, 2 bad usage, 3 the library or a symbol cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/gofile.h"

typedef int (*init_fn)(unsigned);
typedef int (*sync_fn)(void);
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned,
			 unsigned, unsigned, unsigned, void *, void **,
			 void **);
typedef int (*ex_fn)(const void *, void *, void **, void **);
typedef int (*coop_fn)(void *, unsigned, unsigned, unsigned, unsigned,
		       unsigned, unsigned, unsigned, void *, void **);
typedef int (*graph_fn)(void *, void *);

static const struct { const char *name, *sym; } funcs[] = {
	{ "launch", "cuLaunchKernel" },
	{ "launch_ptsz", "cuLaunchKernel_ptsz" },
	{ "ex", "cuLaunchKernelEx" },
	{ "ex_ptsz", "cuLaunchKernelEx_ptsz" },
	{ "coop", "cuLaunchCooperativeKernel" },
	{ "coop_ptsz", "cuLaunchCooperativeKernel_ptsz" },
	{ "graph", "cuGraphLaunch" },
	{ "graph_ptsz", "cuGraphLaunch_ptsz" },
};

static int call(const char *name, void *fn)
{
	if (!strncmp(name, "ex", 2))
		return ((ex_fn)fn)(NULL, NULL, NULL, NULL);
	if (!strncmp(name, "coop", 4))
		return ((coop_fn)fn)(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL);
	if (!strncmp(name, "graph", 5))
		return ((graph_fn)fn)(NULL, NULL);
	return ((launch_fn)fn)(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
}

int main(int argc, char **argv)
{
	const char *lib = "libcuda.so.1", *fname = "launch";
	const char *ready = NULL, *go = NULL, *sym = NULL;
	long n = 1, rounds = 1, i, r;
	int opt, rc = 0, sync = 0;
	void *h, *fn;
	sync_fn csync;
	init_fn init;

	while ((opt = getopt(argc, argv, "l:f:n:k:r:g:sz")) != -1) {
		switch (opt) {
		case 'l': lib = optarg; break;
		case 'f': fname = optarg; break;
		case 'n': n = atol(optarg); break;
		case 'k': rounds = atol(optarg); break;
		case 'r': ready = optarg; break;
		case 'g': go = optarg; break;
		case 's': sync = 1; break;
		case 'z': sync = 2; break;
		default: return 2;
		}
	}
	for (i = 0; i < (long)(sizeof(funcs) / sizeof(funcs[0])); i++)
		if (!strcmp(funcs[i].name, fname))
			sym = funcs[i].sym;
	if (!sym || n < 0 || rounds < 1) {
		fprintf(stderr, "cuda-launch: bad -f, -n or -k\n");
		return 2;
	}
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		printf("{\"step\":\"load\",\"ok\":false,\"error\":\"%s\"}\n",
		       dlerror());
		return 3;
	}
	init = (init_fn)dlsym(h, "cuInit");
	fn = dlsym(h, sym);
	csync = (sync_fn)dlsym(h, "cuCtxSynchronize");
	if (!init || !fn || !csync) {
		printf("{\"step\":\"load\",\"ok\":false,\"error\":\"no %s\"}\n",
		       sym);
		return 3;
	}
	printf("{\"step\":\"init\",\"status\":%d,\"pid\":%d}\n", init(0),
	       getpid());
	fflush(stdout);
	gofile_ready(ready);
	for (r = 0; r < rounds; r++) {
		gofile_wait(go);
		for (i = 0; i < n; i++)
			rc = call(fname, fn);
		printf("{\"step\":\"round\",\"func\":\"%s\",\"calls\":%ld,"
		       "\"status\":%d}\n", fname, n, rc);
		if (sync == 1 || (sync == 2 && r == rounds - 1))
			printf("{\"step\":\"sync\",\"status\":%d}\n", csync());
		fflush(stdout);
	}
	return 0;
}
