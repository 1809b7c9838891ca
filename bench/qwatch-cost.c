// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the arbiter's queue polling (bench/arbiter.sh --qwatch): a child
 * holds N queues' counter pairs (amd_queue_t layout, one per 256 bytes);
 * the watcher polls them (one process_vm_readv per poll) R times. Prints
 *	BENCH qwatch N NS_PER_POLL CPU_PCT_AT_200US
 * CPU time is the poller's (CLOCK_PROCESS_CPUTIME_ID: user + system), so
 * the per-queue figure includes the syscall and the page walks.
 *	qwatch-cost N [ROUNDS] [sig]
 * With "sig" every queue has read == write and a last packet whose
 * completion signal is still 1 (a kernel running): each poll then also
 * runs the completion-signal test (qsignal.h) on the first queue, the
 * most a poll of a busy process does (printed as "qwatch-sig").
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "qsignal.h"
#include "qwatch.h"

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static struct gp_qwatch w;
	int n = argc > 1 ? atoi(argv[1]) : 1, rounds, i, p[2];
	unsigned char *mem;
	unsigned long long t0, t1;
	pid_t child;
	char c = 0;

	int sig = argc > 3 && !strcmp(argv[3], "sig");

	rounds = argc > 2 ? atoi(argv[2]) : 20000;
	if (n < 1 || n > GP_QW_MAX_QUEUES || pipe(p))
		return 2;
	/* Shared layout: mapped before fork, so the addresses are equal. */
	mem = mmap(NULL, (size_t)n * 256 + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	child = fork();
	if (child == 0) {
		/* one 1-packet ring and one signal after the queues */
		unsigned char *ring = mem + (size_t)n * 256;

		*(unsigned long long *)(ring + GP_AQL_COMPLETION_SIGNAL) =
			(uintptr_t)(ring + 64);
		*(long long *)(ring + 64 + GP_AMD_SIGNAL_VALUE) = 1;
		for (i = 0; i < n; i++) {
			unsigned char *q = mem + i * 256;

			*(unsigned long long *)(q + GP_AMDQ_WRITE_DISPATCH_ID) = 1;
			*(unsigned long long *)(q + GP_AMDQ_READ_DISPATCH_ID) = sig;
			*(unsigned long long *)(q + GP_HSAQ_BASE_ADDRESS) =
				(uintptr_t)ring;
			*(unsigned *)(q + GP_HSAQ_SIZE) = 1;
		}
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		return 1;
	gp_qwatch_init(&w);
	for (i = 0; i < n; i++)
		gp_qwatch_add(&w, child, i,
			      (uintptr_t)(mem + i * 256 + GP_AMDQ_WRITE_DISPATCH_ID),
			      (uintptr_t)(mem + i * 256 + GP_AMDQ_READ_DISPATCH_ID));
	gp_qwatch_poll(&w, NULL);	/* warm */
	t0 = cpu_ns();
	for (i = 0; i < rounds; i++)
		gp_qwatch_poll(&w, NULL);
	t1 = cpu_ns();
	kill(child, SIGKILL);
	if (!w.n || !w.p[0].busy) {
		fprintf(stderr, "qwatch-cost: the counters were not read\n");
		return 1;
	}
	if (sig && w.sig_tests < (unsigned long long)rounds) {
		fprintf(stderr, "qwatch-cost: the signal test did not run\n");
		return 1;
	}
	printf("BENCH qwatch%s %d %.0f %.3f\n", sig ? "-sig" : "", n, (double)(t1 - t0) / rounds,
	       (double)(t1 - t0) / rounds / 200000.0 * 100);
	return 0;
}
