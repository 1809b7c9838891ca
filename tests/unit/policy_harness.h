/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the policy's L0 tests share: the state machine under test, the
 * actions it asked for, and those actions as text ("S12:busy R12:idle").
 */
#ifndef GP_POLICY_HARNESS_H
#define GP_POLICY_HARNESS_H

#include <stdio.h>

#include "policy.h"
#include "util.h"

#define MS NSEC_PER_MSEC
#define T0 (1000 * NSEC_PER_SEC)	/* any origin: the policy is relative */

static struct gp_policy P;
static struct gp_pactions A;
static char buf[1024];

/* Actions since the last call, "S12:busy R12:idle", then cleared. */
static inline const char *acts(void)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < A.n && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%c%d:%s",
				i ? " " : "", A.a[i].op == GP_POP_SUSPEND ?
				'S' : 'R', A.a[i].pid,
				gp_pcause_name(A.a[i].cause));
	A.n = 0;
	return buf;
}

#endif
