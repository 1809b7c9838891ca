/* SPDX-License-Identifier: GPL-2.0 */
/* Small parsers and clocks shared by both tools. */
#ifndef GP_UTIL_H
#define GP_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/*
 * "250ms", "10s", "2m", "1h", "500us", "100ns"; a bare number is seconds,
 * as in libbpf-tools' -d. Returns 0 and sets *ns, or -EINVAL.
 */
int parse_duration_ns(const char *s, uint64_t *ns);
/* Decimal or 0x-hex u32, whole string, no sign. 0 or -EINVAL. */
int parse_u32(const char *s, uint32_t *out);
/* A pid: 1..INT32_MAX. 0 or -EINVAL. */
int parse_pid(const char *s, int *pid);
/* CLOCK_BOOTTIME in ns: the clock of bpf_ktime_get_boot_ns() and of
 * KFD's SMI events, so user and kernel timestamps line up. */
uint64_t boottime_ns(void);
uint64_t monotonic_ns(void);

#endif
