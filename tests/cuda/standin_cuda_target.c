// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN CUDA target for the tests: maps the stand-in libcuda.so.1
 * (dlopen through LD_LIBRARY_PATH, so /proc/PID/maps names it and the
 * CUDA backend claims it) and "issues work": a counter it writes to
 * GP_STANDIN_CUDA_DIR/PID.count every 5 ms, advanced only while the
 * stand-in's lock file is absent, as a locked process's CUDA calls block.
 *
 *	standin_cuda_target [SECONDS]	(default 60, then it exits)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *d = getenv("GP_STANDIN_CUDA_DIR");
	long secs = argc > 1 ? atol(argv[1]) : 60, i;
	unsigned long long count = 0;
	char lock[256], out[256], tmp[256];
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	struct timespec ts = { 0, 5000000 };
	FILE *f;

	if (!h || !d) {
		fprintf(stderr, "standin_cuda_target: need the stand-in "
			"libcuda.so.1 on LD_LIBRARY_PATH and "
			"GP_STANDIN_CUDA_DIR\n");
		return 1;
	}
	snprintf(lock, sizeof(lock), "%s/%d.locked", d, getpid());
	snprintf(out, sizeof(out), "%s/%d.count", d, getpid());
	snprintf(tmp, sizeof(tmp), "%s/%d.count.tmp", d, getpid());
	for (i = 0; i < secs * 200; i++) {
		if (access(lock, F_OK))
			count++;
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%llu\n", count);
			fclose(f);
			rename(tmp, out);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}
