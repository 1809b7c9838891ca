/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one error record of gpreempt: what the user is told when something
 * fails. Every layer (KFD wrappers, session, protocol, daemon, CLI) fills
 * one and the outermost prints it; the daemon sends msg to its client.
 */
#ifndef GP_ERR_H
#define GP_ERR_H

#include <stdarg.h>

/*
 * exit: the exit code (enum gp_exit) the tool ends with; err: the errno
 * (0 if none); msg: one line saying what happened and what to do.
 */
struct gp_err {
	int exit;
	int err;
	char msg[384];
};

/* Fill e (NULL is ignored). Returns -1: `return gp_err_set(...);` */
int gp_err_set(struct gp_err *e, int exit, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int gp_err_vset(struct gp_err *e, int exit, int err, const char *fmt,
		va_list ap) __attribute__((format(printf, 4, 0)));

#endif
