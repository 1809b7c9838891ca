// SPDX-License-Identifier: GPL-2.0
/*
 * L0: `gpreempt-ctl snapshot` on fake system roots passed by parameter:
 * tests/unit/fixtures/snapshot_root (two GPUs, three processes, debugfs
 * dumps in the kernel's format) and tests/unit/fixtures/snapshot_nogpu
 * (what the VM has: CPU-only topology, a process without queues, no
 * debugfs). Checks the collected model, the text report (content and
 * the 80-column limit) and the NDJSON lines, and the exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "fixture.h"
#include "tap.h"
#include "ctl_snapshot.h"
#include "exitcodes.h"

static char root[PATH_MAX], nogpu[PATH_MAX];

static int find_fixtures(void)
{
	return fixture_path("snapshot_root", root, sizeof(root)) ||
	       fixture_path("snapshot_nogpu", nogpu, sizeof(nogpu)) ? -1 : 0;
}

static bool lines_fit(const char *s, size_t max)
{
	while (*s) {
		size_t n = strcspn(s, "\n");

		if (n > max) {
			printf("# too long (%zu): %.*s\n", n, (int)n, s);
			return false;
		}
		s += n + (s[n] == '\n');
	}
	return true;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

TEST(collect_model)
{
	struct snap s;

	snap_collect(&s, root, false);
	CHECK(s.nnodes == 3 && s.sched_policy == 0);
	CHECK(s.nodes[1].gpu_id == 19004 && s.nodes[1].cu_count == 104);
	CHECK(s.nodes[1].gfx_target_version == 90010 && s.nodes[1].debug_fw);
	CHECK(s.nodes[2].cu_count == 96 && !s.nodes[2].debug_trap);
	CHECK(s.nprocs == 3);
	CHECK(s.procs[0].pid == 4242 && s.procs[0].ns_pid == 17);
	CHECK(s.procs[0].uid == 1000 && s.procs[0].queues == 2);
	CHECK(s.procs[0].tracer == 0 && s.procs[1].tracer == 7001);
	CHECK_STR(s.procs[1].tracer_comm, "gpreempt-ctl");
	CHECK_STR(s.procs[0].comm, "resnet-serve");
	CHECK_STR(s.procs[1].cgroup, "/system.slice/train.service");
	CHECK(s.nrows == 4 && s.live < 0);
	CHECK(s.mqd_err == 0 && s.hqd_err == 0);
	CHECK(s.m.nq == 4 && s.m.q[0].decoded && s.m.q[0].queue_id == 0);
	CHECK(s.m.q[0].on_hqd && s.m.q[0].hqd_pipe == 1);
	CHECK(s.m.q[1].queue_id == 1);		/* the lone SDMA queue */
	CHECK(s.m.q[2].queue_id == -1);		/* two compute: ambiguous */
	snap_free(&s);
}

TEST(text_report)
{
	struct snap s;
	const char *t;
	FILE *f;

	snap_collect(&s, root, false);
	f = capture_open();
	snap_print_text(f, &s, false);
	t = capture_done(f);
	CHECK(lines_fit(t, 79));
	CHECK(strstr(t, "KFD topology: 3 nodes, 2 GPUs"));
	CHECK(strstr(t, "amdgpu sched_policy 0 (HWS)"));
	CHECK(strstr(t, "gfx90a"));
	CHECK(strstr(t, "4242     17      1000   resnet-serve"));
	CHECK(strstr(t, "4300     4300    1001   python3              2 "
		      "/system.slice/train.service\n"
		      "         held (ptrace) by 7001 (gpreempt-ctl)\n"));
	CHECK(strstr(t, "MQDs (debugfs): 3 processes, 4 queues, 3 decoded"));
	CHECK(strstr(t, "rptr report @0x7f1234560080  wptr poll "
		      "@0x7f1234560038"));
	CHECK(strstr(t, "slot x0 p1 q2"));
	CHECK(strstr(t, "4400     no queues (PASID 0x8003)"));
	CHECK(strstr(t, "scheduler stopped"));
	CHECK(strstr(t, "(-v)"));
	f = capture_open();
	snap_print_text(f, &s, true);
	t = capture_done(f);
	CHECK(lines_fit(t, 79));
	CHECK(strstr(t, "    00000001 00000002 00000000"));	/* SDMA raw */
	snap_free(&s);
}

