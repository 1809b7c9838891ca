// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-arm: what a launch probe costs the probed process, on real
 * uprobes (bench/detect-cost.sh; the facts are in docs/arbiter.md,
 * "Launch detection: what a trap costs and the levers").
 *
 *   uprobe-arm -p PID -l LIB -s SYM[,SYM...] [-r RATE] [-d SECS]
 *              [-R READY] [-m]
 *
 *   -s      the probed symbols of LIB (.dynsym names; a name ending in
 *           '*' is a prefix, for C++-mangled ones); the attach cookie of
 *           each is its index, and bench/trap_count.bpf.c counts the
 *           program's runs per cookie: one run, one trap
 *   -r 0    (default) arm once, scoped to PID, and hold: until SECS pass
 *           (-d) or stdin ends; then print the trap counts
 *   -r RATE toggle for SECS: RATE edges a second, each edge an arm (all
 *           symbols attached, scoped to PID) or a disarm (all detached),
 *           alternately; prints the arm and disarm syscall times
 *   -m      arm with one uprobe_multi link (kernel 6.6+) instead of one
 *           perf-event uprobe per symbol (what libbpf and the detector
 *           use today)
 *   -R      file created once the probes are armed (-r 0) or the
 *           toggling starts
 * Toggling stops early, with no error, when PID exits. One JSON object
 * on stdout. Needs root. Exit 0, 1 on a setup failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "trap_count.skel.h"

#define MAX_SYMS 16

static char *syms[MAX_SYMS];
static unsigned long offs[MAX_SYMS];
static int nsyms;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool sym_match(const char *want, const char *name)
{
	size_t n = strlen(want);

	if (n && want[n - 1] == '*')
		return !strncmp(name, want, n - 1);
	return !strcmp(name, want);
}

/* File offset of each symbol: its address in its executable PT_LOAD. */
static int resolve(const char *lib)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	GElf_Phdr ph;
	Elf_Data *d;
	size_t np, i, j, n;
	int fd, k, found = 0;
	Elf *e;

	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_getphdrnum(e, &np)) {
		close(fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++) {
			const char *nm;

			if (!gelf_getsym(d, i, &s) || !s.st_value ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			for (k = 0; nm && k < nsyms; k++) {
				if (offs[k] || !sym_match(syms[k], nm))
					continue;
				for (j = 0; j < np; j++)
					if (gelf_getphdr(e, j, &ph) &&
					    ph.p_type == PT_LOAD &&
					    (ph.p_flags & PF_X) &&
					    s.st_value >= ph.p_vaddr &&
					    s.st_value < ph.p_vaddr + ph.p_filesz)
						offs[k] = s.st_value - ph.p_vaddr +
							  ph.p_offset;
				found += !!offs[k];
			}
		}
	}
	elf_end(e);
	close(fd);
	return found == nsyms ? 0 : -ENOENT;
}

struct armed {
	struct bpf_link *l[MAX_SYMS];
	int n;
};

static int arm(struct trap_count_bpf *sk, pid_t pid, const char *lib,
	       bool multi, struct armed *a)
{
	int i;

	a->n = 0;
	if (multi) {
		__u64 cookies[MAX_SYMS];
		LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = offs,
			    .cookies = cookies, .cnt = nsyms);

		for (i = 0; i < nsyms; i++)
			cookies[i] = i;
		a->l[0] = bpf_program__attach_uprobe_multi(sk->progs.tc_hit_multi,
							    pid, lib, NULL, &o);
		if (!a->l[0])
			return -errno;
		a->n = 1;
		return 0;
	}
	for (i = 0; i < nsyms; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i);

		a->l[i] = bpf_program__attach_uprobe_opts(sk->progs.tc_hit, pid,
							  lib, offs[i], &o);
		if (!a->l[i])
			return -errno;
		a->n = i + 1;
	}
	return 0;
}

static void disarm(struct armed *a)
{
	while (a->n)
		bpf_link__destroy(a->l[--a->n]);
}

/* libbpf's warnings, less the one a toggle ending with its target gives */
static int print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	char buf[512];

	if (l == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, "No such process"))
		return 0;
	return fputs(buf, stderr);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(const char *name, uint64_t *v, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("\"%s\":{\"n\":%zu,\"mean\":%llu,\"p50\":%llu,\"p99\":%llu,"
	       "\"max\":%llu},", name, n,
	       (unsigned long long)(n ? sum / n : 0),
	       (unsigned long long)(n ? v[n / 2] : 0),
	       (unsigned long long)(n ? v[n * 99 / 100] : 0),
	       (unsigned long long)(n ? v[n - 1] : 0));
}

