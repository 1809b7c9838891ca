/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The launch detector (--detect launch): a GPU runtime library's
 * (libamdhip64's or libcuda's: detect_libs.h) launch entry points and
 * synchronisation returns, probed per online process, seen as idle->busy
 * and busy->idle edges (bpf/detect.bpf.c). Two halves:
 *   gp_dl_scan()   reads /proc/PID/maps and the mapped library's ELF
 *                  symbols: it reads another process's files, so the
 *                  daemon runs it off its loop, with a deadline;
 *   gp_dl_attach() only BPF calls: seeds the pid and attaches one uprobe
 *                  per entry point found, scoped to that pid (the
 *                  breakpoint goes into that process only).
 * The facts (symbols, mangled names, offsets) are in docs/arbiter.md.
 */
#ifndef GP_DETECT_LAUNCH_H
#define GP_DETECT_LAUNCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "detect.h"
#include "detect_libs.h"

#define GP_DL_MAX_PROCS 256
#define GP_DL_REASON 320

/* One process's mapped GPU runtime library and where its entry points
 * are. */
struct gp_dl_lib {
	pid_t pid;
	int rt;			/* enum gp_runtime: whose table off[] is in */
	char path[PATH_MAX];	/* as /proc/PID/maps names it */
	char open_path[PATH_MAX + 32];	/* reachable from here */
	dev_t dev;
	ino_t ino;
	unsigned long long off[GP_ENT_MAX];	/* file offsets, 0: absent */
	int nlaunch;		/* launch entries found */
	char reason[GP_DL_REASON];	/* why not (fully) watched */
};

/*
 * Scan pid under proc_root ("/proc", or a fixture). 0 when at least one
 * launch entry point was found (lib->reason then lists missing ones, if
 * any); -ENOENT no GPU runtime library mapped (libamdhip64 or libcuda:
 * the first found is probed, HIP first when both are, and lib->reason
 * says so); -ENOEXEC stripped or no launch
 * symbol; -EACCES/-ESTALE the file cannot be read or is not the mapped
 * one; lib->reason says which, for the "unwatched, because" report.
 */
int gp_dl_scan(const char *proc_root, pid_t pid, struct gp_dl_lib *lib);
/* The .dynsym offsets of runtime rt's entries in file. 0 or -errno with
 * reason. */
int gp_dl_resolve(const char *file, int rt, unsigned long long off[GP_ENT_MAX],
		  int *nlaunch, char *reason, size_t len);
/* The same from an open regular file, read with pread within bounds
 * (detect_elf.c); name (already escaped) is for the reason only. */
int gp_dl_resolve_fd(int fd, const char *name, int rt,
		     unsigned long long off[GP_ENT_MAX], int *nlaunch,
		     char *reason, size_t len);

/* One line of /proc/PID/maps. */
struct gp_dl_map {
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	int rt;			/* the runtime its file's name says; -1 none */
	int also;		/* gp_dl_maps_find: another runtime's library
				 * also mapped, not probed; -1 none */
	bool deleted;		/* " (deleted)" at its end */
	bool raw_cut;		/* raw too long to hold */
	char raw[PATH_MAX];	/* the path as the line has it */
	char path[PATH_MAX];	/* the same, escaped for messages */
};
/* Parse one whole line: s[len - 1] is its only NUL. false: not a line. */
bool gp_dl_parse_map(const char *s, size_t len, struct gp_dl_map *m);
/* The first GPU runtime library's mapping with an inode in f (HIP's
 * first, when both are mapped), read whole line by whole line whatever
 * their length. 1 found, 0 none, -errno. */
int gp_dl_maps_find(FILE *f, struct gp_dl_map *m);
/* Address of entry e in pid's memory (tests peek at the breakpoint). */
unsigned long long gp_dl_entry_addr(const char *proc_root,
				    const struct gp_dl_lib *lib, int e);

struct detect_bpf;
struct ring_buffer;
struct bpf_link;
typedef void (*gp_dl_edge_fn)(void *ctx, const struct gp_edge *e);

struct gp_dl_proc {
	pid_t pid;
	int nlinks;
	struct bpf_link *links[GP_ENT_MAX];
};

struct gp_dl {
	struct detect_bpf *skel;
	struct ring_buffer *rb;
	gp_dl_edge_fn edge;
	void *ctx;
	int nprocs;
	struct gp_dl_proc procs[GP_DL_MAX_PROCS];
	/* KFD's WAIT_EVENTS hook: how it is attached ("absent": not) and
	 * why the better flavours were refused */
	const char *wait_how;
	char wait_why[256];
	struct bpf_link *wait_links[2];
};

/* Load the BPF side, with the best WAIT_EVENTS hook this kernel takes
 * (d->wait_how, d->wait_why). 0 or -errno. */
int gp_dl_open(struct gp_dl *d, __u64 grace_ns, gp_dl_edge_fn edge,
	       void *ctx);
void gp_dl_close(struct gp_dl *d);
/* Attach to a scanned process. Number of probes attached or -errno. */
int gp_dl_attach(struct gp_dl *d, const struct gp_dl_lib *lib, char *reason,
		 size_t len);
void gp_dl_detach(struct gp_dl *d, pid_t pid);
/* Watch pid with no uprobe, its state busy as after a launch (tests: a
 * real KFD WAIT_EVENTS return then ends it). 0 or -errno. */
int gp_dl_seed_busy(struct gp_dl *d, pid_t pid);
/* Mark pid idle from outside (WAIT_EVENTS returned, queues proved idle). */
int gp_dl_set_idle(struct gp_dl *d, pid_t pid);
/* The ring's fd for the loop, and its drain (calls edge per record). */
int gp_dl_fd(const struct gp_dl *d);
int gp_dl_drain(struct gp_dl *d);

/* pid's BPF state (last launch, busy). 0 or -errno. */
int gp_dl_state(const struct gp_dl *d, pid_t pid, struct gp_launch_state *st);

struct gp_dl_counts {
	__u64 hits, stray, edges, lost;
	__u64 wait_returns;	/* WAIT_EVENTS returns in online processes */
};
void gp_dl_counts(const struct gp_dl *d, struct gp_dl_counts *c);

#endif
