/* SPDX-License-Identifier: GPL-2.0 */
/* `gpreempt-ctl bugreport`: one archive for a first report (ctl_bugreport.c). */
#ifndef GP_CTL_BUGREPORT_H
#define GP_CTL_BUGREPORT_H

#include <stddef.h>

/* A growable text buffer, bounded per item. */
struct br_buf {
	char *p;
	size_t len, cap;
};

void br_append(struct br_buf *b, const void *p, size_t n);
void br_printf(struct br_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* argv[0] = "bugreport"; returns an exit code. */
int ctl_bugreport_main(int argc, char **argv);

#endif
