// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's socket protocol, formatters: one or more full lines into
 * a caller's buffer, never more than it holds. Pure (no I/O).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "proto_int.h"
#include "util.h"

/* ---- formatting -------------------------------------------------------- */

struct sbuf {
	char *b;
	size_t len, pos;
	bool over;
};

static void sb_printf(struct sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->b + s->pos, s->len - s->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->len - s->pos) {
		s->over = true;
		return;
	}
	s->pos += n;
}

static int sb_done(struct sbuf *s)
{
	return s->over ? -ENOSPC : (int)s->pos;
}

static void sb_init(struct sbuf *s, char *buf, size_t len)
{
	s->b = buf;
	s->len = len;
	s->pos = 0;
	s->over = !len;
	if (len)
		buf[0] = 0;
}

int proto_format_request(char *buf, size_t len, const struct proto_req *q)
{
	const char *name = proto_verb_name(q->verb);
	struct sbuf s;
	uint32_t i;

	sb_init(&s, buf, len);
	if (!name)
		return -EINVAL;
	sb_printf(&s, "%s", name);
	if (q->pid)
		sb_printf(&s, " pid=%d", (int)q->pid);
	for (i = 0; i < q->n_queues && i < PROTO_MAX_QUEUES; i++)
		sb_printf(&s, "%s%u", i ? "," : " queues=", q->queues[i]);
	if (q->grace)
		sb_printf(&s, " grace=%u", q->grace);
	if (q->for_ns)
		sb_printf(&s, " for_ns=%llu", (unsigned long long)q->for_ns);
	if (q->wait_ns)
		sb_printf(&s, " wait_ns=%llu", (unsigned long long)q->wait_ns);
	sb_printf(&s, "\n");
	return sb_done(&s);
}

int proto_format_daemon(char *buf, size_t len, const struct proto_daemon *d)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_printf(&s, "daemon pid=%d sessions=%u detaching=%u "
		  "max_hold_ns=%llu", d->pid, d->sessions, d->detaching,
		  (unsigned long long)d->max_hold_ns);
	if (d->kfd)
		sb_printf(&s, " kfd=%u.%u\n", d->kfd_major, d->kfd_minor);
	else
		sb_printf(&s, " kfd=none\n");
	return sb_done(&s);
}

/* Only [A-Za-z0-9._,-] of v, "-" for none: one token on the line. */
static const char *safe_tok(char *buf, size_t len, const char *v)
{
	size_t i;

	for (i = 0; v[i] && i + 1 < len; i++)
		buf[i] = (v[i] >= 'a' && v[i] <= 'z') ||
			 (v[i] >= 'A' && v[i] <= 'Z') ||
			 (v[i] >= '0' && v[i] <= '9') ||
			 strchr("._,-", v[i]) ? v[i] : '_';
	buf[i] = 0;
	return i ? buf : "-";
}

int proto_format_session(char *buf, size_t len,
			 const struct proto_session *ps)
{
	char b1[PROTO_NAME_LEN], b2[PROTO_NAME_LEN], b3[PROTO_GPU_LEN];
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_printf(&s, "session pid=%d runtime=%s queues=%u held=%u "
		  "held_ns=%llu left_ns=%llu resume_failures=%u", ps->pid,
		  kfd_runtime_state_name(ps->runtime), ps->queues, ps->held,
		  (unsigned long long)ps->held_ns,
		  (unsigned long long)ps->left_ns, ps->resume_failures);
	if (ps->backend[0] && strcmp(ps->backend, "kfd"))
		sb_printf(&s, " backend=%s state=%s gpu=%s",
			  safe_tok(b1, sizeof(b1), ps->backend),
			  safe_tok(b2, sizeof(b2), ps->state[0] ? ps->state :
				   "-"),
			  safe_tok(b3, sizeof(b3), ps->gpu[0] ? ps->gpu : "-"));
	sb_printf(&s, "\n");
	return sb_done(&s);
}

int proto_format_op(char *buf, size_t len, const struct session_op *op)
{
	struct sbuf s;
	uint32_t i;

	sb_init(&s, buf, len);
	sb_printf(&s, "op call=%s pid=%d ret=%d ns=%llu snapshot_ns=%llu "
		  "requested=%u ok=%u invalid=%u error=%u",
		  op->call == KFD_CALL_RESUME ? "resume" : "suspend", op->pid,
		  op->ret, (unsigned long long)op->ns,
		  (unsigned long long)op->snapshot_ns, op->n, op->n_ok,
		  op->n_invalid, op->n_error);
	for (i = 0; op->q && i < op->nq && i < PROTO_MAX_QUEUES; i++)
		sb_printf(&s, "%s%u:%s", i ? "," : " queues=", op->q[i].id,
			  kfd_qstatus_name(op->q[i].status));
	sb_printf(&s, "\n");
	return sb_done(&s);
}

int proto_format_ok(char *buf, size_t len)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_printf(&s, "ok\n");
	return sb_done(&s);
}

int proto_format_err(char *buf, size_t len, const struct gp_err *e)
{
	char msg[sizeof(e->msg)];
	struct sbuf s;
	size_t i, n;

	n = strnlen(e->msg, sizeof(e->msg) - 1);
	for (i = 0; i < n; i++) {
		unsigned char c = e->msg[i];

		msg[i] = c < 0x20 || c > 0x7e ? '?' : c;
	}
	msg[n] = 0;
	sb_init(&s, buf, len);
	sb_printf(&s, "err %d %d %s\n",
		  e->exit > 0 && e->exit < 256 ? e->exit : GP_EXIT_FAILURE,
		  e->err > 0 && e->err < 4096 ? e->err : 0,
		  n ? msg : "error");
	return sb_done(&s);
}
