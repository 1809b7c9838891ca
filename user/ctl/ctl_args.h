/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-ctl's command line: `gpreempt-ctl [-j] [-v] COMMAND [OPTIONS]`.
 * Parsing is separate from doing so the L0 tests can check it.
 */
#ifndef GP_CTL_ARGS_H
#define GP_CTL_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "proto.h"

/* --queue options: as many as one daemon request carries. */
#define CTL_MAX_QUEUES PROTO_MAX_QUEUES
#define CTL_MAX_GPUS 64

enum ctl_cmd {
	CTL_NONE = 0,
	CTL_LIST,
	CTL_SUSPEND,
	CTL_RESUME,
	CTL_STATUS,
	CTL_CHECK,
	CTL_DAEMON,
	CTL_SNAPSHOT,	/* own argv, like daemon (ctl_snapshot.c) */
	CTL_NOTIFY,		/* ctl_policy.c: own parser, like daemon */
	CTL_POLICY,
	CTL_BUGREPORT,		/* ctl_bugreport.c: own parser */
};

struct ctl_args {
	enum ctl_cmd cmd;
	bool json;
	bool verbose;
	bool help;		/* --help was printed: exit 0 */
	pid_t pid;		/* 0: none given */
	uint32_t queues[CTL_MAX_QUEUES];
	uint32_t n_queues;
	/* --gpu: the queues on these gpu_ids (ctl_gpus.c fills queues) */
	uint32_t gpus[CTL_MAX_GPUS];
	int n_gpus;
	const char *kfd_proc;	/* --kfd-proc: NULL is KFD_SYSFS_PROC */
	const char *kfd_topology;	/* --kfd-topology: NULL is the real */
	uint32_t grace_period;
	bool grace_set;
	uint64_t for_ns;	/* 0: hold until interrupted */
	uint64_t wait_runtime_ns; /* wait this long for the target's
				   * runtime to enable debug support */
	const char *socket;	/* NULL: PROTO_DEFAULT_SOCKET */
	bool no_daemon;		/* never talk to the daemon */
	uint64_t cuda_lock_timeout_ns;	/* 0: the backend's default */
	const char *cuda_journal;	/* NULL: the backend's default */
	/* `daemon`, `notify`, `policy`: their own argv (argv[0] = "daemon"), parsed by
	 * the daemon's code. */
	int sub_argc;
	char **sub_argv;
};

/*
 * Parse argv into a. Returns 0 on success (a->help set if --help was
 * printed), or GP_EXIT_USAGE after printing the error to err. Never
 * exits. help/usage text goes to out.
 */
int ctl_parse(int argc, char **argv, struct ctl_args *a, FILE *out,
	      FILE *err);
const char *ctl_cmd_name(enum ctl_cmd cmd);

#endif
