// SPDX-License-Identifier: GPL-2.0
/*
 * L0: a job off the loop (user/base/offjob.c) announces its end on the
 * process's one eventfd, so a loop can wait on it instead of polling:
 * not readable while fn runs, readable once it returned (the job then
 * done), a counter that holds every end (two jobs: 2), and a job given up
 * (put before done) still announces its end. fn blocks on a pipe the test
 * holds: it ends exactly when the test says, with no timing involved.
 */
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "tap.h"
#include "offjob.h"

/* fn: blocks until a byte arrives on its pipe's read end. */
static void wait_byte(void *arg)
{
	int *fd = arg;
	char c;

	if (read(*fd, &c, 1) != 1)
		c = 0;
}

/* Readable within ms (0: now). */
static bool readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static int p1[2], p2[2];

TEST(the_notifier_exists_and_is_quiet)
{
	int fd = gp_offjob_wakefd();

	CHECK(fd >= 0);
	CHECK(gp_offjob_wakefd() == fd);	/* one per process */
	CHECK(!readable(fd, 0));
	CHECK(gp_offjob_drain() == 0);
}

TEST(an_end_wakes_and_is_counted)
{
	int fd = gp_offjob_wakefd(), err = 0;
	struct gp_offjob *a, *b;

	CHECK(pipe(p1) == 0 && pipe(p2) == 0);
	a = gp_offjob_start(wait_byte, &p1[0], NULL, 1, &err);
	b = gp_offjob_start(wait_byte, &p2[0], NULL, 1, &err);
	CHECK(a && b && !err);
	if (!a || !b)
		return;
	/* Running: nothing announced (poll 200 ms: a wrongly early
	 * announce has time to show). */
	CHECK(!readable(fd, 200));
	CHECK(!gp_offjob_done(a) && !gp_offjob_done(b));
	CHECK(write(p1[1], "x", 1) == 1);
	/* A loaded host: 60 s to be scheduled. */
	CHECK(readable(fd, 60000));
	/* Woken means done: set before the announce. */
	CHECK(gp_offjob_done(a));
	CHECK(write(p2[1], "x", 1) == 1);
	for (int i = 0; i < 600 && !gp_offjob_done(b); i++)
		usleep(100000);
	CHECK(gp_offjob_done(b));
	CHECK(readable(fd, 60000));
	/* Both ends held by the counter, then emptied. */
	CHECK(gp_offjob_drain() == 2);
	CHECK(!readable(fd, 0));
	gp_offjob_put(a);
	gp_offjob_put(b);
}

TEST(a_job_given_up_still_wakes)
{
	int fd = gp_offjob_wakefd(), err = 0;
	struct gp_offjob *a = gp_offjob_start(wait_byte, &p1[0], NULL, 1,
					      &err);

	CHECK(a && !err);
	if (!a)
		return;
	CHECK(gp_offjob_late(a, 1 + 5, 5));
	/* a time read before the start is no lateness */
	CHECK(!gp_offjob_late(a, 0, 5));
	gp_offjob_put(a);	/* the caller gives up: the thread frees it */
	CHECK(!readable(fd, 0));
	CHECK(write(p1[1], "x", 1) == 1);
	CHECK(readable(fd, 60000));
	CHECK(gp_offjob_drain() == 1);
}

int main(void)
{
	RUN(the_notifier_exists_and_is_quiet);
	RUN(an_end_wakes_and_is_counted);
	RUN(a_job_given_up_still_wakes);
	return tap_done();
}
