/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the per-GPU policy (gpolicy.c, gpolicy_units.c): the state the
 * public struct does not show and the steps both files take. Not for
 * other files: gpolicy.h is the interface.
 */
#ifndef GP_GPOLICY_INT_H
#define GP_GPOLICY_INT_H

#include "gpolicy.h"

/* Per slot: units attached, and units the machine holds suspended. */
struct shadow {
	uint64_t attached, held;
};

struct gp_gpolicy_priv {
	struct gp_gpolicy pub;
	struct shadow sh[GP_GP_MAX_GPUS];
	bool unit_used[GP_GP_MAX_PROCS];
};

static inline struct gp_gpolicy_priv *priv(const struct gp_gpolicy *g)
{
	return (struct gp_gpolicy_priv *)g;
}

/* Slot of gpu, made if new, or -errno; a new GPU's machine takes every
 * unit not placed yet (it may be on that GPU too). */
int gpg_slot_get(struct gp_gpolicy *g, uint32_t gpu, struct gp_gactions *out);
struct gp_gproc *gpg_proc_of(struct gp_gpolicy *g, int pid);
/* Makes unit u a member of slot s's machine (once). */
int gpg_attach(struct gp_gpolicy *g, int s, int u, struct gp_gactions *out);
/* Emits what changed for one process: RESUME first, then SUSPEND. */
void gpg_sync_proc(struct gp_gpolicy *g, struct gp_gproc *p,
		   struct gp_gactions *out);
/* Replays slot s's scratch actions onto the shadow, in order. */
void gpg_collect(struct gp_gpolicy *g, int s, struct gp_gactions *out);
/* Every machine's deadlines up to now. */
void gpg_tick_all(struct gp_gpolicy *g, uint64_t now, struct gp_gactions *out);
/* Appends one action and counts it. */
void gpg_push(struct gp_gpolicy *g, struct gp_gactions *out,
	      struct gp_gaction *a);

#endif
