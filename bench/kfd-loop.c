// SPDX-License-Identifier: GPL-2.0
/*
 * kfd-loop: the timed inner loop of the tracer-overhead benchmark. It issues
 * the same KFD ioctl back to back and prints the wall time per call, batch
 * by batch, so a tracer's added cost is the difference between two runs.
 * The exerciser drives tests step by step with JSON per step; here nothing
 * but the ioctl may sit inside the timed region.
 *
 *   kfd-loop [-p US] create CALLS BATCHES
 *				     CREATE_QUEUE on gpu_id 0xdeadbeef: the
 *                                   kernel copies the args, finds no pdd and
 *                                   fails EINVAL (no GPU in the VM)
 *   kfd-loop [-p US] dbg CALLS BATCHES
 *				     DBG_TRAP SUSPEND_QUEUES / RESUME_QUEUES
 *                                   (alternating) of one bogus queue id on a
 *                                   ptraced, debug-enabled child; each
 *                                   enters suspend_queues()/resume_queues()
 *
 * -p US paces the loop: US microseconds of sleep after every call, and only
 * the ioctls themselves are timed (one clock pair per call). A tracer's
 * loader then keeps up, so nothing is lost and its user-space work does
 * not fall inside the timed calls.
 *
 * Output, one line per batch:  OP CALLS NS_PER_CALL ERRNO
 * (ERRNO is that of the last call, 0 if it succeeded). Exit 0, or 1 with a
 * message on stderr when the setup failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/kfd_ioctl.h>

static long pace_us;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int open_kfd(void)
{
	int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "kfd-loop: open /dev/kfd: %s (amdgpu loaded?)\n",
			strerror(errno));
	return fd;
}

/* The call that started at t0 is over: its time, then the pause. */
static uint64_t pace(uint64_t t0)
{
	uint64_t dt = now_ns() - t0;
	struct timespec ts = { 0, pace_us * 1000 };

	nanosleep(&ts, NULL);
	return dt;
}

static void report(const char *op, long calls, uint64_t ns, int err)
{
	printf("%s %ld %.1f %d\n", op, calls, (double)ns / calls, err);
	fflush(stdout);
}

static int loop_create(long calls, long batches)
{
	static char ring[4096] __attribute__((aligned(4096)));
	static uint64_t rptr, wptr;
	struct kfd_ioctl_create_queue_args a;
	int fd, err = 0;
	long b, i;
	uint64_t t0;

	fd = open_kfd();
	if (fd < 0)
		return 1;
	for (b = 0; b < batches; b++) {
		uint64_t paced = 0;

		t0 = now_ns();
		for (i = 0; i < calls; i++) {
			memset(&a, 0, sizeof(a));
			a.ring_base_address = (uintptr_t)ring;
			a.ring_size = sizeof(ring);
			a.read_pointer_address = (uintptr_t)&rptr;
			a.write_pointer_address = (uintptr_t)&wptr;
			a.gpu_id = 0xdeadbeef;
			a.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
			a.queue_percentage = 100;
			a.queue_priority = 7;
			if (pace_us)
				t0 = now_ns();
			err = ioctl(fd, AMDKFD_IOC_CREATE_QUEUE, &a) ?
			      errno : 0;
			if (pace_us)
				paced += pace(t0);
		}
		report("create", calls, pace_us ? paced : now_ns() - t0, err);
	}
	close(fd);
	return 0;
}

/*
 * The target: a KFD process with its runtime enabled, then idle. The
 * mode is ROCr's default, ENABLE (1): TTMP_SAVE (3) is added only under
 * HSA_ENABLE_DEBUG=1 (libhsakmt hsaKmtRuntimeEnable's setupTtmp; measured
 * in the VM, docs/rocr.md "kfd-calls"), so the benchmark holds the
 * runtime a production job has.
 */
