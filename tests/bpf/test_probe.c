// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the embeddable tracer (user/trace/probe.h) on the host kernel. The
 * host has no amdgpu, so no KFD hook attaches, but the process-exit
 * program (raw_tp/sched_process_exit) is real: a queue row put in the map
 * for a child, as the loader's sysfs seeding does, must come back as an
 * immediate GP_OP_EXIT event when the child really exits, to two probes
 * loaded side by side (the daemon's and a gpreempt-trace's), each woken
 * at once rather than on its poll timeout. Needs root; prints TAP.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tap.h"
#include "attach.h"
#include "exitcodes.h"
#include "probe.h"
#include "queues.h"

#define POLL_MS 3000	/* far above what a wakeup takes, even loaded */

struct seen {
	int exits;
	__u32 pid;
	__u64 ts_ns;		/* the event's BPF timestamp */
	__u64 got_ns;		/* boot ns when the callback ran */
	int other;		/* events of other pids (other exits) */
};

static __u32 child_pid;

static __u64 boot_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (__u64)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int on_event(void *ctx, const struct gp_event *e)
{
	struct seen *s = ctx;

	if (e->op != GP_OP_EXIT || e->pid != child_pid) {
		s->other++;
		return 0;
	}
	s->exits++;
	s->pid = e->pid;
	s->ts_ns = e->ts_ns;
	s->got_ns = boot_ns();
	return 0;
}

static int libbpf_quiet(enum libbpf_print_level l, const char *f, va_list a)
{
	return 0;
}

/* What gp_queues_seed + gp_queues_index do for a queue found in sysfs. */
static int seed_row(struct gp_probe *p, const struct gp_queue_key *k,
		    const struct gp_queue_val *v, int owners_fd, int qidx_fd)
{
	if (bpf_map_update_elem(gp_probe_queues_fd(p), k, v, BPF_NOEXIST))
		return -errno;
	return gp_queues_index(gp_probe_queues_fd(p), owners_fd, qidx_fd);
}

static int map_fd(struct gp_probe *p, const char *name)
{
	return bpf_object__find_map_fd_by_name(gp_probe_object(p), name);
}

/* Keep CAP_BPF, drop CAP_PERFMON and CAP_SYS_ADMIN (this process). */
static int drop_perfmon(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	d[CAP_PERFMON / 32].effective &= ~(1U << (CAP_PERFMON % 32));
	d[CAP_PERFMON / 32].permitted &= ~(1U << (CAP_PERFMON % 32));
	return syscall(SYS_capset, &h, d);
}

TEST(probes_side_by_side_get_an_immediate_exit_event)
{
	struct gp_probe_opts o[3] = {
		{ .emit = GP_EMIT_IMMEDIATE, .on_event = on_event },
		{ .emit = GP_EMIT_ALL, .immediate = true,
		  .on_event = on_event },
		/* gpreempt-trace's own setting: batched, read on a timer */
		{ .emit = GP_EMIT_ALL, .on_event = on_event },
	};
	struct gp_queue_val v = { .origin = GP_ORIGIN_SYSFS,
				  .wptr_addr = 0x7f00dead0038ULL,
				  .rptr_addr = 0x7f00dead0080ULL };
	struct gp_queue_key k = { .gpu_id = 0x1234, .queue_id = 3 };
	struct seen seen[3] = {};
	struct gp_probe *p[3] = {};
	struct gp_probe_err err;
	struct gp_queue_val got;
	int pipefd[2], status;
	pid_t pid;

	CHECK(pipe(pipefd) == 0);
	pid = fork();
	if (pid == 0) {
		char c;

		close(pipefd[1]);
		/* wait for the parent's word, then exit */
		_exit(read(pipefd[0], &c, 1) < 0);
	}
	close(pipefd[0]);
	child_pid = pid;
	k.pid = pid;
	for (int i = 0; i < 3; i++) {
		o[i].ctx = &seen[i];
		o[i].no_seed = true;
		CHECK(gp_probe_open(&o[i], &p[i], &err) == 0);
		if (!p[i]) {
			printf("# open: %s\n", err.msg);
			goto out;
		}
		CHECK(gp_probe_attach_info(p[i])->exit_attached);
		CHECK(gp_probe_fd(p[i]) >= 0);
		CHECK(seed_row(p[i], &k, &v, map_fd(p[i], "gp_owners"),
			       map_fd(p[i], "gp_qidx")) == 1);
		/* found by (pid, qid) alone, addresses and all */
		CHECK(gp_probe_queue(p[i], pid, GP_ANY_GPU, 3, &got) == 0);
		CHECK(got.wptr_addr == v.wptr_addr &&
		      got.rptr_addr == v.rptr_addr);
	}
	CHECK(write(pipefd[1], "x", 1) == 1);
	waitpid(pid, &status, 0);
	for (int i = 0; i < 3; i++) {
		__u64 t0 = boot_ns(), waited;

		/* one wait: an immediate event ends it at once; a batched
		 * one is read when the wait times out */
		gp_probe_poll(p[i], i < 2 ? POLL_MS : 300);
		waited = boot_ns() - t0;
		CHECK(seen[i].exits == 1);
		printf("# probe %d: exit event %.3f ms after the kernel event,"
		       " poll returned after %.3f ms\n", i,
		       (seen[i].got_ns - seen[i].ts_ns) / 1e6, waited / 1e6);
		if (i < 2)
			CHECK(waited < POLL_MS * 1000000ULL / 2);
		else
			CHECK(waited >= 250 * 1000000ULL);
		/* BPF dropped the row (and its index entry) on the exit */
		CHECK(gp_probe_queue(p[i], pid, GP_ANY_GPU, 3, &got) ==
		      -ENOENT);
		CHECK(gp_probe_queue(p[i], pid, 0x1234, 3, &got) == -ENOENT);
	}
out:
	close(pipefd[1]);
	for (int i = 0; i < 3; i++)
		gp_probe_close(p[i]);
}

