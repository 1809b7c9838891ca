/* SPDX-License-Identifier: GPL-2.0 */
/* `gpreempt-ctl bugreport`: one archive for a first report (ctl_bugreport.c). */
#ifndef GP_CTL_BUGREPORT_H
#define GP_CTL_BUGREPORT_H

#include <stdbool.h>
#include <stddef.h>

/* A growable text buffer, bounded per item. */
struct br_buf {
	char *p;
	size_t len, cap;
};

void br_append(struct br_buf *b, const void *p, size_t n);
void br_printf(struct br_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define BR_FILE_MAX	(64u << 10)	/* bytes kept of one sysfs file */
#define BR_TOPO_FILES	4096		/* topology files at most */
#define BR_TOPOLOGY	"/sys/class/kfd/kfd/topology"

/* Every whole command line seen (NUL-separated), for --redact. */
extern struct br_buf br_cmdlines;

/* A new archive member NAME (NULL when there are too many). */
struct br_buf *br_item(const char *name);
size_t br_n_items(void);
/* Append up to max bytes of path; -errno when unreadable. */
int br_file(struct br_buf *b, const char *path, size_t max);
/* Run argv, stdout and stderr into b, under a deadline: exit code or -1. */
int br_run(struct br_buf *b, char *const argv[]);

/* ctl_bugreport_sys.c: the machine's state, one member each. */
void br_versions(const char *self);
void br_topology(const char *dir, const char *rel, int depth);
void br_trace_hists(void);
void br_kernel_log(void);
void br_processes(bool redact);

/* argv[0] = "bugreport"; returns an exit code. */
int ctl_bugreport_main(int argc, char **argv);

#endif
