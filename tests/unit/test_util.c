// SPDX-License-Identifier: GPL-2.0
/* L0: the shared parsers and the NDJSON writer. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "json.h"
#include "procfs.h"
#include "tap.h"
#include "util.h"

TEST(duration_units)
{
	uint64_t ns = 0;

	CHECK(parse_duration_ns("10", &ns) == 0 && ns == 10000000000ULL);
	CHECK(parse_duration_ns("250ms", &ns) == 0 && ns == 250000000ULL);
	CHECK(parse_duration_ns("3us", &ns) == 0 && ns == 3000);
	CHECK(parse_duration_ns("7ns", &ns) == 0 && ns == 7);
	CHECK(parse_duration_ns("2m", &ns) == 0 && ns == 120000000000ULL);
	CHECK(parse_duration_ns("1h", &ns) == 0 && ns == 3600000000000ULL);
}

TEST(duration_rejects)
{
	uint64_t ns = 42;

	CHECK(parse_duration_ns("", &ns) == -EINVAL);
	CHECK(parse_duration_ns("-1s", &ns) == -EINVAL);
	CHECK(parse_duration_ns("1x", &ns) == -EINVAL);
	CHECK(parse_duration_ns("s", &ns) == -EINVAL);
	CHECK(parse_duration_ns("99999999999999999999", &ns) == -EINVAL);
	CHECK(parse_duration_ns("99999999999h", &ns) == -EINVAL);
	/* fits in 64 bits but overflows now + d and signed time: refused */
	CHECK(parse_duration_ns("5000000h", &ns) == -EINVAL);
	CHECK(parse_duration_ns("18446744073709551615ns", &ns) == -EINVAL);
	CHECK(parse_duration_ns("9223372036854775807ns", &ns) == 0 &&
	      ns == INT64_MAX);
	ns = 42;
	CHECK(ns == 42);
}

TEST(u32_and_pid)
{
	uint32_t v = 0;
	int pid = 0;

	/* decimal only, one spelling per value (CLI and protocol alike) */
	CHECK(parse_u32("0x10", &v) == -EINVAL);
	CHECK(parse_u32("010", &v) == -EINVAL);
	CHECK(parse_u32("0", &v) == 0 && v == 0);
	CHECK(parse_u32("+1", &v) == -EINVAL);
	CHECK(parse_u32(" 1", &v) == -EINVAL);
	CHECK(parse_u32("", &v) == -EINVAL);
	CHECK(parse_pid("010", &pid) == -EINVAL);
	CHECK(parse_pid("0x10", &pid) == -EINVAL);
	CHECK(parse_pid("10", &pid) == 0 && pid == 10);
	CHECK(parse_u32("4294967295", &v) == 0 && v == 4294967295U);
	CHECK(parse_u32("4294967296", &v) == -EINVAL);
	CHECK(parse_u32("-1", &v) == -EINVAL);
	CHECK(parse_u32("12a", &v) == -EINVAL);
	CHECK(parse_pid("1", &pid) == 0 && pid == 1);
	CHECK(parse_pid("0", &pid) == -EINVAL);
	CHECK(parse_pid("2147483648", &pid) == -EINVAL);
}

TEST(json_object)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_begin(&j, f);
	json_str(&j, "type", "a\"b\n");
	json_u64(&j, "n", 18446744073709551615ULL);
	json_s64(&j, "e", -22);
	json_hex(&j, "gpu", 0xbeef);
	json_arr_open(&j, "q");
	json_u64(&j, NULL, 1);
	json_obj_open(&j, NULL);
	json_bool(&j, "ok", true);
	json_obj_close(&j);
	json_arr_close(&j);
	json_end(&j);
	fclose(f);
	CHECK_STR(buf, "{\"type\":\"a\\\"b\\n\",\"n\":18446744073709551615,"
		  "\"e\":-22,\"gpu\":\"0xbeef\",\"q\":[1,{\"ok\":true}]}\n");
	free(buf);
}