TEST(probe_without_perfmon_fails_with_no_bpf_and_says_why)
{
	int st = 0, fds[2];
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		struct gp_probe_opts o = { .no_seed = true };
		struct gp_probe_err err;
		struct gp_probe *p;
		int rc;

		/* Keep CAP_BPF, drop CAP_PERFMON and CAP_SYS_ADMIN: the
		 * kernel refuses tracing programs (EPERM), really. */
		if (drop_perfmon())
			_exit(98);
		rc = gp_probe_open(&o, &p, &err);
		dprintf(fds[1], "%s", err.msg);
		_exit(rc);
	}
	close(fds[1]);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == GP_EXIT_NO_BPF);
	{
		char msg[300] = "";

		if (read(fds[0], msg, sizeof(msg) - 1) < 0)
			msg[0] = '\0';
		printf("# %s\n", msg);
		CHECK(strstr(msg, "refused the BPF programs") != NULL);
	}
	close(fds[0]);
}

static char pin_dir[64], pin_path[96];

static __u32 map_id(int fd)
{
	struct bpf_map_info m = {};
	__u32 len = sizeof(m);

	return bpf_map_get_info_by_fd(fd, &m, &len) ? 0 : m.id;
}

static __u32 pinned_id(void)
{
	int fd = bpf_obj_get(pin_path);
	__u32 id;

	if (fd < 0)
		return 0;
	id = map_id(fd);
	close(fd);
	return id;
}

TEST(a_second_probe_does_not_replace_a_live_pin)
{
	struct gp_probe_opts o = { .no_seed = true, .pin_path = pin_path };
	struct gp_probe *p1 = NULL, *p2 = NULL;
	struct gp_probe_err err;
	int fd;

	CHECK(gp_probe_open(&o, &p1, &err) == 0 && !err.msg[0]);
	if (!p1)
		return;
	CHECK(pinned_id() == map_id(gp_probe_queues_fd(p1)));
	fd = gp_queues_open_pinned_at(pin_path);
	CHECK(fd >= 0);	/* live: p1's programs use it */
	if (fd >= 0)
		close(fd);
	CHECK(gp_probe_open(&o, &p2, &err) == 0);
	printf("# second: %s\n", err.msg);
	CHECK(strstr(err.msg, "live") != NULL);
	CHECK(pinned_id() == map_id(gp_probe_queues_fd(p1)));
	gp_probe_close(p2);
	CHECK(pinned_id() == map_id(gp_probe_queues_fd(p1)));
	gp_probe_close(p1);
	CHECK(access(pin_path, F_OK) != 0);
}

TEST(a_pin_left_by_a_killed_tracer_is_stale_then_replaced)
{
	struct gp_probe_opts o = { .no_seed = true, .pin_path = pin_path };
	struct gp_probe_err err;
	struct gp_probe *p = NULL;
	int fds[2], st, fd = 0;
	pid_t pid;
	char c;

	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		if (gp_probe_open(&o, &p, &err))
			_exit(1);
		if (write(fds[1], "p", 1) != 1)
			_exit(1);
		pause();	/* until SIGKILL: no cleanup at all */
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 1);
	close(fds[0]);
	CHECK(access(pin_path, F_OK) == 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK(access(pin_path, F_OK) == 0);	/* the pin outlives it */
	/* its programs go with its fds (freed after an RCU grace period) */
	for (int i = 0; i < 100; i++) {
		fd = gp_queues_open_pinned_at(pin_path);
		if (fd == -ESTALE)
			break;
		if (fd >= 0)
			close(fd);
		usleep(10000);
	}
	CHECK(fd == -ESTALE);
	CHECK(gp_probe_open(&o, &p, &err) == 0 && !err.msg[0]);
	if (!p)
		return;
	CHECK(pinned_id() == map_id(gp_probe_queues_fd(p)));
	gp_probe_close(p);
	CHECK(access(pin_path, F_OK) != 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP L1 BPF tests need root\n");
		return 0;
	}
	libbpf_set_print(libbpf_quiet);
	RUN(probes_side_by_side_get_an_immediate_exit_event);
	RUN(probe_without_perfmon_fails_with_no_bpf_and_says_why);
	snprintf(pin_dir, sizeof(pin_dir), "/sys/fs/bpf/gp-test-%d",
		 (int)getpid());
	snprintf(pin_path, sizeof(pin_path), "%s/queues", pin_dir);
	RUN(a_second_probe_does_not_replace_a_live_pin);
	RUN(a_pin_left_by_a_killed_tracer_is_stale_then_replaced);
	unlink(pin_path);
	rmdir(pin_dir);
	return tap_done();
}