TEST(json_report)
{
	struct snap s;
	const char *t;
	FILE *f;

	snap_collect(&s, root, false);
	f = capture_open();
	snap_print_json(f, &s, false);
	t = capture_done(f);
	CHECK(count(t, "\n") == count(t, "{\"type\":"));
	CHECK(count(t, "{\"type\":\"gpu\"") == 2);
	/* node 1: location_id 768 = bus 3, render minor 128 */
	CHECK(strstr(t, "\"pci\":\"0000:03:00.0\",\"drm_render_minor\":128"));
	CHECK(count(t, "{\"type\":\"process\"") == 3);
	CHECK(count(t, "{\"type\":\"queue\"") == 4);
	CHECK(count(t, "{\"type\":\"mqd\"") == 4);
	CHECK(count(t, "{\"type\":\"hqd\"") == 3);	/* no SDMA w/o -v */
	CHECK(strstr(t, "\"mqds\":\"ok\",\"hqds\":\"ok\""));
	CHECK(strstr(t, "\"ns_pid\":17,\"uid\":1000"));
	CHECK(strstr(t, "\"queues\":2,\"tracer_pid\":7001,"
		      "\"tracer_comm\":\"gpreempt-ctl\""));
	CHECK(strstr(t, "\"queue_id\":0,\"kind\":\"compute\",\"layout\":\"v9\""));
	CHECK(strstr(t, "\"rptr_report_addr\":\"0x7f1234560080\","
		      "\"wptr_poll_addr\":\"0x7f1234560038\""));
	CHECK(!strstr(t, "\"raw\":"));
	f = capture_open();
	snap_print_json(f, &s, true);
	t = capture_done(f);
	CHECK(strstr(t, "\"raw\":\"00000001 00000002 00000000"));
	CHECK(count(t, "{\"type\":\"hqd\"") == 4);
	snap_free(&s);
}

/*
 * A process names itself: its comm (and its tracer's) reaches the text
 * report with control characters as '?', as `list` prints it, so an
 * escape sequence cannot rewrite the operator's terminal. JSON keeps it,
 * escaped.
 */
TEST(text_escapes_comm)
{
	struct snap s;
	const char *t;
	FILE *f;

	snap_collect(&s, root, false);
	strcpy(s.procs[1].comm, "gp\033[2Jx\r");
	strcpy(s.procs[1].tracer_comm, "tr\033]0;y\a");
	f = capture_open();
	snap_print_text(f, &s, false);
	t = capture_done(f);
	CHECK(!strchr(t, '\033') && !strchr(t, '\r') && !strchr(t, '\a'));
	CHECK(strstr(t, " gp?[2Jx? "));
	CHECK(strstr(t, "held (ptrace) by 7001 (tr?]0;y?)"));
	f = capture_open();
	snap_print_json(f, &s, false);
	t = capture_done(f);
	CHECK(strstr(t, "\"comm\":\"gp\\u001b[2Jx\\r\""));
	snap_free(&s);
}

TEST(vm_like_root)
{
	struct snap s;
	const char *t;
	FILE *f;

	snap_collect(&s, nogpu, false);
	CHECK(s.nnodes == 1 && s.nodes[0].gpu_id == 0);
	CHECK(s.sched_policy == -ENOENT);
	CHECK(s.nprocs == 1 && s.procs[0].pid == 301 && s.nrows == 0);
	CHECK(s.mqd_err == -ENOENT && s.hqd_err == -ENOENT);
	f = capture_open();
	snap_print_text(f, &s, false);
	t = capture_done(f);
	CHECK(lines_fit(t, 79));
	CHECK(strstr(t, "KFD topology: 1 node, 0 GPUs"));
	CHECK(strstr(t, "no GPU node"));
	CHECK(strstr(t, "301      301     0      kfd-exerciser"));
	CHECK(strstr(t, "MQDs: none: debugfs is not mounted"));
	f = capture_open();
	snap_print_json(f, &s, false);
	t = capture_done(f);
	CHECK(strstr(t, "\"gpus\":0,\"processes\":1,\"queues\":0,"
		      "\"live\":false,\"mqds\":\"ENOENT\""));
	snap_free(&s);
}

TEST(exit_codes)
{
	char *ok[] = { "snapshot", "--root", root, NULL };
	char *bad[] = { "snapshot", "--root", "/nonexistent/x", NULL };
	char *extra[] = { "snapshot", "junk", NULL };
	char *nokfd[] = { "snapshot", "--root", "/", NULL };
	int saved, saved2, dn;
	int r_ok, r_bad, r_extra, r_nokfd;

	fflush(stdout);
	saved = dup(1);
	dn = open("/dev/null", O_WRONLY);
	CHECK(saved >= 0 && dn >= 0);
	dup2(dn, 1);
	saved2 = dup(2);
	dup2(dn, 2);
	r_ok = ctl_snapshot_main(3, ok, true);
	r_bad = ctl_snapshot_main(3, bad, false);
	r_extra = ctl_snapshot_main(2, extra, false);
	/* "/" is the live system: 4 only when this machine has no KFD */
	r_nokfd = ctl_snapshot_main(3, nokfd, true);
	fflush(stdout);
	dup2(saved, 1);
	dup2(saved2, 2);
	close(saved2);
	close(saved);
	close(dn);
	CHECK(r_ok == GP_EXIT_OK);
	CHECK(r_bad == GP_EXIT_USAGE);
	CHECK(r_extra == GP_EXIT_USAGE);
	if (access("/sys/class/kfd/kfd/topology", F_OK))
		CHECK(r_nokfd == GP_EXIT_NO_KFD);
	else
		CHECK(r_nokfd == GP_EXIT_OK);
}

int main(void)
{
	if (find_fixtures()) {
		printf("1..0 # SKIP fixtures not found\n");
		return 0;
	}
	RUN(collect_model);
	RUN(text_report);
	RUN(json_report);
	RUN(text_escapes_comm);
	RUN(vm_like_root);
	RUN(exit_codes);
	return tap_done();
}
