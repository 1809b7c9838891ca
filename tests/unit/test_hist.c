// SPDX-License-Identifier: GPL-2.0
/*
 * L0: log2 histogram rows and printing (hist.c). The last test also reads
 * a real BPF hash map when the kernel lets us create one (root on the
 * host); otherwise it says so and checks nothing kernel-related.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "tap.h"
#include "hist.h"

static bool starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

TEST(bounds_match_print_log2_hist)
{
	uint64_t lo, hi;

	gp_hist_bounds(0, &lo, &hi);
	CHECK(lo == 0 && hi == 1);
	gp_hist_bounds(1, &lo, &hi);
	CHECK(lo == 2 && hi == 3);
	gp_hist_bounds(10, &lo, &hi);
	CHECK(lo == 1024 && hi == 2047);
	gp_hist_bounds(31, &lo, &hi);
	CHECK(lo == 2147483648ULL && hi == 4294967295ULL);
}

/* The BPF side's slot (floor(log2(v)), 0 for 0) lands inside the bounds. */
TEST(every_value_falls_in_its_row)
{
	static const uint64_t v[] = { 0, 1, 2, 3, 4, 7, 8, 1000, 1023, 1024,
				      4095, 4096, 5000, 1ULL << 31 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unsigned int slot = v[i] ? 63 - __builtin_clzll(v[i]) : 0;
		uint64_t lo, hi;

		gp_hist_bounds(slot, &lo, &hi);
		CHECK(v[i] >= lo && v[i] <= hi);
	}
}

TEST(rows_exactly_like_libbpf_tools)
{
	__u64 vals[GP_MAX_SLOTS] = { [1] = 1, [2] = 3, [4] = 8 };
	FILE *f = capture_open();

	gp_print_log2_hist(f, vals, GP_MAX_SLOTS, "usecs");
	CHECK_STR(capture_done(f),
"     usecs               : count    distribution\n"
"         0 -> 1          : 0        |                                        |\n"
"         2 -> 3          : 1        |*****                                   |\n"
"         4 -> 7          : 3        |***************                         |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 8        |****************************************|\n");
}

TEST(empty_histogram_prints_nothing)
{
	__u64 vals[GP_MAX_SLOTS] = {};
	FILE *f = capture_open();

	gp_print_log2_hist(f, vals, GP_MAX_SLOTS, "usecs");
	CHECK_STR(capture_done(f), "");
}

TEST(last_slot_and_big_counts)
{
	__u64 vals[GP_MAX_SLOTS] = { [0] = 123456789, [31] = 1 };
	FILE *f = capture_open();
	const char *s;

	gp_print_log2_hist(f, vals, GP_MAX_SLOTS, "nsecs");
	s = capture_done(f);
	/* 32 rows plus the header; the last row is 2^31 .. 2^32-1. */
	CHECK(strstr(s, "\n         0 -> 1          : 123456789 |****"));
	CHECK(strstr(s, "2147483648 -> 4294967295 : 1        |      "
		     "                                  |\n") != NULL);
	{
		int lines = 0;

		for (const char *p = s; *p; p++)
			lines += *p == '\n';
		CHECK(lines == 33);
	}
}

/* Past 32 rows libbpf-tools widens columns and halves the bar. */
TEST(wide_layout_past_32_rows)
{
	__u64 vals[40] = { [33] = 2, [34] = 1 };
	FILE *f = capture_open();
	const char *s;

	gp_print_log2_hist(f, vals, 40, "nsecs");
	s = capture_done(f);
	CHECK(starts(s, "               nsecs                         : count"
		     "    distribution\n"));
	CHECK(strstr(s, "\n         17179869184 -> 34359738367          : 1"
		     "        |**********          |\n") != NULL);
}

TEST(titles)
{
	struct gp_hist_key k = { .op = GP_OP_SUSPEND };
	int pids[] = { 12, 34 };
	char b[128];

	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0),
		  "suspend latency");
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, pids, 1),
		  "suspend latency (pid 12)");
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, pids, 2),
		  "suspend latency (pid 12, 34)");
	k.op = GP_OP_DBG_TRAP;
	k.sub = 6;
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0),
		  "dbg_trap suspend_queues latency");
	k.sub = 99;
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0),
		  "dbg_trap ?99 latency");
	k.op = 77;
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0), "?77 latency");
	k.op = GP_OP_SUSPEND;
	k.sub = GP_PHASE_SUB(GP_PHASE_FENCE);
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0),
		  "suspend phase hw_fence latency");
	k.op = GP_OP_RESUME;
	k.sub = GP_PHASE_SUB(GP_PHASE_MES_ADD);
	CHECK_STR(gp_hist_title(b, sizeof(b), &k, NULL, 0),
		  "resume phase mes_add latency");
	/* A short buffer is cut, never overrun. */
	k.op = GP_OP_CREATE;
	CHECK_STR(gp_hist_title(b, 10, &k, pids, 2), "create la");
}

