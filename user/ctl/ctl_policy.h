/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpreempt-ctl policy`'s output: each line of the daemon's reply, as
 * text or as one JSON object (ctl_policy_out.c).
 */
#ifndef GP_CTL_POLICY_H
#define GP_CTL_POLICY_H

#include <stdbool.h>
#include <stdio.h>

struct pol_print {
	bool json;
	FILE *f;
};

/* One reply line; ctx is a struct pol_print. */
void pol_line(void *ctx, const char *l);

#endif
