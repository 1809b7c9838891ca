// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the sysfs PID -> queue scan on fixture trees (tests/unit/fixtures/
 * kfd_proc, laid out like /sys/class/kfd/kfd/proc), including processes
 * and queues that vanish mid-walk; row printing; seeding and reading a
 * real BPF hash map when the kernel lets us create one.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "capture.h"
#include "fixture.h"
#include "tap.h"
#include "mapdump.h"
#include "queues.h"

static char fixture[PATH_MAX];
/* From the repo top (how run-tests.sh runs us) or from the binary. */
static int find_fixture(void)
{
	return fixture_path("kfd_proc", fixture, sizeof(fixture));
}

static int scan(struct gp_scan_opts *so, struct gp_queue_row **rows)
{
	if (!so->root)
		so->root = fixture;
	return gp_queues_scan_array(so, rows);
}

static bool has(const struct gp_queue_row *r, int n, __u32 pid, __u32 qid)
{
	for (int i = 0; i < n; i++)
		if (r[i].k.pid == pid && r[i].k.queue_id == qid)
			return true;
	return false;
}

TEST(parse_sysfs_values)
{
	__u64 v = 7;

	CHECK(!gp_parse_sysfs_u64("0", &v) && v == 0);
	CHECK(!gp_parse_sysfs_u64("51157", &v) && v == 51157);
	CHECK(!gp_parse_sysfs_u64("4096\n", &v) && v == 4096);
	CHECK(!gp_parse_sysfs_u64("18446744073709551615", &v) &&
	      v == UINT64_MAX);
	v = 7;
	CHECK(gp_parse_sysfs_u64("18446744073709551616", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("\n", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("-1", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64(" 1", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("1 ", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("12\n\n", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("0x10", &v) == -EINVAL);
	CHECK(gp_parse_sysfs_u64("x", &v) == -EINVAL);
	CHECK(v == 7);	/* untouched on error */
}

TEST(scan_fixture_tree)
{
	struct gp_scan_opts so = {};
	struct gp_queue_row *r;
	int n = scan(&so, &r);

	/* 100: 0 1 2 10; 300: 6 (5 lacks size); 500: 4 (3 has garbage). */
	CHECK(n == 6);
	if (n != 6) {
		free(r);
		return;
	}
	/* (pid, qid) order, numeric: 10 after 2. */
	CHECK(r[0].k.pid == 100 && r[0].k.queue_id == 0);
	CHECK(r[1].k.pid == 100 && r[1].k.queue_id == 1);
	CHECK(r[2].k.pid == 100 && r[2].k.queue_id == 2);
	CHECK(r[3].k.pid == 100 && r[3].k.queue_id == 10);
	CHECK(r[4].k.pid == 300 && r[4].k.queue_id == 6);
	CHECK(r[5].k.pid == 500 && r[5].k.queue_id == 4);
	CHECK(r[0].k.gpu_id == 51157 && r[0].v.type == 0 &&
	      r[0].v.ring_size == 4096);
	CHECK(r[1].v.type == 1 && r[1].v.ring_size == 1048576);
	CHECK(r[2].k.gpu_id == 8001 && r[2].v.type == 4 &&
	      r[2].v.ring_size == 65536);
	CHECK(r[5].v.ring_size == 4096);	/* "4096\n" */
	for (int i = 0; i < n; i++) {
		CHECK(r[i].v.origin == GP_ORIGIN_SYSFS);
		CHECK(r[i].v.state == GP_QS_ACTIVE);
		CHECK(r[i].v.created_ns == 0 && r[i].k.pad == 0);
	}
	CHECK(so.vanished == 1);	/* 300/queues/5/size: ENOENT */
	CHECK(so.unreadable == 1);	/* 500/queues/3/type: "x" */
	free(r);
}

TEST(scan_pid_filter)
{
	int pids[] = { 300, 999 };
	struct gp_scan_opts so = { .pids = pids, .npids = 2 };
	struct gp_queue_row *r;
	int n = scan(&so, &r);

	CHECK(n == 1 && r[0].k.pid == 300 && r[0].k.queue_id == 6);
	free(r);
	pids[0] = 200;		/* a process without queues */
	n = scan(&so, &r);
	CHECK(n == 0);
	free(r);
}

TEST(scan_missing_root_is_an_error)
{
	struct gp_scan_opts so = { .root = "/nonexistent/kfd/proc" };
	struct gp_queue_row *r = (void *)1;

	CHECK(gp_queues_scan_array(&so, &r) == -ENOENT);
	CHECK(r == NULL);
	so.root = "/dev/null";	/* not a directory */
	CHECK(gp_queues_scan_array(&so, &r) == -ENOTDIR);
}

static int stop_after_two(const struct gp_queue_row *r, void *ctx)
{
	int *seen = ctx;

	return ++*seen == 2 ? 42 : 0;
}

TEST(callback_can_stop_the_scan)
{
	struct gp_scan_opts so = { .root = fixture };
	int seen = 0;

	CHECK(gp_queues_scan(&so, stop_after_two, &seen) == 42);
	CHECK(seen == 2);
}

/* A copy of the fixture we may destroy. */
static char tmp[64];

static int copy_fixture(void)
{
	char cmd[PATH_MAX + 128];

	strcpy(tmp, "/tmp/gp-test-queues.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/proc'", fixture, tmp);
	return system(cmd);
}

static void drop_tmp(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		printf("# could not remove %s\n", tmp);
}

struct vanish {
	const char *when;	/* suffix of the queue dir that triggers */
	const char *what;	/* path under tmp/proc to delete then */
	int fired;
};

static void vanish_hook(const char *qdir, void *ctx)
{
	struct vanish *v = ctx;
	size_t a = strlen(qdir), b = strlen(v->when);
	char cmd[PATH_MAX + 64];

	if (a < b || strcmp(qdir + a - b, v->when))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/proc/%s'", tmp, v->what);
	if (!system(cmd))
		v->fired++;
}

/* The queue being read goes away between readdir and read. */
TEST(queue_vanishes_mid_walk)
{
	struct vanish v = { .when = "/100/queues/1", .what = "100/queues/1" };
	char root[128];
	struct gp_scan_opts so = {
		.root = root, .before_queue = vanish_hook, .hook_ctx = &v,
	};
	struct gp_queue_row *r;
	int n;

	CHECK(copy_fixture() == 0);
	snprintf(root, sizeof(root), "%s/proc", tmp);
	n = gp_queues_scan_array(&so, &r);
	CHECK(v.fired == 1);
	CHECK(n == 5);
	CHECK(!has(r, n, 100, 1) && has(r, n, 100, 0) && has(r, n, 100, 2));
	CHECK(so.vanished == 2);	/* 100/1 now, and 300/5 */
	free(r);
	drop_tmp();
}

/* The whole process exits while its queues are being read. */
TEST(process_vanishes_mid_walk)
{
	struct vanish v = { .when = "/100/queues/0", .what = "100" };
	char root[128];
	struct gp_scan_opts so = {
		.root = root, .before_queue = vanish_hook, .hook_ctx = &v,
	};
	struct gp_queue_row *r;
	int n;

	CHECK(copy_fixture() == 0);
	snprintf(root, sizeof(root), "%s/proc", tmp);
	n = gp_queues_scan_array(&so, &r);
	CHECK(v.fired == 1);
	/* 100's four queues are gone; 300/6 and 500/4 remain. */
	CHECK(n == 2);
	CHECK(has(r, n, 300, 6) && has(r, n, 500, 4));
	CHECK(so.vanished == 5);
	free(r);
	drop_tmp();
}

/* The next process goes before we list its queues. */
TEST(next_process_vanishes_before_listing)
{
	struct vanish v = { .when = "/100/queues/10", .what = "300" };
	char root[128];
	struct gp_scan_opts so = {
		.root = root, .before_queue = vanish_hook, .hook_ctx = &v,
	};
	struct gp_queue_row *r;
	int n;

	CHECK(copy_fixture() == 0);
	snprintf(root, sizeof(root), "%s/proc", tmp);
	n = gp_queues_scan_array(&so, &r);
	CHECK(v.fired == 1);
	CHECK(n == 5 && !has(r, n, 300, 6));
	free(r);
	drop_tmp();
}

static struct gp_queue_row row(void)
{
	struct gp_queue_row r = {
		.k = { .pid = 4242, .gpu_id = 51157, .queue_id = 3 },
		.v = {
			.created_ns = 1000, .changed_ns = 2000,
			.ring_size = 65536, .type = 0, .priority = 7,
			.state = GP_QS_EVICTED_SUSPENDED,
			.origin = GP_ORIGIN_BPF, .evictions = 2,
			.restores = 1, .suspends = 1, .resumes = 0,
		},
	};

	return r;
}

TEST(row_text)
{
	struct gp_queue_row r = row();
	FILE *f = capture_open();

	gp_queue_row_header(f);
	gp_queue_row_text(f, &r);
	r.v.state = 9;
	r.v.type = 5;
	r.v.origin = GP_ORIGIN_SYSFS;
	gp_queue_row_text(f, &r);
	CHECK_STR(capture_done(f),
		  "PID       GPU  QID TYPE        PRIO   RING STATE      FROM  "
		  "EVCT RSTR SUSP RESM\n"
		  "4242    51157    3 compute        7    64K evict+susp bpf   "
		  "   2    1    1    0\n"
		  "4242    51157    3 sdma_by_eng_id    7    64K ?9         "
		  "sysfs    2    1    1    0\n");
}

TEST(row_json)
{
	struct gp_queue_row r = row();
	FILE *f = capture_open();

	gp_queue_row_json(f, &r);
	CHECK_STR(capture_done(f),
		  "{\"type\":\"queue\",\"pid\":4242,\"gpu_id\":51157,"
		  "\"queue_id\":3,\"queue_type\":\"compute\","
		  "\"queue_type_raw\":0,\"priority\":7,"
		  "\"ring_size_bytes\":65536,\"state\":\"evicted_suspended\","
		  "\"origin\":\"bpf\",\"created_boot_ns\":1000,"
		  "\"changed_boot_ns\":2000,\"evictions\":2,\"restores\":1,"
		  "\"suspends\":1,\"resumes\":0}\n");
}

TEST(rows_print_empty_and_json)
{
	struct gp_out_opts o = {};
	struct gp_queue_row r[2] = { row(), row() };
	FILE *f = capture_open();

	gp_queue_rows_print(f, NULL, 0, &o);
	CHECK_STR(capture_done(f), "No KFD queues.\n");
	o.json = true;
	f = capture_open();
	gp_queue_rows_print(f, NULL, 0, &o);
	CHECK_STR(capture_done(f), "");
	r[1].k.queue_id = 4;
	f = capture_open();
	gp_queue_rows_print(f, r, 2, &o);
	capture_done(f);
	CHECK(strstr(capture_buf, "\"queue_id\":3,") && strstr(capture_buf, "\"queue_id\":4,"));
	CHECK(strchr(capture_buf, '\n') && strchr(strchr(capture_buf, '\n') + 1, '\n'));
}

TEST(sort_rows)
{
	struct gp_queue_row r[3] = { row(), row(), row() };

	r[0].k.pid = 9;
	r[1].k.gpu_id = 1;
	r[2].k.queue_id = 1;
	gp_queues_sort(r, 3);
	CHECK(r[0].k.pid == 9);
	CHECK(r[1].k.pid == 4242 && r[1].k.gpu_id == 1);
	CHECK(r[2].k.queue_id == 1);
}

/* Seeding a real hash map: NOEXIST keeps BPF's row; reading sorts. */
/* Batch reads and the per-key walk see the same 3000 rows, once each. */
TEST(map_dump_batch_and_walk_agree)
{
	struct gp_queue_key *k[2];
	struct gp_queue_val *v[2];
	int fd, n[2], ok = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "gp_test_dump",
			    sizeof(struct gp_queue_key),
			    sizeof(struct gp_queue_val), GP_MAX_QUEUES, NULL);
	if (fd < 0) {
		printf("# cannot create a BPF map: %s\n", strerror(errno));
		return;
	}
	for (__u32 i = 0; i < 3000; i++) {
		struct gp_queue_key key = { .pid = 1000 + i % 7, .gpu_id = 5,
					    .queue_id = i };
		struct gp_queue_val val = { .ring_size = i };

		bpf_map_update_elem(fd, &key, &val, BPF_ANY);
	}
	for (int b = 0; b < 2; b++)
		n[b] = gp_map_dump(fd, sizeof(**k), sizeof(**v), b,
				   (void **)&k[b], (void **)&v[b]);
	CHECK(n[0] == 3000 && n[1] == 3000);
	for (int i = 0; i < n[1] && n[1] == 3000; i++)
		ok += v[1][i].ring_size == k[1][i].queue_id &&
		      k[1][i].pid == 1000 + k[1][i].queue_id % 7;
	CHECK(ok == 3000);
	for (int b = 0; b < 2; b++) {
		free(k[b]);
		free(v[b]);
	}
	close(fd);
}

TEST(seed_and_collect_real_map)
{
	struct gp_scan_opts so = { .root = fixture };
	struct gp_queue_row *r, bpf_row = row();
	struct gp_out_opts o = {};
	int fd, n;
	FILE *f;

	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "gp_test_queues",
			    sizeof(struct gp_queue_key),
			    sizeof(struct gp_queue_val), GP_MAX_QUEUES, NULL);
	if (fd < 0) {
		printf("# cannot create a BPF map (%s): seeding not checked "
		       "here\n", strerror(errno));
		return;
	}
	/* BPF saw 100/0 created already, with more than sysfs knows. */
	bpf_row.k = (struct gp_queue_key){ .pid = 100, .gpu_id = 51157 };
	CHECK(!bpf_map_update_elem(fd, &bpf_row.k, &bpf_row.v, BPF_ANY));

	n = gp_queues_seed_from(fd, &so);
	CHECK(n == 5);			/* 6 rows, one already there */
	n = gp_queues_collect(fd, &r);
	CHECK(n == 6);
	if (n == 6) {
		/* (pid, gpu, qid) order: gpu 8001 before 51157 */
		CHECK(r[0].k.pid == 100 && r[0].k.gpu_id == 8001 &&
		      r[0].k.queue_id == 2 && r[0].v.origin == GP_ORIGIN_SYSFS);
		CHECK(r[1].k.pid == 100 && r[1].k.queue_id == 0);
		CHECK(r[1].v.origin == GP_ORIGIN_BPF && r[1].v.evictions == 2);
		CHECK(r[2].k.queue_id == 1 && r[3].k.queue_id == 10);
		CHECK(r[4].k.pid == 300 && r[5].k.pid == 500);
	}
	free(r);
	/* Seeding again writes nothing: every row exists. */
	CHECK(gp_queues_seed_from(fd, &so) == 0);

	f = capture_open();
	CHECK(gp_queues_print(f, fd, &o) == 6);
	capture_done(f);
	CHECK(!strncmp(capture_buf, "PID ", 4));
	CHECK(strstr(capture_buf, "\n100     51157    0 compute        7    64K "
		     "evict+susp bpf ") != NULL);
	CHECK(strstr(capture_buf, "\n100      8001    2 sdma_xgmi      0    64K "
		     "active     sysfs") != NULL);
	close(fd);
	n = gp_queues_collect(fd, &r);
	CHECK(n == -EBADF || n == -EBADFD);
}

/* A map too small for the tree: the seed stops and says why. */
TEST(seed_full_map)
{
	struct gp_scan_opts so = { .root = fixture };
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "gp_test_small",
				sizeof(struct gp_queue_key),
				sizeof(struct gp_queue_val), 2, NULL);

	if (fd < 0) {
		printf("# cannot create a BPF map: not checked here\n");
		return;
	}
	CHECK(gp_queues_seed_from(fd, &so) == -E2BIG);
	close(fd);
}

TEST(no_pinned_map_is_enoent_or_eperm)
{
	int fd = gp_queues_open_pinned();

	/* A tracer may run on this host; then the pin is real. */
	if (fd >= 0) {
		printf("# a tracer's map is pinned at %s\n", GP_PIN_QUEUES);
		close(fd);
		return;
	}
	CHECK(fd == -ENOENT || fd == -EPERM || fd == -EACCES);
}

int main(void)
{
	if (find_fixture()) {
		printf("not ok 1 - fixture tests/unit/fixtures/kfd_proc not "
		       "found (run from the repo top or set GP_FIXTURES)\n"
		       "1..1\n");
		return 1;
	}
	RUN(parse_sysfs_values);
	RUN(scan_fixture_tree);
	RUN(scan_pid_filter);
	RUN(scan_missing_root_is_an_error);
	RUN(callback_can_stop_the_scan);
	RUN(queue_vanishes_mid_walk);
	RUN(process_vanishes_mid_walk);
	RUN(next_process_vanishes_before_listing);
	RUN(row_text);
	RUN(row_json);
	RUN(rows_print_empty_and_json);
	RUN(sort_rows);
	RUN(map_dump_batch_and_walk_agree);
	RUN(seed_and_collect_real_map);
	RUN(seed_full_map);
	RUN(no_pinned_map_is_enoent_or_eperm);
	free(capture_buf);
	return tap_done();
}
