// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the completion-signal test (user/detect/qsignal.c) against a real
 * child process that lays out an amd_queue_t header, a ring of 64-byte
 * AQL packets and amd_signal_t objects at ROCr's offsets, and changes
 * them step by step on the parent's word. The parent reads only through
 * process_vm_readv, as the watcher does. Includes a signal reused while
 * the reader is between the packet and the value. Prints TAP.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "qsignal.h"
#include "qwatch.h"

#define RING 8

struct layout {			/* what the child lays out */
	_Alignas(64) uint8_t queue[256];	/* amd_queue_t */
	_Alignas(64) uint8_t ring[RING][64];	/* AQL packets */
	_Alignas(64) uint8_t sig[2][64];	/* amd_signal_t */
};

static struct layout *L;		/* the child's copy, same address */
static int to_child[2], from_child[2];
static pid_t child;

#define PUT(p, off, T, v) do { T _v = (v); memcpy((uint8_t *)(p) + (off), &_v, sizeof(_v)); } while (0)

/* The child's steps; step k sets the queue to state k. */
static void child_step(int k)
{
	uint8_t *q = L->queue;

	switch (k) {
	case 1:	/* 3 packets written, 2 taken */
		PUT(q, GP_AMDQ_WRITE_DISPATCH_ID, uint64_t, 3);
		PUT(q, GP_AMDQ_READ_DISPATCH_ID, uint64_t, 2);
		break;
	case 2:	/* all taken, the last one (slot 2) without a signal */
		PUT(q, GP_AMDQ_READ_DISPATCH_ID, uint64_t, 3);
		break;
	case 3:	/* a marker in slot 3 with signal 0, value 1: running */
		PUT(L->ring[3], GP_AQL_COMPLETION_SIGNAL, uint64_t,
		    (uintptr_t)L->sig[0]);
		PUT(L->sig[0], GP_AMD_SIGNAL_VALUE, int64_t, 1);
		PUT(q, GP_AMDQ_WRITE_DISPATCH_ID, uint64_t, 4);
		PUT(q, GP_AMDQ_READ_DISPATCH_ID, uint64_t, 4);
		break;
	case 4:	/* the CP decremented it: done */
		PUT(L->sig[0], GP_AMD_SIGNAL_VALUE, int64_t, 0);
		break;
	case 5:	/* wrapped: id 11 is slot 2, signal 1 done */
		PUT(L->ring[2], GP_AQL_COMPLETION_SIGNAL, uint64_t,
		    (uintptr_t)L->sig[1]);
		PUT(L->sig[1], GP_AMD_SIGNAL_VALUE, int64_t, 0);
		PUT(q, GP_AMDQ_WRITE_DISPATCH_ID, uint64_t, 11);
		PUT(q, GP_AMDQ_READ_DISPATCH_ID, uint64_t, 11);
		break;
	case 6:	/* signal 1 reused by a new packet (slot 3) still running;
		 * slot 2's value is 1 now, as the reuse reset it */
		PUT(L->ring[3], GP_AQL_COMPLETION_SIGNAL, uint64_t,
		    (uintptr_t)L->sig[1]);
		PUT(L->sig[1], GP_AMD_SIGNAL_VALUE, int64_t, 1);
		PUT(q, GP_AMDQ_WRITE_DISPATCH_ID, uint64_t, 12);
		break;
	}
}

static void run_child(void)
{
	char c;

	close(to_child[1]);
	memset(L, 0, sizeof(*L));
	PUT(L->queue, GP_HSAQ_BASE_ADDRESS, uint64_t, (uintptr_t)L->ring);
	PUT(L->queue, GP_HSAQ_SIZE, uint32_t, RING);
	if (write(from_child[1], "r", 1) != 1)
		_exit(1);
	while (read(to_child[0], &c, 1) == 1) {
		child_step(c);
		if (write(from_child[1], "k", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void step(int k)
{
	char c = k;

	if (write(to_child[1], &c, 1) != 1 || read(from_child[0], &c, 1) != 1)
		abort();
}

static void step6(void *ctx)
{
	step(6);
}

static enum gp_qsig_state state(void (*between)(void *))
{
	struct gp_qsig_res r;

	if (gp_qsig_read(child, (uintptr_t)L->queue, &r, between, NULL))
		return -1;
	return r.state;
}

static struct gp_qwatch w;

/* The queue watcher on the same queue: busy, and idle-but-unproven. */
static int watch(bool *unproven)
{
	int n = gp_qwatch_poll(&w, NULL);

	*unproven = w.p[0].unproven;
	return n;
}

TEST(completion_signal_steps)
{
	struct gp_qsig_res r;
	uint64_t tests;
	bool unp;

	gp_qwatch_init(&w);
	CHECK(!gp_qwatch_add(&w, child, 1,
			     (uintptr_t)L->queue + GP_AMDQ_WRITE_DISPATCH_ID,
			     (uintptr_t)L->queue + GP_AMDQ_READ_DISPATCH_ID));
	CHECK(state(NULL) == GP_QS_IDLE);	/* never used */
	CHECK(watch(&unp) == 0 && !unp);
	step(1);
	CHECK(state(NULL) == GP_QS_BUSY);	/* read < write */
	CHECK(watch(&unp) == 1);
	step(2);
	CHECK(state(NULL) == GP_QS_NOSIG);	/* unknown: grace */
	CHECK(watch(&unp) == 0 && unp);
	step(3);
	CHECK(state(NULL) == GP_QS_BUSY);	/* read == write, still running */
	/* the watcher's idle is no longer read == write */
	CHECK(watch(&unp) == 1 && watch(&unp) == 1);
	CHECK(!gp_qsig_read(child, (uintptr_t)L->queue, &r, NULL, NULL) &&
	      r.signal == (uintptr_t)L->sig[0] && r.value == 1 &&
	      r.write == 4 && r.read == 4);
	step(4);
	CHECK(state(NULL) == GP_QS_IDLE);	/* proven done */
	CHECK(watch(&unp) == 0 && !unp);
	/* proven once per write value: no more tests while it stays */
	tests = w.sig_tests;
	CHECK(watch(&unp) == 0 && w.sig_tests == tests);
	step(5);
	CHECK(state(NULL) == GP_QS_IDLE);	/* slot from write modulo size */
	/* reuse: the queue moves between the packet and the value */
	CHECK(state(step6) == GP_QS_MOVED);
	CHECK(state(NULL) == GP_QS_BUSY);	/* read 11 < write 12 */
}

TEST(bad_addresses_are_errors)
{
	struct gp_qsig_res r;

	CHECK(gp_qsig_read(child, 8, &r, NULL, NULL) == -EFAULT);
	CHECK(gp_qsig_read(-1, (uintptr_t)L->queue, &r, NULL, NULL) < 0);
}

int main(void)
{
	char c;

	L = aligned_alloc(64, sizeof(*L));
	if (!L || pipe(to_child) || pipe(from_child))
		return 1;
	child = fork();
	if (child == 0)
		run_child();
	if (read(from_child[0], &c, 1) != 1)
		return 1;
	/* the parent's own copy stays zero: reads must come from the child */
	memset(L, 0xff, sizeof(*L));
	RUN(completion_signal_steps);
	RUN(bad_addresses_are_errors);
	close(to_child[1]);
	waitpid(child, NULL, 0);
	return tap_done();
}
