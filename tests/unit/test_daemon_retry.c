// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, no KFD): the daemon's resume retry against the KFD stand-in
 * (kfd_standin.h), through the daemon's own target code (hold_start,
 * targets_watchdog, target_info) and the status line it sends. A hold
 * whose resume fails stays held with a retry deadline 100 ms away,
 * doubling to 5 s; status counts the failures; the first resume that
 * leaves nothing suspended ends the hold.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bk_kfd.h"
#include "daemon_int.h"
#include "kfd_standin.h"
#include "tap.h"
#include "util.h"

#define MS NSEC_PER_MSEC

static struct daemon d;
static struct kfd k;

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* The session line of status for t has resume_failures=n and held=h. */
static bool status_says(struct target *t, uint32_t n, uint32_t h)
{
	struct proto_session ps;
	char buf[256], want[64];

	target_info(t, &ps);
	proto_format_session(buf, sizeof(buf), &ps);
	snprintf(want, sizeof(want), " resume_failures=%u\n", n);
	if (!strstr(buf, want) || ps.held != h) {
		printf("# status: %s", buf);
		return false;
	}
	return true;
}

/* The KFD backend around the stand-in sessions. */
static struct gp_backend *kb;
#define S(t) gp_bk_kfd_session((t)->p)

/* One target with two queues suspended, held for 10 ms. */
static struct target *held_target(void)
{
	struct session_op op = {};
	struct gp_err e = {};
	struct target *t;

	memset(&d, 0, sizeof(d));
	memset(&sb, 0, sizeof(sb));
	d.max_hold_ns = 60 * NSEC_PER_SEC;
	t = &d.t[d.n_t++];
	if (!kb)
		kb = gp_bk_kfd_new(&k);
	d.bk.b[d.bk.n++] = kb;
	t->p = gp_bk_kfd_wrap(kb, standin_session(&k, getpid()));
	t->pid = getpid();
	sb.n_queues = 2;
	if (!t->p || session_suspend(S(t), NULL, 0, 1, &op, &e))
		return NULL;
	session_op_free(&op);
	hold_start(&d, t, 10 * MS);
	return t;
}

/*
 * Resume fails 4 times (ioctl EIO), then 4 times more with every queue
 * failing to map, then succeeds. Each retry waits its backoff (the
 * watchdog does nothing before the deadline), the hold and both queues
 * stay held throughout, status counts the failures.
 */
TEST(failed_resume_is_retried_with_backoff)
{
	static const uint64_t backoff_ms[] = {
		100, 200, 400, 800, 1600, 3200, 5000, 5000,
	};
	struct target *t = held_target();
	uint64_t since, before, wait;
	uint32_t i, calls;

	CHECK(t && session_suspended_count(S(t)) == 2);
	if (!t)
		return;
	since = t->held_since;
	sb.resume_fail = 4;
	sb.resume_map_fail = 4;
	sleep_until(t->deadline);
	for (i = 0; i < 8; i++) {
		before = monotonic_ns();
		calls = sb.n_resume;
		targets_watchdog(&d);
		CHECK(sb.n_resume == calls + 1);
		CHECK(d.n_t == 1 && t->p);
		CHECK(t->held_since == since);
		CHECK(session_suspended_count(S(t)) == 2);
		CHECK(t->resume_failures == i + 1);
		CHECK(status_says(t, i + 1, 2));
		wait = t->deadline > before ? t->deadline - before : 0;
		/* the deadline is backoff after the failed attempt */
		if (wait < backoff_ms[i] * MS ||
		    wait > backoff_ms[i] * MS + 50 * MS) {
			printf("# attempt %u: retry in %.1f ms, want %llu\n",
			       i + 1, wait / 1e6,
			       (unsigned long long)backoff_ms[i]);
			CHECK(0);
		}
		/* not before the deadline */
		targets_watchdog(&d);
		CHECK(sb.n_resume == calls + 1);
		/* the first two backoffs are waited for in real time; the
		 * long ones are brought forward to keep the test short */
		if (i < 2)
			sleep_until(t->deadline);
		else
			t->deadline = monotonic_ns();
	}
	targets_watchdog(&d);
	CHECK(sb.n_resume == 9);
	CHECK(session_suspended_count(S(t)) == 0);
	CHECK(t->held_since == 0 && t->deadline == 0);
	CHECK(t->resume_failures == 0);
	CHECK(status_says(t, 0, 0));
	gp_bk_free(t->p);
}

/* A resume that works the first time: no retry, nothing counted. */
TEST(resume_that_works_ends_the_hold)
{
	struct target *t = held_target();

	CHECK(t != NULL);
	if (!t)
		return;
	sleep_until(t->deadline);
	targets_watchdog(&d);
	CHECK(sb.n_resume == 1);
	CHECK(session_suspended_count(S(t)) == 0);
	CHECK(t->held_since == 0 && t->deadline == 0);
	CHECK(status_says(t, 0, 0));
	gp_bk_free(t->p);
}

/*
 * A client's resume without ids that leaves queues suspended (the GPU
 * failed to map them) keeps the hold and schedules the retry; it used to
 * end the hold, leaving the queues suspended with no deadline.
 */
TEST(client_resume_that_fails_keeps_the_hold)
{
	struct proto_req q = { .verb = PROTO_RESUME };
	struct client c = { .fd = -1 };
	struct target *t = held_target();
	char line[256];
	uint64_t before;
	int n;

	CHECK(t != NULL);
	if (!t)
		return;
	d.o = &d.cur;
	q.pid = t->pid;
	n = proto_format_request(line, sizeof(line), &q);
	CHECK(n > 0);
	sb.resume_map_fail = 1;
	before = monotonic_ns();
	daemon_request(&d, &c, line, n);
	CHECK(sb.n_resume == 1);
	CHECK(session_suspended_count(S(t)) == 2);
	CHECK(t->held_since != 0);
	CHECK(t->resume_failures == 1);
	CHECK(t->deadline >= before + 100 * MS &&
	      t->deadline <= before + 150 * MS);
	CHECK(c.out && strstr(c.out, "error"));
	/* the retry then resumes both and ends the hold */
	sleep_until(t->deadline);
	targets_watchdog(&d);
	CHECK(sb.n_resume == 2);
	CHECK(session_suspended_count(S(t)) == 0);
	CHECK(t->held_since == 0 && t->deadline == 0);
	free(c.out);
	gp_bk_free(t->p);
}

int main(void)
{
	kfd_ioctl_fn = kfd_standin_ioctl;
	RUN(failed_resume_is_retried_with_backoff);
	RUN(resume_that_works_ends_the_hold);
	RUN(client_resume_that_fails_keeps_the_hold);
	return tap_done();
}
