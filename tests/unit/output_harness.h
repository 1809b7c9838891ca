/* SPDX-License-Identifier: GPL-2.0 */
/* Sample events and captured output for the tests of output.c. */
#ifndef GP_OUTPUT_HARNESS_H
#define GP_OUTPUT_HARNESS_H

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "tap.h"
#include "output.h"

/* 2023-11-14 22:13:20 UTC at boot, so ts 3723 s is 23:15:23. */
#define BOOT_TO_REAL (1700000000LL * 1000000000LL)

static inline struct gp_event ev(__u32 op)
{
	struct gp_event e = {
		.ts_ns = 3723ULL * 1000000000ULL + 250000000ULL,
		.duration_ns = 41523,
		.cgroup_id = 5012,
		.pid = 4242,
		.tid = 4243,
		.ns_pid = 7,
		.op = op,
		.gpu_id = 51157,
		.queue_id = 2,
	};

	strcpy(e.comm, "python3");
	return e;
}

static inline struct gp_event create_ev(void)
{
	struct gp_event e = ev(GP_OP_CREATE);

	e.queue.type = 2;		/* KFD_IOC_QUEUE_TYPE_COMPUTE_AQL */
	e.queue.priority = 7;
	e.queue.percentage = 100;
	e.queue.ring_size = 4096;
	e.queue.doorbell_offset = 0x1800;
	return e;
}

static inline const char *text(const struct gp_event *e, enum gp_unit u,
			       bool ts)
{
	struct gp_out_opts o = {
		.unit = u, .timestamp = ts, .boot_to_real_ns = BOOT_TO_REAL,
	};
	FILE *f = capture_open();

	gp_out_event_text(f, e, &o);
	return capture_done(f);
}

static inline const char *json(const struct gp_event *e)
{
	FILE *f = capture_open();

	gp_out_event_json(f, e);
	return capture_done(f);
}

#endif
