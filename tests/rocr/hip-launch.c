// SPDX-License-Identifier: GPL-2.0
/*
 * hip-launch: an unmodified HIP program's launch calls, for the launch
 * detector's tests and benchmark. It loads Debian's libamdhip64.so.5
 * (or the file given with -l, e.g. a wheel-like copy), asks for the
 * device count, then calls one launch entry point N times the way a
 * server's step does, and optionally synchronises. One JSON object per
 * line on stdout.
 *
 *   hip-launch [-l LIB] [-f FUNC] [-n N] [-k ROUNDS] [-r READY] [-g GO] [-s]
 *              [-b K [-L] [-t SECS] [-i USEC]]
 *
 *   FUNC    launch (hipLaunchKernel, the default), launch_spt, ext
 *           (hipExtLaunchKernel), module (hipModuleLaunchKernel),
 *           extmodule (the C++-mangled hipExtModuleLaunchKernel), coop
 *           (hipLaunchCooperativeKernel), graph (hipGraphLaunch)
 *   -k      ROUNDS rounds of N calls (default 1)
 *   -r      write READY (empty) once the library is loaded
 *   -g      before each round wait until GO exists, then remove it (the
 *           test's go-ahead: no sleeps in tests)
 *   -s      hipDeviceSynchronize after each round (with -b: each request)
 *   -b      requests of K calls (a server's step); the round line then
 *           has "req":{n, p50_ns, p99_ns, max_ns} of the requests' times
 *           (-L), with the sync, the way a client sees a request
 *   -t      with -b: the round runs for SECS (N is then ignored)
 *   -i      with -b: USEC of idle (nanosleep) after each request, so a
 *           round is a train of busy periods (bench/detect-cost.sh)
 *
 * Without a GPU every call returns an error (100, hipErrorNoDevice) and
 * nothing crashes; a uprobe on the entry point still fires on each call.
 * Prototypes: HIP 5.7's hip_runtime_api.h (ROCm/clr include/hip), written
 * out here because Debian's libamdhip64-dev is not in the cache; the
 * pointer types are opaque handles, dim3 is three unsigned ints passed by
 * value. dlopen for the reason rocr-probe.c gives (bookworm toolchain,
 * trixie glibc).
 *
 * Exit: 0 done, 2 bad usage, 3 the library or a symbol cannot be loaded.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/gofile.h"

typedef struct { unsigned x, y, z; } dim3;
typedef int (*count_fn)(int *);
typedef int (*sync_fn)(void);
typedef int (*launch_fn)(const void *, dim3, dim3, void **, size_t, void *);
typedef int (*ext_fn)(const void *, dim3, dim3, void **, size_t, void *,
		      void *, void *, int);
typedef int (*module_fn)(void *, unsigned, unsigned, unsigned, unsigned,
			 unsigned, unsigned, unsigned, void *, void **, void **);
typedef int (*extmod_fn)(void *, unsigned, unsigned, unsigned, unsigned,
			 unsigned, unsigned, size_t, void *, void **, void **,
			 void *, void *, unsigned);
typedef int (*graph_fn)(void *, void *);

/* hipExtModuleLaunchKernel is exported only under this name (5.7.1). */
#define EXTMOD "_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j"

