/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "aql-standin": a child process that lays out two amd_queue_t with ROCr's
 * offsets (write_dispatch_id at 56, read_dispatch_id at 128, 64-byte
 * aligned; qwatch.h, docs/arbiter.md) and advances the counters on
 * command, as a producer and the CP would. For L1 tests of the queue
 * watcher (test_policy_qwatch.c) and of the daemon's --detect queues
 * (test_policy_daemon.c). Not a GPU: nothing here says when a real CP
 * advances the read index.
 *	standin_start();	// child; qaddr[0..1] = queue bases
 *	tell('W', 0, 5);	// queue 0: write_dispatch_id = 5
 */
#ifndef GP_STANDIN_H
#define GP_STANDIN_H

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "qwatch.h"

struct cmd {
	char op;		/* 'W' write, 'R' read, 'U' unmap q, 'X' exit */
	int q;
	uint64_t val;
};

static int to_child[2], from_child[2];
static pid_t child;
static uint64_t qaddr[2];

static void standin(void)
{
	unsigned char *q[2];
	struct cmd c;
	char ack = 1;
	int i;

	prctl(PR_SET_NAME, "aql-standin");
	/* Each queue in its own page so one can be unmapped (a freed
	 * queue), 64-byte aligned like ROCr's AMD_QUEUE_ALIGN. */
	for (i = 0; i < 2; i++) {
		q[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q[i] == MAP_FAILED)
			_exit(1);
		q[i] += 3 * GP_AMDQ_ALIGN;
		qaddr[i] = (uintptr_t)q[i];
	}
	if (write(from_child[1], qaddr, sizeof(qaddr)) != sizeof(qaddr))
		_exit(1);
	while (read(to_child[0], &c, sizeof(c)) == sizeof(c)) {
		uint64_t *w = (uint64_t *)(q[c.q] + GP_AMDQ_WRITE_DISPATCH_ID);
		uint64_t *r = (uint64_t *)(q[c.q] + GP_AMDQ_READ_DISPATCH_ID);

		if (c.op == 'W')
			__atomic_store_n(w, c.val, __ATOMIC_RELEASE);
		else if (c.op == 'R')
			__atomic_store_n(r, c.val, __ATOMIC_RELEASE);
		else if (c.op == 'U')
			munmap(q[c.q] - 3 * GP_AMDQ_ALIGN, 4096);
		else if (c.op == 'X')
			_exit(0);
		if (write(from_child[1], &ack, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static int tell(char op, int q, uint64_t val)
{
	struct cmd c = { op, q, val };
	char ack;

	if (write(to_child[1], &c, sizeof(c)) != sizeof(c))
		return -1;
	return op == 'X' ? 0 : (read(from_child[0], &ack, 1) == 1 ? 0 : -1);
}

/* Forks the stand-in; 0 once it reported its queues, -1 if it did not. */
static int standin_start(void)
{
	pid_t parent;

	if (pipe(to_child) || pipe(from_child))
		return -1;
	parent = getpid();
	child = fork();
	if (child == 0) {
		/* Dies with the test: a daemon forked later holds to_child's
		 * write end, so EOF alone would never come. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(98);
		close(to_child[1]);
		close(from_child[0]);
		standin();
	}
	close(to_child[0]);
	close(from_child[1]);
	return read(from_child[0], qaddr, sizeof(qaddr)) == sizeof(qaddr) ?
	       0 : -1;
}

#endif
