/* SPDX-License-Identifier: GPL-2.0 */
/* Small parsers, formatters and clocks shared by every tool. */
#ifndef GP_UTIL_H
#define GP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* The longest duration accepted anywhere (292 years): see parse_duration_ns. */
#define GP_DURATION_MAX_NS ((uint64_t)INT64_MAX)

/*
 * "250ms", "10s", "2m", "1h", "500us", "100ns"; a bare number is seconds,
 * as in libbpf-tools' -d. The number is decimal. Returns 0 and sets *ns,
 * or -EINVAL, also above GP_DURATION_MAX_NS: a hold of "5000000h" fits
 * 64 bits but now + it wraps, which made it end at once.
 */
int parse_duration_ns(const char *s, uint64_t *ns);
/*
 * The one number rule for ids, pids and counts, on the command line and
 * on the daemon's socket alike: plain decimal, digits only, no sign, no
 * leading zero (but "0"), no 0x, <= max. One spelling per value, so
 * "--pid 010" is refused rather than read as 8 or 10.
 * parse_dec() takes t[0..n); the others a whole NUL-terminated string.
 * 0 and *out set, or -EINVAL (*out unchanged).
 */
int parse_dec(const char *t, size_t n, uint64_t max, uint64_t *out);
int parse_u32(const char *s, uint32_t *out);
/* A pid: 1..INT32_MAX. 0 or -EINVAL. */
int parse_pid(const char *s, int *pid);
/* "12.345 ms" below one second, "1.500 s" from one second on. */
void fmt_ns(char *buf, size_t len, uint64_t ns);
/* CLOCK_BOOTTIME in ns: the clock of bpf_ktime_get_boot_ns() and of
 * KFD's SMI events, so user and kernel timestamps line up. */
uint64_t boottime_ns(void);
uint64_t monotonic_ns(void);
/*
 * Room for element n of the array *vp (elements of size bytes, *cap of
 * them allocated): doubles *cap (first 8) when n == *cap. 0, or -ENOMEM
 * with *vp and *cap untouched (the caller still frees *vp). Pass the
 * address of the array pointer: gp_reserve(&v, &cap, n, sizeof(*v)).
 */
int gp_reserve(void *vp, size_t *cap, size_t n, size_t size);
/*
 * The entries of dir named by a decimal number <= INT32_MAX (KFD's
 * proc/<pid>, topology nodes/<n>, /proc/<pid>), ascending, in *ids
 * (free() it; NULL when there are none). Their count, or -errno.
 */
int gp_dir_ids(const char *dir, int **ids);
/*
 * Is fd the null device (character device 1:3, whatever its path)? Output
 * written there is wanted by nobody: gpreempt-trace then keeps only the
 * in-kernel summary.
 */
bool gp_fd_is_null(int fd);

/*
 * Give up this process's controlling terminal, if it has one (TIOCNOTTY;
 * the SIGHUP a session leader's goes with is ignored meanwhile). A root
 * daemon that is a session leader with no terminal (as systemd starts
 * it) would otherwise take the first terminal it opens without O_NOCTTY
 * as its own, and a tenant who got a path to its pty opened could stop
 * it with ^C (issue 31, N1). 0, or -errno when TIOCNOTTY failed.
 */
int gp_drop_ctty(void);

#endif
