/* SPDX-License-Identifier: GPL-2.0 */
/* The members of a bugreport archive (ctl_bugreport_buf.c). */
#ifndef GP_CTL_BUGREPORT_BUF_H
#define GP_CTL_BUGREPORT_BUF_H

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

/* Every whole command line seen (NUL-separated), for --redact. */
extern struct br_buf br_cmdlines;

/* The member table: allocated once (0, or -1 out of memory), freed with
 * every buffer and br_cmdlines. */
int br_items_alloc(void);
void br_items_free(void);
/* A new archive member NAME (NULL when there are too many). */
struct br_buf *br_item(const char *name);
size_t br_n_items(void);
const char *br_item_name(size_t i);
const struct br_buf *br_item_buf(size_t i);
/* Star out every whole command line of br_cmdlines in every member. */
void br_redact(void);
/* Append up to max bytes of path; -errno when unreadable. */
int br_file(struct br_buf *b, const char *path, size_t max);
/* Run argv, stdout and stderr into b, under a deadline: exit code or -1. */
int br_run(struct br_buf *b, char *const argv[]);

#endif
