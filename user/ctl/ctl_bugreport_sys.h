/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_bugreport_sys.c: the machine's state, one archive member each. */
#ifndef GP_CTL_BUGREPORT_SYS_H
#define GP_CTL_BUGREPORT_SYS_H

#include <stdbool.h>

#define BR_TOPOLOGY	"/sys/class/kfd/kfd/topology"

void br_versions(const char *self);
void br_topology(const char *dir, const char *rel, int depth);
void br_trace_hists(void);
void br_kernel_log(void);
void br_processes(bool redact);

#endif