static struct gp_hist sample(void)
{
	struct gp_hist h = {
		.slots = { [1] = 1, [2] = 3, [4] = 8 },
		.count = 12,
		.sum_ns = 123456,
	};

	return h;
}

TEST(text_histogram_with_title_and_summary)
{
	struct gp_hist_key k = { .op = GP_OP_SUSPEND };
	struct gp_out_opts o = { .unit = GP_UNIT_USEC };
	struct gp_hist h = sample();
	int pid = 977;
	FILE *f = capture_open();

	gp_hist_print(f, &k, &h, &o, &pid, 1);
	CHECK_STR(capture_done(f),
"\n"
"suspend latency (pid 977):\n"
"     usecs               : count    distribution\n"
"         0 -> 1          : 0        |                                        |\n"
"         2 -> 3          : 1        |*****                                   |\n"
"         4 -> 7          : 3        |***************                         |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 8        |****************************************|\n"
"\n"
"avg = 10 usecs, total: 123 usecs, count: 12\n");
	o.unit = GP_UNIT_MSEC;
	f = capture_open();
	gp_hist_print(f, &k, &h, &o, NULL, 0);
	CHECK(starts(capture_done(f), "\nsuspend latency:\n     msecs    "));
	CHECK(strstr(capture_buf, "avg = 0 msecs, total: 0 msecs, count: 12\n"));
}

/* Zero-initialised options: raw ns slots, labelled nsecs. */
TEST(default_unit_is_raw_nsecs)
{
	struct gp_hist_key k = { .op = GP_OP_CREATE };
	struct gp_out_opts o = {};
	struct gp_hist h = sample();
	FILE *f = capture_open();

	gp_hist_print(f, &k, &h, &o, NULL, 0);
	CHECK(starts(capture_done(f), "\ncreate latency:\n     nsecs    "));
	CHECK(strstr(capture_buf, "avg = 10288 nsecs, total: 123456 nsecs, count: 12"));
	o.json = true;
	f = capture_open();
	gp_hist_print(f, &k, &h, &o, NULL, 0);
	CHECK(strstr(capture_done(f), "\"unit\":\"nsecs\",\"unit_ns\":1,"));
}

TEST(json_histogram)
{
	struct gp_hist_key k = { .op = GP_OP_DBG_TRAP, .sub = 6 };
	struct gp_out_opts o = { .json = true, .unit = GP_UNIT_USEC };
	struct gp_hist h = sample();
	FILE *f = capture_open();

	gp_hist_print(f, &k, &h, &o, NULL, 0);
	CHECK_STR(capture_done(f),
		  "{\"type\":\"hist\",\"op\":\"dbg_trap\",\"sub\":6,"
		  "\"dbg_op\":\"suspend_queues\",\"title\":\"dbg_trap "
		  "suspend_queues latency\",\"unit\":\"usecs\","
		  "\"unit_ns\":1000,"
		  "\"count\":12,\"sum_ns\":123456,\"buckets\":["
		  "{\"low\":2,\"high\":3,\"count\":1},"
		  "{\"low\":4,\"high\":7,\"count\":3},"
		  "{\"low\":16,\"high\":31,\"count\":8}]}\n");
	k.op = GP_OP_CREATE;
	k.sub = 0;
	memset(&h, 0, sizeof(h));
	f = capture_open();
	gp_hist_print(f, &k, &h, &o, NULL, 0);
	CHECK_STR(capture_done(f),
		  "{\"type\":\"hist\",\"op\":\"create\",\"sub\":0,\"title\":"
		  "\"create latency\",\"unit\":\"usecs\",\"unit_ns\":1000,"
		  "\"count\":0,\"sum_ns\":0,\"buckets\":[]}\n");
}

/* The bucket counts in JSON add up to "count"; jq checks the shape. */
TEST(json_histogram_parses_with_jq)
{
	struct gp_hist_key k = { .op = GP_OP_RESUME };
	struct gp_out_opts o = { .json = true, .unit = GP_UNIT_MSEC };
	struct gp_hist h = sample();
	char path[] = "/tmp/gp-test-hist.XXXXXX", cmd[256];
	int fd = mkstemp(path);
	FILE *f;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	gp_hist_print(f, &k, &h, &o, NULL, 0);
	fclose(f);
	if (system("command -v jq >/dev/null 2>&1")) {
		printf("# jq not installed: JSON checked by string only\n");
	} else {
		snprintf(cmd, sizeof(cmd), "jq -e '([.buckets[].count] | add) "
			 "== .count and .unit == \"msecs\"' %s >/dev/null",
			 path);
		CHECK(system(cmd) == 0);
	}
	unlink(path);
}