static const struct { const char *name, *sym; } funcs[] = {
	{ "launch", "hipLaunchKernel" },
	{ "launch_spt", "hipLaunchKernel_spt" },
	{ "ext", "hipExtLaunchKernel" },
	{ "module", "hipModuleLaunchKernel" },
	{ "extmodule", EXTMOD },
	{ "coop", "hipLaunchCooperativeKernel" },
	{ "graph", "hipGraphLaunch" },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC and CLOCK_BOOTTIME in ns (the tracer's events carry the
 * boot clock; bench/edge.sh converts with the offset of the two) */
static unsigned long long clk_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int call(const char *name, void *fn)
{
	dim3 one = { 1, 1, 1 };

	if (!strcmp(name, "ext"))
		return ((ext_fn)fn)(NULL, one, one, NULL, 0, NULL, NULL, NULL, 0);
	if (!strcmp(name, "module"))
		return ((module_fn)fn)(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
	if (!strcmp(name, "extmodule"))
		return ((extmod_fn)fn)(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL,
				       NULL, NULL, NULL, 0);
	if (!strcmp(name, "graph"))
		return ((graph_fn)fn)(NULL, NULL);
	return ((launch_fn)fn)(NULL, one, one, NULL, 0, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Requests of k calls (and a sync with -s), timed one by one, for secs
 * seconds or n calls; prints the round's "req" member. */
static long requests(const char *fname, void *fn, sync_fn dsync, long n,
		     long k, double secs, long idle_us, int sync, int *rc)
{
	struct timespec gap = { idle_us / 1000000, idle_us % 1000000 * 1000 };
	size_t cap = 1 << 16, nr = 0;
	uint64_t *lat = malloc(cap * sizeof(*lat)), t1, t2;
	unsigned long long end = clk_ns(CLOCK_MONOTONIC) + secs * 1e9;
	long calls = 0, i;

	while (lat && (secs > 0 ? clk_ns(CLOCK_MONOTONIC) < end : calls < n)) {
		t1 = clk_ns(CLOCK_MONOTONIC);
		for (i = 0; i < k; i++)
			*rc = call(fname, fn);
		if (sync)
			dsync();
		t2 = clk_ns(CLOCK_MONOTONIC);
		calls += k;
		if (nr == cap) {
			uint64_t *m = realloc(lat, 2 * cap * sizeof(*lat));

			if (!m)
				break;
			lat = m;
			cap *= 2;
		}
		lat[nr++] = t2 - t1;
		if (idle_us)
			nanosleep(&gap, NULL);
	}
	if (lat && nr) {
		qsort(lat, nr, sizeof(*lat), cmp_u64);
		printf("\"req\":{\"n\":%zu,\"k\":%ld,\"p50_ns\":%llu,"
		       "\"p99_ns\":%llu,\"max_ns\":%llu},", nr, k,
		       (unsigned long long)lat[nr / 2],
		       (unsigned long long)lat[nr * 99 / 100],
		       (unsigned long long)lat[nr - 1]);
	}
	free(lat);
	return calls;
}

int main(int argc, char **argv)
{
	const char *lib = "libamdhip64.so.5", *fname = "launch";
	const char *ready = NULL, *go = NULL, *sym = NULL;
	long n = 1, rounds = 1, i, r, k = 0, idle_us = 0;
	double secs = 0;
	int opt, rc = 0, cnt = -1, sync = 0;
	void *h, *fn;
	sync_fn dsync = NULL;
	count_fn count;
	double t0, t;
	unsigned long long t0_ns, boot_ns;

	while ((opt = getopt(argc, argv, "l:f:n:k:r:g:sb:t:i:L")) != -1) {
		switch (opt) {
		case 'l': lib = optarg; break;
		case 'f': fname = optarg; break;
		case 'n': n = atol(optarg); break;
		case 'k': rounds = atol(optarg); break;
		case 'r': ready = optarg; break;
		case 'g': go = optarg; break;
		case 's': sync = 1; break;
		case 'b': k = atol(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'i': idle_us = atol(optarg); break;
		case 'L': break;	/* -b always times its requests */
		default: return 2;
		}
	}
	for (i = 0; i < (long)(sizeof(funcs) / sizeof(funcs[0])); i++)
		if (!strcmp(funcs[i].name, fname))
			sym = funcs[i].sym;
	if (!sym || n < 0 || rounds < 1 || k < 0 || idle_us < 0 || secs < 0) {
		fprintf(stderr, "hip-launch: bad -f, -n or -k\n");
		return 2;
	}
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		printf("{\"step\":\"load\",\"ok\":false,\"error\":\"%s\"}\n", dlerror());
		return 3;
	}
	count = (count_fn)dlsym(h, "hipGetDeviceCount");
	fn = dlsym(h, sym);
	dsync = (sync_fn)dlsym(h, "hipDeviceSynchronize");
	if (!count || !fn || !dsync) {
		printf("{\"step\":\"load\",\"ok\":false,\"error\":\"no %s\"}\n", sym);
		return 3;
	}
	printf("{\"step\":\"count\",\"status\":%d,\"count\":%d,\"pid\":%d}\n",
	       count(&cnt), cnt, getpid());
	fflush(stdout);
	gofile_ready(ready);
	for (r = 0; r < rounds; r++) {
		gofile_wait(go);
		boot_ns = clk_ns(CLOCK_BOOTTIME);
		t0_ns = clk_ns(CLOCK_MONOTONIC);	/* right before the first call */
		t0 = now_s();
		printf("{");
		if (k) {
			i = requests(fname, fn, dsync, n, k, secs, idle_us,
				     sync, &rc);
		} else {
			for (i = 0; i < n; i++)
				rc = call(fname, fn);
		}
		t = now_s() - t0;
		printf("\"step\":\"round\",\"func\":\"%s\",\"calls\":%ld,"
		       "\"status\":%d,\"seconds\":%.6f,\"per_s\":%.0f,"
		       "\"t0_ns\":%llu,\"boot_off_ns\":%lld}\n",
		       fname, i, rc, t, t > 0 ? i / t : 0.0, t0_ns,
		       (long long)(boot_ns - t0_ns));
		if (sync && !k)
			printf("{\"step\":\"sync\",\"status\":%d}\n", dsync());
		fflush(stdout);
	}
	return 0;
}
