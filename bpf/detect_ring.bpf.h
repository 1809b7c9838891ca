/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record both launch detectors write (struct gp_edge, detect.h), in
 * one place: detect_edge.bpf.h (the uprobe detector) and detect_arm.bpf.h
 * (armed while idle) each pass their own ring and count its losses and
 * deliveries in their own counters.
 */
#ifndef GP_DETECT_RING_BPF_H
#define GP_DETECT_RING_BPF_H

#include "detect.h"

/* One gp_edge into ring; -1 when the ring is full (the record is lost). */
static __always_inline int gp_edge_put(void *ring, __u32 pid, __u32 kind,
				       __u32 entry, __u64 now, __u64 launches)
{
	struct gp_edge *e;

	e = bpf_ringbuf_reserve(ring, sizeof(*e), 0);
	if (!e)
		return -1;
	e->ns = now;
	e->pid = pid;
	e->kind = kind;
	e->entry = entry;
	e->gpu_id = 0;
	e->launches = launches;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

#endif
