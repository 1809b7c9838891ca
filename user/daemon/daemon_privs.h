/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the daemon's privileges leave out, said once at start: one log
 * line per feature they disable, with why and the remedy (the unit's
 * drop-ins, docs/service.md). Probing (capget, sched_getscheduler,
 * access) is apart from the wording so the wording is tested on facts.
 */
#ifndef GP_DAEMON_PRIVS_H
#define GP_DAEMON_PRIVS_H

#include <stdbool.h>

struct privs {
	bool ptrace;	/* CAP_SYS_PTRACE: PTRACE_SEIZE of the targets */
	bool bpf;	/* CAP_BPF */
	bool perfmon;	/* CAP_PERFMON */
	bool admin;	/* CAP_SYS_ADMIN: stands for CAP_BPF + CAP_PERFMON */
	bool realtime;	/* running under SCHED_FIFO or SCHED_RR */
	bool debugfs;	/* /sys/kernel/debug/kfd readable */
};

#define PRIVS_MAX_LINES 4
#define PRIVS_LINE 200

/* This process's privileges and scheduling, now. */
void privs_probe(struct privs *p);
/* The features p disables, one line each into out; returns how many. */
int privs_disabled(const struct privs *p,
		   char out[PRIVS_MAX_LINES][PRIVS_LINE]);

#endif
