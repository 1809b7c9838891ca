// SPDX-License-Identifier: GPL-2.0
/*
 * Replies queued on a connection (daemon_int.h), flushed by
 * daemon_clients.c. Below the request paths and the modules, which all
 * answer through it; it calls nothing of theirs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_int.h"

/* A client that does not read its replies is dropped past this. */
#define CLIENT_MAX_OUT (1024 * 1024)

static int out_append(struct client *c, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (c->out_len + n > CLIENT_MAX_OUT)
		return -1;
	if (c->out_len + n > c->out_cap) {
		cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return -1;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
	return 0;
}

/* Queue one formatted line (n from a proto_format_*: <0 never here). */
void reply_line(struct client *c, const char *buf, int n)
{
	if (n < 0 || out_append(c, buf, n))
		c->closing = true;
}

void reply_linef(struct client *c, const char *fmt, ...)
{
	char buf[PROTO_MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	reply_line(c, buf, n < (int)sizeof(buf) ? n : -1);
}

void reply_err(struct client *c, const struct gp_err *e)
{
	char buf[512];

	dm_error(e->exit);
	reply_line(c, buf, proto_format_err(buf, sizeof(buf), e));
}

void reply_ok(struct client *c)
{
	char buf[8];

	reply_line(c, buf, proto_format_ok(buf, sizeof(buf)));
}
