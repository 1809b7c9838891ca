/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How results are printed: text or NDJSON, time column, unit. Passed to
 * every printer of the tracer, the queue table and the histograms.
 */
#ifndef GP_OUTOPTS_H
#define GP_OUTOPTS_H

#include <stdbool.h>
#include <stdint.h>

/* Unit of the LAT column and histograms (-m / -u; the tool's default,
 * usecs, is set by the loader; 0 is raw nsecs). */
enum gp_unit {
	GP_UNIT_NSEC = 0,	/* what BPF measures */
	GP_UNIT_USEC,
	GP_UNIT_MSEC,
};

struct gp_out_opts {
	bool json;
	bool timestamp;		/* -T: TIME column (wall clock HH:MM:SS) */
	/*
	 * LAT column and histograms (-m/-u). Histogram slots must have been
	 * bucketed in this same unit: the loader sets the BPF rodata
	 * gp_hist_unit_ns = gp_unit_ns(unit) before load (see hist.h).
	 */
	enum gp_unit unit;
	/*
	 * Text: print every debug-trap call. Without it, only
	 * SUSPEND_QUEUES/RESUME_QUEUES are printed per event; the protocol
	 * around them (enable, runtime events, snapshots: dozens per
	 * debugger session) is in the histograms and in JSON.
	 */
	bool all_dbg;
	/*
	 * CLOCK_REALTIME - CLOCK_BOOTTIME in ns, to turn ts_ns into a wall
	 * time for -T. 0: computed on first use. Tests set it (with TZ=UTC)
	 * so the output is reproducible.
	 */
	int64_t boot_to_real_ns;
};

/* ns per unit (1, 1000, 1000000) and its label ("nsecs", "usecs", ..). */
uint64_t gp_unit_ns(enum gp_unit u);
const char *gp_unit_label(enum gp_unit u);
/* Short label for column headers: "ns", "us", "ms". */
const char *gp_unit_short(enum gp_unit u);

#endif