TEST(reserve_grows_and_keeps)
{
	int *v = NULL, *before;
	size_t cap = 0, i, big = 0;
	bool ok = true;

	for (i = 0; i < 100; i++) {
		if (gp_reserve(&v, &cap, i, sizeof(*v))) {
			ok = false;
			break;
		}
		v[i] = (int)i;
	}
	CHECK(ok && cap >= 100 && cap <= 128);
	for (i = 0; ok && i < 100; i++)
		ok = v[i] == (int)i;
	CHECK(ok);
	/* below cap: no realloc */
	before = v;
	CHECK(gp_reserve(&v, &cap, 5, sizeof(*v)) == 0 && v == before);
	/* a size that overflows: -ENOMEM, array and cap untouched */
	i = cap;
	CHECK(gp_reserve(&v, &cap, cap, SIZE_MAX / 4) == -ENOMEM &&
	      v == before && cap == i);
	free(v);
	v = NULL;
	CHECK(gp_reserve(&v, &big, 0, 1) == 0 && v && big == 8);
	free(v);
}

TEST(dir_ids_numbers_only_sorted)
{
	const char *names[] = { "10", "3", "0", "self", "01", "x1", "2x",
				"4294967296" };
	char dir[] = "/tmp/gp-dirids.XXXXXX", path[64];
	int *ids = NULL, n;
	size_t i;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		CHECK(mkdir(path, 0700) == 0);
	}
	n = gp_dir_ids(dir, &ids);
	CHECK(n == 3 && ids && ids[0] == 0 && ids[1] == 3 && ids[2] == 10);
	free(ids);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rmdir(path);
	}
	CHECK(rmdir(dir) == 0);
	CHECK(gp_dir_ids(dir, &ids) == -ENOENT && ids == NULL);
}

/* /dev/null under another name is still the null device; a file, a
 * pipe and /dev/zero are not. */
TEST(null_device_is_told_apart)
{
	char path[] = "/tmp/gp-null-XXXXXX", nod[64];
	int fds[2], fd, n;

	fd = open("/dev/null", O_WRONLY);
	CHECK(fd >= 0 && gp_fd_is_null(fd));
	close(fd);
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0 && !gp_fd_is_null(fd));
	close(fd);
	fd = mkstemp(path);
	CHECK(fd >= 0 && !gp_fd_is_null(fd));
	close(fd);
	unlink(path);
	CHECK(pipe(fds) == 0 && !gp_fd_is_null(fds[1]));
	close(fds[0]);
	close(fds[1]);
	CHECK(!gp_fd_is_null(-1));
	snprintf(nod, sizeof(nod), "/tmp/gp-null-nod-%d", (int)getpid());
	n = mknod(nod, S_IFCHR | 0600, makedev(1, 3));
	if (n == 0) {	/* root: a second node of the same device */
		fd = open(nod, O_WRONLY);
		CHECK(fd >= 0 && gp_fd_is_null(fd));
		close(fd);
		unlink(nod);
	}
}

/* --admin-cgroup and cgroup= selectors: whole components; a cgroup outside
 * the reader's namespace ("/../x") is under nothing but "/". */
TEST(cgroup_under_whole_components)
{
	CHECK(procfs_cgroup_under("/kubepods/pod1", "/kubepods/pod1"));
	CHECK(procfs_cgroup_under("/kubepods/pod1/c", "/kubepods/pod1"));
	CHECK(!procfs_cgroup_under("/kubepods/pod12", "/kubepods/pod1"));
	CHECK(!procfs_cgroup_under("/kubepods", "/kubepods/pod1"));
	CHECK(!procfs_cgroup_under("/../kubepods/pod1", "/kubepods"));
	CHECK(!procfs_cgroup_under("/a/../kubepods/pod1", "/a"));
	CHECK(!procfs_cgroup_under("/a/..", "/a"));
	CHECK(procfs_cgroup_under("/anything", "/"));
}

/* Our own cgroup v2 line, as the daemon reads a peer's. */
TEST(cgroup2_of_self)
{
	char cg[512];
	int n = procfs_cgroup2(getpid(), cg, sizeof(cg));

	/* a host without cgroup v2 has no "0::" line */
	CHECK(n == -ENOENT || (n > 0 && cg[0] == '/' && (int)strlen(cg) == n));
	CHECK(procfs_cgroup2(getpid(), cg, 1) == -ENAMETOOLONG ||
	      n == -ENOENT);
}

int main(void)
{
	RUN(duration_units);
	RUN(cgroup_under_whole_components);
	RUN(cgroup2_of_self);
	RUN(duration_rejects);
	RUN(u32_and_pid);
	RUN(json_object);
	RUN(reserve_grows_and_keeps);
	RUN(dir_ids_numbers_only_sorted);
	RUN(null_device_is_told_apart);
	return tap_done();
}