/* One entry of a per-CPU gp_hists: h on CPU 0, h again on the last. */
static void put(int fd, __u32 op, __u32 sub, const struct gp_hist *h)
{
	int ncpu = libbpf_num_possible_cpus();
	struct gp_hist *v = calloc(ncpu, sizeof(*v));
	__u32 idx = gp_hist_idx(op, sub);

	v[0] = *h;
	if (ncpu > 1)
		v[ncpu - 1] = *h;
	bpf_map_update_elem(fd, &idx, v, BPF_ANY);
	free(v);
}

/*
 * gp_hists_print over a real per-CPU array: order, empty ones skipped,
 * every CPU summed.
 */
TEST(map_printing_sorted_and_skips_empty)
{
	struct gp_out_opts o = { .unit = GP_UNIT_USEC };
	struct gp_hist h = sample(), zero = {};
	struct gp_hist_key *keys;
	struct gp_hist *vals;
	const char *s, *a, *b, *c;
	int fd, n;
	FILE *f;

	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "gp_test_hists",
			    sizeof(__u32), sizeof(h), GP_HIST_ENTRIES, NULL);
	if (fd < 0) {
		printf("# cannot create a BPF map (%s): map walk not "
		       "checked here\n", strerror(errno));
		return;
	}
	f = capture_open();
	n = gp_hists_print(f, fd, &o);
	CHECK(n == 0);
	CHECK_STR(capture_done(f), "No latencies recorded.\n");

	put(fd, GP_OP_RESUME, 0, &h);
	put(fd, GP_OP_DBG_TRAP, 7, &h);
	put(fd, GP_OP_DBG_TRAP, 6, &h);
	put(fd, GP_OP_DBG_TRAP, GP_DBG_OP_OTHER, &h);
	put(fd, GP_OP_CREATE, 0, &zero);

	n = gp_hists_read(fd, &keys, &vals);
	CHECK(n == 4);
	if (n == 4) {
		CHECK(keys[0].op == GP_OP_DBG_TRAP && keys[0].sub == 6);
		CHECK(keys[2].op == GP_OP_DBG_TRAP &&
		      keys[2].sub == GP_DBG_OP_OTHER);
		CHECK(keys[3].op == GP_OP_RESUME && keys[3].sub == 0);
		CHECK(vals[3].count == h.count *
		      (libbpf_num_possible_cpus() > 1 ? 2 : 1));
		free(keys);
		free(vals);
	}

	f = capture_open();
	n = gp_hists_print(f, fd, &o);
	s = capture_done(f);
	CHECK(n == 4);
	CHECK(strstr(s, "create latency") == NULL);
	a = strstr(s, "dbg_trap suspend_queues latency:\n");
	b = strstr(s, "dbg_trap resume_queues latency:\n");
	c = strstr(s, "resume latency:\n");
	CHECK(a && b && c && a < b && b < c);

	o.json = true;
	f = capture_open();
	n = gp_hists_print_pids(f, fd, &o, (int[]){ 5 }, 1);
	s = capture_done(f);
	CHECK(n == 4);
	CHECK(strstr(s, "\"title\":\"resume latency (pid 5)\"") != NULL);
	close(fd);

	/* A closed fd is an error, not an empty map (EBADFD: the kernel's
	 * answer to map info on a closed fd, 6.18). */
	f = capture_open();
	n = gp_hists_print(f, fd, &o);
	CHECK(n == -EBADF || n == -EBADFD);
	capture_done(f);
}

int main(void)
{
	RUN(bounds_match_print_log2_hist);
	RUN(every_value_falls_in_its_row);
	RUN(rows_exactly_like_libbpf_tools);
	RUN(empty_histogram_prints_nothing);
	RUN(last_slot_and_big_counts);
	RUN(wide_layout_past_32_rows);
	RUN(titles);
	RUN(text_histogram_with_title_and_summary);
	RUN(default_unit_is_raw_nsecs);
	RUN(json_histogram);
	RUN(json_histogram_parses_with_jq);
	RUN(map_printing_sorted_and_skips_empty);
	free(capture_buf);
	return tap_done();
}
