// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN for NVIDIA's libcuda.so.1, built by the tests (never
 * installed): the three checkpoint entry points the CUDA backend loads
 * (cuda_api.h), modelled on what was measured on an H200 (docs/cuda.md):
 *   Lock: 304 no such pid; 3 when the pid does not map libcuda.so.1
 *   (it never initialised CUDA); 401 when locked already; sleeps
 *   STANDIN_DIR/PID.slow milliseconds first (a kernel in flight) and
 *   returns 600 when that outlasts timeoutMs, leaving it running; else 0.
 *   Unlock: 304, 3, 401 when not locked, else 0. GetState: 0 or 1.
 * The lock is a file STANDIN_DIR/PID.locked (GP_STANDIN_CUDA_DIR), so it
 * outlives its holder as the real one does, and the stand-in target
 * (standin_cuda_target.c) stops counting while it exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct lock_args {
	unsigned int timeout_ms;
	unsigned int reserved0;
	unsigned long long reserved1[7];
};

static const char *dir(void)
{
	const char *d = getenv("GP_STANDIN_CUDA_DIR");

	return d && *d ? d : "/tmp/gp-standin-cuda";
}

static void path(char *buf, size_t len, int pid, const char *ext)
{
	snprintf(buf, len, "%s/%d.%s", dir(), pid, ext);
}

/* 0 a stand-in CUDA process, else the CUresult to return. */
static int check(int pid)
{
	char p[64], line[512];
	FILE *f;
	int hit = 0;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return 304;
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "r");
	if (!f)
		return 304;
	while (!hit && fgets(line, sizeof(line), f))
		hit = strstr(line, "/libcuda.so.1") != NULL;
	fclose(f);
	return hit ? 0 : 3;
}

static int locked(int pid)
{
	char p[256];

	path(p, sizeof(p), pid, "locked");
	return access(p, F_OK) == 0;
}

static long slow_ms(int pid)
{
	char p[256];
	long ms = 0;
	FILE *f;

	path(p, sizeof(p), pid, "slow");
	f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%ld", &ms) != 1)
			ms = 0;
		fclose(f);
	}
	return ms;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cuInit(unsigned int flags)
{
	return 0;
}

int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

int cuCheckpointProcessLock(int pid, struct lock_args *a)
{
	char p[256];
	long ms;
	int r = check(pid), fd;

	if (r)
		return r;
	if (locked(pid))
		return 401;
	ms = slow_ms(pid);
	if (ms) {
		/* the kernel in flight: the lock waits for it */
		if (a && a->timeout_ms && ms > (long)a->timeout_ms) {
			sleep_ms(a->timeout_ms);
			return 600;
		}
		sleep_ms(ms);
	}
	path(p, sizeof(p), pid, "locked");
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return errno == EEXIST ? 401 : 999;
	close(fd);
	return 0;
}

int cuCheckpointProcessUnlock(int pid, void *a)
{
	char p[256];
	int r = check(pid);

	if (r)
		return r;
	path(p, sizeof(p), pid, "locked");
	return unlink(p) ? 401 : 0;
}

int cuCheckpointProcessGetState(int pid, int *state)
{
	int r = check(pid);

	if (r)
		return r;
	*state = locked(pid);
	return 0;
}
