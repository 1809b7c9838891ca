/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for numbers printed to users, and the one fallback for a number
 * that has no name ("?<n>"), so every table prints unknown values alike.
 * Tables that are part of a module's API stay there (kfd.h's call and
 * status names, the tracer's op names) and print through names_or_num().
 */
#ifndef GP_NAMES_H
#define GP_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Room for "?4294967295" and its NUL. */
#define NAMES_NUM_LEN 12

/* name if not NULL, else "?<n>" written into buf (NAMES_NUM_LEN bytes). */
const char *names_or_num(const char *name, uint32_t n, char *buf,
			 size_t len);

/*
 * The ioctl's queue types (KFD_IOC_QUEUE_TYPE_*: "compute", "sdma",
 * "compute_aql", "sdma_xgmi", "sdma_by_eng_id"), NULL when unknown.
 */
const char *names_ioc_queue_type(uint32_t type);

#endif
