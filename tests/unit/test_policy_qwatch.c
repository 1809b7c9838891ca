// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host-only behaviour, stand-in): the queue watcher against a real
 * child process, "aql-standin", that lays out two amd_queue_t with ROCr's
 * offsets (write_dispatch_id at 56, read_dispatch_id at 128, 64-byte
 * aligned) and advances the counters on command, as a producer and the CP
 * would. process_vm_readv is the real syscall. What this cannot show:
 * that a real CP advances read_dispatch_id at launch or at completion
 * (docs/arbiter.md; the L3 kit measures it).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "qwatch.h"
#include "standin.h"

static char events[512];

static void on_busy(void *ctx, int pid, bool busy)
{
	size_t n = strlen(events);

	snprintf(events + n, sizeof(events) - n, "%s%s", n ? " " : "",
		 busy ? "busy" : "idle");
}

static void on_lost(void *ctx, int pid, uint32_t qid, int err)
{
	size_t n = strlen(events);

	snprintf(events + n, sizeof(events) - n, "%slost:%d:%s", n ? " " : "",
		 qid == UINT32_MAX ? -1 : (int)qid, strerror(-err));
}

static const struct gp_qw_cb cb = { on_busy, on_lost, NULL, NULL };
static struct gp_qwatch W;

static const char *poll_events(int *n_busy)
{
	events[0] = 0;
	*n_busy = gp_qwatch_poll(&W, &cb);
	return events;
}

TEST(offsets_follow_rocr_layout)
{
	/* hsa_queue_t 40 + caps 4 + reserved1[3] 12 = 56; + 4 u32 16 +
	 * u64 8 + u32 4 + reserved2[9] 36 = 128 (docs/arbiter.md). */
	CHECK(GP_AMDQ_WRITE_DISPATCH_ID == 40 + 4 + 12);
	CHECK(GP_AMDQ_READ_DISPATCH_ID == 56 + 8 + 16 + 8 + 4 + 36);
	CHECK(GP_AMDQ_WRITE_DISPATCH_ID % 8 == 0);
}

TEST(standin_idle_then_busy_then_idle)
{
	int n, i;
	uint64_t sc;

	gp_qwatch_init(&W);
	CHECK(gp_qwatch_add(&W, child, 1, qaddr[0] + GP_AMDQ_WRITE_DISPATCH_ID,
			    qaddr[0] + GP_AMDQ_READ_DISPATCH_ID) == 0);
	CHECK(gp_qwatch_add(&W, child, 2, qaddr[1] + GP_AMDQ_WRITE_DISPATCH_ID,
			    qaddr[1] + GP_AMDQ_READ_DISPATCH_ID) == 0);
	CHECK(gp_qwatch_add(&W, child, 2, 0, 0) == -EEXIST);
	CHECK_STR(poll_events(&n), "");
	CHECK(n == 0);
	/* producer bumps the write index of queue 1 */
	tell('W', 0, 1);
	CHECK_STR(poll_events(&n), "busy");
	CHECK(n == 1);
	CHECK(W.p[0].q[0].write == 1 && W.p[0].q[0].read == 0);
	CHECK_STR(poll_events(&n), "");		/* edges only */
	/* "CP" consumes it */
	tell('R', 0, 1);
	CHECK_STR(poll_events(&n), "idle");
	/* queue 2 busy alone is enough; counters are 64-bit */
	tell('W', 1, (1ULL << 40) + 5);
	tell('R', 1, (1ULL << 40) + 3);
	CHECK_STR(poll_events(&n), "busy");
	tell('R', 1, (1ULL << 40) + 5);
	CHECK_STR(poll_events(&n), "idle");
	/* One syscall per process per poll, whatever its queue count. */
	sc = W.syscalls;
	for (i = 0; i < 10; i++)
		poll_events(&n);
	CHECK(W.syscalls - sc == 10);
}

TEST(standin_freed_queue_is_dropped)
{
	int n;

	tell('W', 0, 2);			/* q1 busy: 2 > 1 */
	CHECK_STR(poll_events(&n), "busy");
	tell('U', 1, 0);			/* queue 2's memory freed */
	CHECK_STR(poll_events(&n), "lost:2:Bad address");
	CHECK(W.n == 1 && W.p[0].nq == 1);
	CHECK(n == 1);				/* q1 still read: busy */
	tell('R', 0, 2);
	CHECK_STR(poll_events(&n), "idle");
}

TEST(standin_exit_while_busy_ends_busy)
{
	int n, st;

	tell('W', 0, 3);
	CHECK_STR(poll_events(&n), "busy");
	tell('X', 0, 0);
	waitpid(child, &st, 0);
	child = 0;			/* reaped: never kill it */
	CHECK_STR(poll_events(&n), "idle lost:-1:No such process");
	CHECK(W.n == 0 && n == 0);
}

TEST(remove_queue_and_pid)
{
	gp_qwatch_init(&W);
	gp_qwatch_add(&W, 10, 1, 0x1000, 0x2000);
	gp_qwatch_add(&W, 10, 2, 0x3000, 0x4000);
	gp_qwatch_add(&W, 11, 1, 0x1000, 0x2000);
	CHECK(gp_qwatch_remove(&W, 10, 1));
	CHECK(!gp_qwatch_remove(&W, 10, 1));
	CHECK(gp_qwatch_remove(&W, 10, 2));	/* last queue: pid gone */
	CHECK(!gp_qwatch_find(&W, 10));
	CHECK(gp_qwatch_remove_pid(&W, 11));
	CHECK(W.n == 0);
}

int main(void)
{
	if (standin_start()) {
		printf("not ok 1 - the aql-standin child did not start\n");
		return 1;
	}
	RUN(offsets_follow_rocr_layout);
	RUN(standin_idle_then_busy_then_idle);
	RUN(standin_freed_queue_is_dropped);
	RUN(standin_exit_while_busy_ends_busy);
	RUN(remove_queue_and_pid);
	if (child > 0)
		kill(child, SIGKILL);
	return tap_done();
}