static void target(int ready)
{
	struct kfd_ioctl_runtime_enable_args r = {
		.r_debug = 0x1234,
		.mode_mask = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK,
	};
	char c = 'r';
	int fd = open_kfd();

	if (fd < 0 || ioctl(fd, AMDKFD_IOC_RUNTIME_ENABLE, &r)) {
		if (fd >= 0)
			fprintf(stderr, "kfd-loop: target RUNTIME_ENABLE: %s\n",
				strerror(errno));
		c = 'x';
	}
	if (write(ready, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static int dbg_trap(int fd, struct kfd_ioctl_dbg_trap_args *a)
{
	int ret;

	do
		ret = ioctl(fd, AMDKFD_IOC_DBG_TRAP, a);
	while (ret && errno == EINTR);
	return ret ? errno : 0;
}

static int loop_dbg(long calls, long batches)
{
	struct kfd_ioctl_dbg_trap_args a;
	uint32_t rinfo[4], qids[1];
	uint64_t qarr = (uintptr_t)qids;
	int pfd[2], dbgpipe[2], fd = -1, err, rc = 1;
	pid_t child;
	long b, i;
	uint64_t t0;
	char c;

	if (pipe(pfd) || pipe(dbgpipe)) {
		perror("kfd-loop: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("kfd-loop: fork");
		return 1;
	}
	if (child == 0) {
		close(pfd[0]);
		target(pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1 || c != 'r') {
		fprintf(stderr, "kfd-loop: target did not start\n");
		goto cleanup;
	}
	fd = open_kfd();
	if (fd < 0)
		goto cleanup;
	if (ptrace(PTRACE_SEIZE, child, 0, 0)) {
		perror("kfd-loop: PTRACE_SEIZE");
		goto cleanup;
	}
	memset(&a, 0, sizeof(a));
	a.pid = child;
	a.op = KFD_IOC_DBG_TRAP_ENABLE;
	a.enable.rinfo_ptr = (uintptr_t)rinfo;
	a.enable.rinfo_size = sizeof(rinfo);
	/* KFD writes one byte per debug event: a pipe, as ROCdbgapi uses. */
	a.enable.dbg_fd = dbgpipe[1];
	err = dbg_trap(fd, &a);
	if (err) {
		fprintf(stderr, "kfd-loop: DBG_TRAP_ENABLE: %s\n", strerror(err));
		goto cleanup;
	}
	for (b = 0; b < batches; b++) {
		uint64_t paced = 0;

		t0 = now_ns();
		for (i = 0; i < calls; i++) {
			memset(&a, 0, sizeof(a));
			a.pid = child;
			qids[0] = 7;
			if (i & 1) {
				a.op = KFD_IOC_DBG_TRAP_RESUME_QUEUES;
				a.resume_queues.queue_array_ptr = qarr;
				a.resume_queues.num_queues = 1;
			} else {
				a.op = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES;
				a.suspend_queues.queue_array_ptr = qarr;
				a.suspend_queues.num_queues = 1;
			}
			if (pace_us)
				t0 = now_ns();
			err = dbg_trap(fd, &a);
			if (pace_us)
				paced += pace(t0);
		}
		report("dbg", calls, pace_us ? paced : now_ns() - t0, err);
	}
	memset(&a, 0, sizeof(a));
	a.pid = child;
	a.op = KFD_IOC_DBG_TRAP_DISABLE;
	dbg_trap(fd, &a);
	rc = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return rc;
}

int main(int argc, char **argv)
{
	long calls, batches;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		pace_us = atol(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc != 4 || (calls = atol(argv[2])) <= 0 ||
	    (batches = atol(argv[3])) <= 0 || pace_us < 0 ||
	    pace_us >= 1000000) {
		fprintf(stderr,
			"usage: kfd-loop [-p US] create|dbg CALLS BATCHES\n");
		return 2;
	}
	if (!strcmp(argv[1], "create"))
		return loop_create(calls, batches);
	if (!strcmp(argv[1], "dbg"))
		return loop_dbg(calls, batches);
	fprintf(stderr, "kfd-loop: unknown op '%s' (create, dbg)\n", argv[1]);
	return 2;
}