static void touch(const char *f)
{
	FILE *fp;

	if (f && (fp = fopen(f, "w")))
		fclose(fp);
}

static void hold(double secs)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char buf[256];

	if (secs > 0) {
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
		return;
	}
	while (poll(&p, 1, -1) > 0 && read(0, buf, sizeof(buf)) > 0)
		;
}

/* RATE edges a second for secs: arm, disarm, arm... on absolute ticks */
static int toggle(struct trap_count_bpf *sk, pid_t pid, const char *lib,
		  bool multi, double rate, double secs, const char *ready)
{
	size_t cap = (size_t)(rate * secs) + 2, na = 0, nd = 0;
	uint64_t *ta = calloc(cap, sizeof(*ta)), *td = calloc(cap, sizeof(*td));
	uint64_t period = 1e9 / rate, t0, next, t, end;
	struct armed a = { 0 };
	struct timespec ts;
	int err = 0;

	if (!ta || !td)
		return -ENOMEM;
	touch(ready);
	t0 = next = now_ns();
	end = t0 + secs * 1e9;
	while (next < end && na < cap && nd < cap) {
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now_ns();
		if (a.n) {
			disarm(&a);
			td[nd++] = now_ns() - t;
		} else {
			err = arm(sk, pid, lib, multi, &a);
			ta[na++] = now_ns() - t;
			if (err == -ESRCH) {	/* the target's run ended */
				na--;
				err = 0;
				break;
			}
			if (err)
				break;
		}
		next += period;
	}
	disarm(&a);
	t = now_ns() - t0;
	printf("{\"mode\":\"toggle\",\"link\":\"%s\",\"rate\":%.0f,"
	       "\"achieved\":%.1f,\"error\":%d,", multi ? "multi" : "perf", rate,
	       (na + nd) / (t / 1e9), err);
	stats("arm_ns", ta, na);
	stats("disarm_ns", td, nd);
	free(ta);
	free(td);
	return err;
}

int main(int argc, char **argv)
{
	const char *lib = NULL, *ready = NULL;
	double rate = 0, secs = 0;
	struct trap_count_bpf *sk;
	struct armed a = { 0 };
	bool multi = false;
	char *list = NULL, *tok, *save;
	pid_t pid = 0;
	uint64_t total = 0;
	int opt, i, err;

	while ((opt = getopt(argc, argv, "p:l:s:r:d:R:m")) != -1) {
		switch (opt) {
		case 'p': pid = atoi(optarg); break;
		case 'l': lib = optarg; break;
		case 's': list = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'R': ready = optarg; break;
		case 'm': multi = true; break;
		default: return 1;
		}
	}
	for (tok = list ? strtok_r(list, ",", &save) : NULL;
	     tok && nsyms < MAX_SYMS; tok = strtok_r(NULL, ",", &save))
		syms[nsyms++] = tok;
	if (pid <= 0 || !lib || !nsyms || rate < 0 || secs < 0 ||
	    (rate > 0 && secs <= 0)) {
		fprintf(stderr, "usage: uprobe-arm -p PID -l LIB -s SYM[,SYM] "
				"[-r RATE -d SECS] [-R READY] [-m]\n");
		return 1;
	}
	libbpf_set_print(print);
	err = resolve(lib);
	if (err) {
		fprintf(stderr, "uprobe-arm: %s: a symbol is missing (%s)\n",
			lib, strerror(-err));
		return 1;
	}
	sk = trap_count_bpf__open_and_load();
	if (!sk) {
		fprintf(stderr, "uprobe-arm: BPF load: %s\n", strerror(errno));
		return 1;
	}
	if (rate > 0) {
		err = toggle(sk, pid, lib, multi, rate, secs, ready);
	} else {
		err = arm(sk, pid, lib, multi, &a);
		if (!err) {
			touch(ready);
			hold(secs);
		}
		disarm(&a);
		printf("{\"mode\":\"hold\",\"link\":\"%s\",\"error\":%d,",
		       multi ? "multi" : "perf", err);
	}
	printf("\"hits\":[");
	for (i = 0; i < nsyms; i++) {
		printf("%s%llu", i ? "," : "",
		       (unsigned long long)sk->bss->tc_hits[i]);
		total += sk->bss->tc_hits[i];
	}
	printf("],\"traps\":%llu}\n", (unsigned long long)total);
	trap_count_bpf__destroy(sk);
	if (err)
		fprintf(stderr, "uprobe-arm: attach: %s\n", strerror(-err));
	return err ? 1 : 0;
}
