/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who opened a busy: the policy's source id (policy.h's and gpolicy.h's
 * src), typed by the detector that owns it. One home for the encoding:
 * the kind in the top byte, the detector's own id in the low 56 bits, so
 * ids of two kinds never compare equal. (They were packed by hand
 * before, and notify's scope=pid source and the launch detector's were
 * both (1 << 63) | pid: a notify "idle scope=pid" ended a launch busy;
 * tests/bats/detect.bats shows it no longer does.)
 *
 * Replays (replay.h) carry recorded ids as plain numbers: the policy
 * only compares them, it never reads the kind.
 */
#ifndef GP_SOURCE_H
#define GP_SOURCE_H

#include <stdint.h>

enum gp_src_kind {
	GP_SRC_NONE,
	GP_SRC_CONN,	/* notify, scope=conn: the connection (its address:
			 * user space is below 2^56 even with 5-level
			 * paging, so it fits the id) */
	GP_SRC_PID,	/* notify, scope=pid: the pid */
	GP_SRC_QUEUES,	/* the queue watcher: the pid */
	GP_SRC_LAUNCH,	/* the launch detector: the pid */
	GP_SRC__N,
};

#define GP_SRC_ID_BITS 56
#define GP_SRC_ID_MASK ((1ULL << GP_SRC_ID_BITS) - 1)

static inline uint64_t gp_src(enum gp_src_kind k, uint64_t id)
{
	return (uint64_t)k << GP_SRC_ID_BITS | (id & GP_SRC_ID_MASK);
}

static inline enum gp_src_kind gp_src_kind(uint64_t src)
{
	return (enum gp_src_kind)(src >> GP_SRC_ID_BITS);
}

static inline uint64_t gp_src_id(uint64_t src)
{
	return src & GP_SRC_ID_MASK;
}

/* Notify's sources (a connection's or a pid's busy): what --detect
 * without notify ends at a reload. */
static inline int gp_src_is_notify(uint64_t src)
{
	return gp_src_kind(src) == GP_SRC_CONN ||
	       gp_src_kind(src) == GP_SRC_PID;
}

#endif
