// SPDX-License-Identifier: GPL-2.0
/*
 * L0: gpreempt-trace's Perfetto writer (trace/pftrace.c) on a scripted
 * run of events. `test_pftrace --write FILE` writes the golden trace that
 * tests/bats/perfetto.bats decodes with protoc and python3-protobuf
 * (tracks, nesting, timestamps, counters: the checks live there, against
 * the protobuf definitions); here, what needs no decoder: bounds, write
 * errors, the state kept.
 */
#include <errno.h>
#include <string.h>

#include "pftrace.h"
#include "tap.h"

#define B 1000000000000ULL	/* boot time at the start: 1000 s */
#define US 1000ULL

static const struct pft_clocks clocks = {
	.boottime = B, .monotonic = B - 1000000000ULL,
	.realtime = 1795000000000000000ULL,
};

static struct gp_event ev(uint32_t op, uint64_t ts, uint64_t dur,
			  uint32_t pid, const char *comm)
{
	struct gp_event e = { .op = op, .ts_ns = ts, .duration_ns = dur,
			      .pid = pid, .tid = pid };

	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return e;
}

static void qadd(struct pft *t, uint64_t ts, uint32_t pid, const char *comm,
		 uint32_t gpu, uint32_t qid)
{
	struct gp_event e = ev(GP_OP_QUEUE_ADD, ts, 0, pid, comm);

	e.gpu_id = gpu;
	e.queue_id = qid;
	pft_event(t, &e);
}

static void susp(struct pft *t, uint32_t op, uint64_t ts, uint64_t dur,
		 uint32_t target, uint32_t asked, int ret)
{
	struct gp_event e = ev(op, ts, dur, 900, "gpreempt-ctl");

	e.target_pid = target;
	e.susp.num_queues = asked;
	e.susp.done = ret > 0 ? (uint32_t)ret : 0;
	e.susp.grace_period = op == GP_OP_SUSPEND ? 100 : 0;
	e.ret = ret;
	pft_event(t, &e);
}

static void evict(struct pft *t, uint32_t op, uint64_t ts, uint64_t dur,
		  uint32_t gpu, uint32_t before, uint32_t after, uint32_t trig)
{
	struct gp_event e = ev(op, ts, dur, 4242, "train");

	e.gpu_id = gpu;
	e.evict.evicted_before = before;
	e.evict.evicted_after = after;
	e.evict.n_queues = 2;
	e.evict.trigger = trig;
	pft_event(t, &e);
}

/*
 * old (5555) has a queue on GPU 60000 in the queue map at the start,
 * already suspended (seeded), resumed at 3.5 ms. train (4242) has 2
 * queues on GPU 51157; train2 (4343) one on 51157 and
 * one on 60000. Online is busy on 51157 from 2 ms to 3 ms; the daemon
 * (900) suspends both, and a pid whose queues were never seen (7777,
 * EINVAL); a TTM eviction of train; train resumed, train2 exits.
 */
static void scenario(struct pft *t)
{
	pft_seed_queue(t, 5555, 60000, "old", true);
	qadd(t, B + 1000 * US, 4242, "train", 51157, 1);
	qadd(t, B + 1100 * US, 4242, "train", 51157, 2);
	qadd(t, B + 1200 * US, 4343, "train2", 51157, 1);
	qadd(t, B + 1300 * US, 4343, "train2", 60000, 2);
	pft_online_busy(t, 51157, true, B + 2000 * US);
	susp(t, GP_OP_SUSPEND, B + 2100 * US, 40 * US, 4242, 2, 2);
	susp(t, GP_OP_SUSPEND, B + 2200 * US, 50 * US, 4343, 2, 2);
	susp(t, GP_OP_SUSPEND, B + 2300 * US, 10 * US, 7777, 1, -EINVAL);
	evict(t, GP_OP_EVICT, B + 2450 * US, 30 * US, 51157, 0, 1, 0);
	evict(t, GP_OP_PROC_EVICT, B + 2500 * US, 100 * US, 0, 0, 0, 2);
	evict(t, GP_OP_RESTORE, B + 2800 * US, 20 * US, 51157, 1, 0, 0);
	pft_online_busy(t, 51157, false, B + 3000 * US);
	susp(t, GP_OP_RESUME, B + 3100 * US, 20 * US, 4242, 0, 2);
	susp(t, GP_OP_RESUME, B + 3500 * US, 20 * US, 5555, 0, 1);
	{
		struct gp_event e = ev(GP_OP_EXIT, B + 4000 * US, 0, 4343,
				       "train2");

		pft_event(t, &e);
	}
}

static struct pft t;

TEST(state_after_the_scenario)
{
	FILE *f = fopen("/dev/null", "w");

	CHECK(f && !pft_open(&t, f, &clocks, 7));
	scenario(&t);
	/* GPUs 60000 (seeded first), 51157 and "unknown" (0) */
	CHECK(t.ngpus == 3);
	CHECK(t.gpus[0].gpu_id == 60000 && t.gpus[1].gpu_id == 51157 &&
	      t.gpus[2].gpu_id == 0);
	/* train2 exited, train resumed: nothing suspended, no span open */
	CHECK(t.gpus[0].suspended == 0 && t.gpus[1].suspended == 0);
	for (int i = 0; i < t.nprocs; i++)
		CHECK(!t.procs[i].in_span);
	CHECK(t.dropped == 0);
	CHECK(!pft_close(&t));
	fclose(f);
}

TEST(tables_are_bounded_and_overflow_is_counted)
{
	FILE *f = fopen("/dev/null", "w");

	CHECK(f && !pft_open(&t, f, &clocks, 7));
	for (uint32_t g = 1; g <= PFT_MAX_GPUS + 3; g++)
		qadd(&t, B + g, 100, "x", g, 1);
	CHECK(t.ngpus == PFT_MAX_GPUS);
	CHECK(t.dropped == 3);
	CHECK(!pft_close(&t));
	fclose(f);
}

TEST(a_write_error_is_returned)
{
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		CHECK(1);	/* no /dev/full here: nothing to show */
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	CHECK(pft_open(&t, f, &clocks, 7) == -ENOSPC);
	scenario(&t);
	CHECK(pft_close(&t) == -ENOSPC);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write")) {
		FILE *f = fopen(argv[2], "w");

		if (!f || pft_open(&t, f, &clocks, 7))
			return 1;
		scenario(&t);
		return pft_close(&t) || fclose(f) ? 1 : 0;
	}
	RUN(state_after_the_scenario);
	RUN(tables_are_bounded_and_overflow_is_counted);
	RUN(a_write_error_is_returned);
	return tap_done();
}
