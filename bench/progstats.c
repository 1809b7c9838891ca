// SPDX-License-Identifier: GPL-2.0
/*
 * progstats: BPF run time of every program while one command runs, from
 * the kernel's own accounting (BPF_ENABLE_STATS: run_cnt and run_time_ns
 * per program). It splits a tracer's added cost per call into its
 * programs and the rest (the fentry trampoline or kprobe that calls
 * them); docs/benchmarks-history.md section 7.
 *
 *   progstats -- CMD [ARG...]
 *
 * Prints "PROG NAME RUNS NS_PER_RUN" for each program that ran during
 * CMD, then exits with CMD's status. The kernel's accounting itself adds
 * two sched_clock() reads per run, inside the figure. Raw bpf(2), static:
 * it runs in the VM's busybox initramfs.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROGS 4096

struct prog {
	__u32 id;
	char name[BPF_OBJ_NAME_LEN];
	__u64 cnt, ns;
};

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

/* Every loaded program's counters; how many, or -1. */
static int snapshot(struct prog *p)
{
	union bpf_attr a;
	__u32 id = 0;
	int n = 0;

	for (;;) {
		struct bpf_prog_info info;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a))
			return errno == ENOENT ? n : -1;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;	/* unloaded meanwhile */
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(uintptr_t)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) && n < MAX_PROGS) {
			p[n].id = id;
			memcpy(p[n].name, info.name, sizeof(p[n].name));
			p[n].cnt = info.run_cnt;
			p[n].ns = info.run_time_ns;
			n++;
		}
		close(fd);
	}
}

int main(int argc, char **argv)
{
	static struct prog before[MAX_PROGS], after[MAX_PROGS];
	union bpf_attr a;
	int nb, na, st, stats;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], "--")) {
		fprintf(stderr, "usage: progstats -- CMD [ARG...]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.enable_stats.type = BPF_STATS_RUN_TIME;
	stats = sys_bpf(BPF_ENABLE_STATS, &a);	/* on while the fd is open */
	if (stats < 0) {
		fprintf(stderr, "progstats: BPF_ENABLE_STATS: %s\n",
			strerror(errno));
		return 1;
	}
	nb = snapshot(before);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "progstats: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || nb < 0 || waitpid(pid, &st, 0) != pid) {
		fprintf(stderr, "progstats: %s\n", strerror(errno));
		return 1;
	}
	na = snapshot(after);
	for (int i = 0; i < na; i++) {
		__u64 c0 = 0, t0 = 0;

		for (int j = 0; j < nb; j++)
			if (before[j].id == after[i].id) {
				c0 = before[j].cnt;
				t0 = before[j].ns;
			}
		if (after[i].cnt > c0)
			printf("PROG %s %llu %llu\n", after[i].name,
			       (unsigned long long)(after[i].cnt - c0),
			       (unsigned long long)((after[i].ns - t0) /
						    (after[i].cnt - c0)));
	}
	close(stats);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
