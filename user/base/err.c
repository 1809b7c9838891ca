// SPDX-License-Identifier: GPL-2.0
/* The error record (err.h). */
#include <stdio.h>

#include "err.h"

int gp_err_vset(struct gp_err *e, int exit, int err, const char *fmt,
		va_list ap)
{
	if (!e)
		return -1;
	e->exit = exit;
	e->err = err;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return -1;
}

int gp_err_set(struct gp_err *e, int exit, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_err_vset(e, exit, err, fmt, ap);
	va_end(ap);
	return -1;
}
