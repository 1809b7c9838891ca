/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A row held by one thread: the slots of calls it is inside (entry seen,
 * return not yet), in an array indexed by tid modulo its size. A thread
 * claims a free row at its first entry and gives it back when nothing of
 * it is pending there, or at exit (a return that never came: a missed
 * kretprobe). A thread whose row another thread holds uses the fallback
 * of the caller: task storage (lean.bpf.h) or the pending hash
 * (logic.bpf.h). Nothing is lost that way, only slower.
 *
 * Why: an array lookup is a few inlined instructions; task storage and
 * the hash are helper calls with locks. In the VM (bench --only progs,
 * 6.12 guest, 2026-11-23; docs/benchmarks-history.md section 8), summary mode's
 * create pair spent 666 + 529 ns of BPF with task storage, 251 + 435 ns
 * with a row; event mode's dbg call 8.4 us with the hash, 6.2 us with
 * rows (and one read of the ioctl's arguments). The array is shared by
 * all CPUs, so a thread that sleeps in the call or migrates finds its
 * row again.
 */
#ifndef GP_ROWS_BPF_H
#define GP_ROWS_BPF_H

#include "maps.bpf.h"

/*
 * Slots per row: the ops, rounded up to a power of two, so that
 * "op & (GP_ROW_SLOTS - 1)" is a bound the verifier sees whatever the
 * compiler makes of the caller's op < GP_OP_MAX check.
 */
#define GP_ROW_SLOTS 16
_Static_assert(GP_OP_MAX <= GP_ROW_SLOTS, "a row slot per op");
static __always_inline __u32 gp_row_slot(__u32 op)
{
	barrier_var(op);	/* or clang drops the mask after the check */
	return op & (GP_ROW_SLOTS - 1);
}

/* At offset 0 of every row (tests read owner and pending from there). */
struct gp_row_hdr {
	__u64 owner;	/* the tid holding the row, 0 when free (64 bits:
			 * clang's 32-bit cmpxchg needs -mcpu=v3) */
	__u64 pending;	/* bit op: op's slot is pending (entry seen, no
			 * return yet); the row is free again at 0 */
};

/* A rows map: n rows (a power of two) of vtype, header first. */
#define GP_ROWS_MAP(name, vtype, n)					\
struct {								\
	__uint(type, BPF_MAP_TYPE_ARRAY);				\
	__uint(max_entries, n);						\
	__type(key, __u32);						\
	__type(value, vtype);						\
} name SEC(".maps")

/* The row of tid in a rows map of n entries (a power of two). */
static __always_inline void *gp_row_of(void *rows, __u32 n, __u32 tid)
{
	__u32 k = tid & (n - 1);

	return bpf_map_lookup_elem(rows, &k);
}

/*
 * Entry: may tid keep op's slot in this row? Yes if it holds it, or
 * claims it now (a free row has nothing pending). A hardware step
 * (unmap, fence, MES) only uses a row its thread already holds: its time
 * goes to the suspend/resume around it, which must be in the same place
 * (the fallback if not in a row).
 */
static __always_inline bool gp_row_hold(struct gp_row_hdr *h, __u32 tid,
					__u32 op)
{
	if (!h || !tid)
		return false;
	if (h->owner == tid)
		return true;
	if (gp_phase_of(op) >= 0)
		return false;
	return __sync_val_compare_and_swap(&h->owner, 0, (__u64)tid) == 0;
}

static __always_inline bool gp_row_held(struct gp_row_hdr *h, __u32 tid)
{
	return h && tid && h->owner == tid;
}

/*
 * op's pending bit. Only the holder of a row (or the task owning the
 * task storage the header is in) writes it: no atomics needed.
 */
static __always_inline bool gp_row_pending(struct gp_row_hdr *h, __u32 op)
{
	return h->pending & (1ULL << gp_row_slot(op));
}

static __always_inline void gp_row_mark(struct gp_row_hdr *h, __u32 op)
{
	h->pending |= 1ULL << gp_row_slot(op);	/* again after a miss: same */
}

static __always_inline void gp_row_unmark(struct gp_row_hdr *h, __u32 op)
{
	h->pending &= ~(1ULL << gp_row_slot(op));
}

/* After a return is done with its slot: free the row if nothing is left. */
static __always_inline void gp_row_put(struct gp_row_hdr *h, __u32 tid)
{
	if (gp_row_held(h, tid) && !h->pending)
		__sync_val_compare_and_swap(&h->owner, (__u64)tid, 0);
}

/* Thread exit: a row it still holds (a return that never came) goes. */
static __always_inline void gp_row_drop(struct gp_row_hdr *h, __u32 tid)
{
	if (!gp_row_held(h, tid))
		return;
	h->pending = 0;
	__sync_val_compare_and_swap(&h->owner, (__u64)tid, 0);
}

#endif
