// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, no KFD): session_snapshot() against the KFD stand-in
 * (kfd_standin.h) when a process has more queues than the first buffer
 * holds. Every id the session keeps, and so every id a later suspend
 * names, must be one the driver wrote.
 */
#include <stdlib.h>
#include <unistd.h>

#include "kfd_standin.h"
#include "session.h"
#include "tap.h"

/* Each of the session's n_snap ids is one the stand-in wrote. */
static bool ids_written(struct session *s, uint32_t written)
{
	const struct kfd_queue_snapshot_entry *q;
	uint32_t n, i;

	q = session_queues(s, &n);
	if (n > written)
		return false;
	for (i = 0; i < n; i++)
		if (q[i].queue_id != STANDIN_ID_BASE + i)
			return false;
	return true;
}

/* 40 queues, first buffer 16: grow once, then all 40 are read. */
TEST(snapshot_grows_once)
{
	struct gp_err e = {};
	struct kfd k = {};
	struct session *s = standin_session(&k, getpid());
	uint32_t n;

	memset(&sb, 0, sizeof(sb));
	sb.n_queues = 40;
	CHECK(s && session_snapshot(s, &e) == 0);
	session_queues(s, &n);
	CHECK(n == 40);
	CHECK(sb.n_snapshot == 2);
	CHECK(ids_written(s, 40));
	session_free(s);
}

/*
 * Queues created as fast as we ask (each call reports 100 more than the
 * buffer it was given): after its tries the session keeps only what the
 * last call filled. Before, it kept the grown capacity, whose tail the
 * driver never wrote: ids that were never queues went into the next
 * suspend.
 */
TEST(snapshot_that_keeps_growing_keeps_written_ids)
{
	struct gp_err e = {};
	struct kfd k = {};
	struct session *s = standin_session(&k, getpid());
	uint32_t n, filled;

	memset(&sb, 0, sizeof(sb));
	sb.n_queues = 20;
	sb.grow = 100;
	CHECK(s && session_snapshot(s, &e) == 0);
	session_queues(s, &n);
	/* the last call had room for the previous report + 16 slack */
	filled = 20 + 100 * (sb.n_snapshot - 2) + 16;
	printf("# %u calls, %u ids kept, %u written by the last call\n",
	       sb.n_snapshot, n, filled);
	CHECK(n > 0);
	CHECK(n <= filled);
	CHECK(ids_written(s, filled));
	session_free(s);
}

int main(void)
{
	kfd_ioctl_fn = kfd_standin_ioctl;
	RUN(snapshot_grows_once);
	RUN(snapshot_that_keeps_growing_keeps_written_ids);
	return tap_done();
}
