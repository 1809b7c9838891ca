/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU runtime libraries the launch detector knows (one home): per
 * runtime, the file name a process maps it under and its entry table,
 * one entry per slot of enum gp_entry (bpf/detect.h). The sources of the
 * names are in detect_libs.c and docs/arbiter.md.
 */
#ifndef GP_DETECT_LIBS_H
#define GP_DETECT_LIBS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "detect.h"

enum gp_runtime {
	GP_RT_HIP,		/* libamdhip64 (AMD's HIP runtime) */
	GP_RT_CUDA,		/* libcuda (NVIDIA's CUDA driver API) */
	GP_RT_MAX,
};

struct gp_dl_entry {
	const char *sym;	/* exact .dynsym name, or a mangled prefix;
				 * NULL: this runtime has no such entry */
	bool prefix;		/* sym is the start of a C++-mangled name */
	bool retprobe;		/* a uretprobe (sync calls) */
};

struct gp_dl_runtime {
	const char *name;	/* "HIP", "CUDA": for messages */
	const char *lib;	/* a mapped file's base name starts so */
	const struct gp_dl_entry *entries;	/* [GP_ENT_MAX] */
};
extern const struct gp_dl_runtime gp_dl_runtimes[GP_RT_MAX];

/* The runtime whose library path (len bytes, no NUL needed) names, by its
 * base name; -1 none. */
int gp_dl_runtime_of(const char *path, size_t len);
/* An edge's entry (GP_ENT_COOKIE) as its symbol; NULL when it names no
 * library entry (GP_ENT_WAIT_EVENTS, or out of range). */
const char *gp_dl_entry_name(__u32 cookie);

#endif
