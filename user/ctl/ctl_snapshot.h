/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpreempt-ctl snapshot`: one report of the machine's GPU queue state.
 * Collection reads plain files under a root directory ("/" normally; a
 * fixture tree in tests): KFD topology, the sysfs process/queue tree,
 * procfs (ns pid, uid, cgroup, comm), the debugfs MQD/HQD dumps
 * (mqd.c), and gpreempt-trace's pinned queue map when it runs.
 */
#ifndef GP_CTL_SNAPSHOT_H
#define GP_CTL_SNAPSHOT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "mqd.h"
#include "queues.h"
#include "topo.h"

struct snap_proc {
	int pid;		/* host pid (the sysfs directory) */
	int ns_pid;		/* innermost NSpid; 0 unknown */
	long uid;		/* real uid; -1 unknown */
	char comm[32];
	char cgroup[256];	/* cgroup v2 path ("0::" line) */
	int queues;
	int tracer;		/* TracerPid: the holder of a suspension */
	char tracer_comm[32];
};

struct snap {
	char root[512];		/* "" for the live system */
	struct gp_topo_node *nodes;
	int nnodes;		/* or -errno */
	int sched_policy;	/* -errno when unknown */
	struct snap_proc *procs;
	int nprocs;		/* or -errno */
	struct gp_queue_row *rows;
	int nrows;
	int live;		/* rows with tracer state; -errno: no map */
	int mqd_err, hqd_err;	/* 0: parsed, else -errno */
	struct gp_mqd_dump m;
	struct gp_hqd_dump h;
};

/*
 * Collect under root (NULL or "/": the live system). use_map: overlay
 * gpreempt-trace's pinned map (only sensible for the live system).
 * Never fails as a whole: each part records its own error.
 */
void snap_collect(struct snap *s, const char *root, bool use_map);
void snap_free(struct snap *s);
/* verbose: raw words of undecoded MQDs, every HQD slot. */
void snap_print_text(FILE *f, const struct snap *s, bool verbose);
void snap_print_json(FILE *f, const struct snap *s, bool verbose);

/* `gpreempt-ctl snapshot` (argv[0] == "snapshot"); an exit code. */
int ctl_snapshot_main(int argc, char **argv, bool json);

#endif
