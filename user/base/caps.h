/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capability checks, one way: capget(2) of this process's effective set,
 * named by <linux/capability.h>'s CAP_* constants (never bit numbers).
 */
#ifndef GP_CAPS_H
#define GP_CAPS_H

#include <stdbool.h>
#include <linux/capability.h>

/* Is cap (CAP_SYS_PTRACE, CAP_BPF, ...) in the effective set? */
bool caps_have(int cap);

#endif
