/* SPDX-License-Identifier: GPL-2.0 */
/* The /proc reader that fills select.h's gp_proc_desc (policy/ matches
 * descriptions and reads nothing). */
#ifndef GP_PROC_DESC_H
#define GP_PROC_DESC_H

#include "select.h"

/*
 * Reads /proc/PID (under root, normally "/proc") into d. 0 or -errno
 * (-ESRCH when the process is gone).
 */
int gp_proc_describe(const char *root, int pid, struct gp_proc_desc *d);

#endif
