// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's socket protocol, replies: the strict parser a client
 * uses. Pure (no I/O). Grammar in proto.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "proto_int.h"
#include "util.h"

/* ---- replies ----------------------------------------------------------- */

void proto_reply_init(struct proto_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->op.q = r->q;
}

static int reply_bad(struct gp_err *e, const char *what, const char *t,
		     size_t n)
{
	gp_err_set(e, GP_EXIT_DAEMON, EPROTO, "malformed reply from the daemon: "
	    "%s '%.*s' (is it the same gpreempt version?)", what,
	    (int)(n > 40 ? 40 : n), t);
	return -1;
}

static int parse_runtime(const char *v, size_t n, uint32_t *out)
{
	uint32_t i;

	for (i = DEBUG_RUNTIME_STATE_DISABLED;
	     i <= DEBUG_RUNTIME_STATE_ENABLED_ERROR; i++) {
		if (proto_tok_is(v, n, kfd_runtime_state_name(i))) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static int parse_qres(const char *v, size_t n, struct session_op *op)
{
	const char *end = v + n, *c, *colon;
	uint64_t id;
	int st;

	for (;;) {
		c = memchr(v, ',', end - v);
		if (!c)
			c = end;
		colon = memchr(v, ':', c - v);
		if (!colon || op->nq == PROTO_MAX_QUEUES ||
		    parse_dec(v, colon - v, PROTO_QUEUE_ID_LIMIT - 1, &id))
			return -1;
		for (st = KFD_Q_OK; st <= KFD_Q_NOT_DONE; st++)
			if (proto_tok_is(colon + 1, c - colon - 1,
				   kfd_qstatus_name(st)))
				break;
		if (st > KFD_Q_NOT_DONE)
			return -1;
		op->q[op->nq].id = (uint32_t)id;
		op->q[op->nq].status = st;
		op->nq++;
		if (c == end)
			return 0;
		v = c + 1;
	}
}

/* "M.m" or "none" into a proto_daemon. */
static int parse_kfd_version(const char *v, size_t vl, struct proto_daemon *d)
{
	const char *dot;
	uint64_t n;

	if (proto_tok_is(v, vl, "none"))
		return 0;
	dot = memchr(v, '.', vl);
	if (!dot || parse_dec(v, dot - v, UINT32_MAX, &n))
		return -1;
	d->kfd_major = n;
	if (parse_dec(dot + 1, v + vl - dot - 1, UINT32_MAX, &n))
		return -1;
	d->kfd_minor = n;
	d->kfd = true;
	return 0;
}

/*
 * The keys of the INFO lines, one table per line kind: each value's type
 * and where it goes in the line's struct (proto_daemon, proto_session or
 * session_op). One parser walks them all.
 */
enum field_type {
	F_PID,		/* 1..INT32_MAX into a pid_t */
	F_U32,
	F_U64,
	F_INT,		/* a count or -errno */
	F_RUNTIME,	/* kfd_runtime_state_name() */
	F_CALL,		/* "suspend" or "resume" */
	F_KFD,		/* "M.m" or "none" */
	F_QRES,		/* ID:STATUS,... (may be left out) */
	F_NAME,		/* a token of < PROTO_NAME_LEN (may be left out) */
	F_GPU,		/* a token of < PROTO_GPU_LEN (may be left out) */
};

/* The INFO lines a reply may carry. */
enum info_kind { I_DAEMON, I_SESSION, I_OP };

struct field {
	enum info_kind kind;
	const char *key;
	enum field_type type;
	size_t off;		/* in proto_daemon, proto_session, session_op */
};

#define FD(i, k, t, s, m) { i, k, t, offsetof(struct s, m) }

/* One table for every kind, in line order: the parser walks its kind's. */
static const struct field fields[] = {
	FD(I_DAEMON, "pid", F_PID, proto_daemon, pid),
	FD(I_DAEMON, "sessions", F_U32, proto_daemon, sessions),
	FD(I_DAEMON, "detaching", F_U32, proto_daemon, detaching),
	FD(I_DAEMON, "max_hold_ns", F_U64, proto_daemon, max_hold_ns),
	FD(I_DAEMON, "kfd", F_KFD, proto_daemon, kfd),
	FD(I_SESSION, "pid", F_PID, proto_session, pid),
	FD(I_SESSION, "runtime", F_RUNTIME, proto_session, runtime),
	FD(I_SESSION, "queues", F_U32, proto_session, queues),
	FD(I_SESSION, "held", F_U32, proto_session, held),
	FD(I_SESSION, "held_ns", F_U64, proto_session, held_ns),
	FD(I_SESSION, "left_ns", F_U64, proto_session, left_ns),
	FD(I_SESSION, "resume_failures", F_U32, proto_session,
	   resume_failures),
	FD(I_SESSION, "backend", F_NAME, proto_session, backend),
	FD(I_SESSION, "state", F_NAME, proto_session, state),
	FD(I_SESSION, "gpu", F_GPU, proto_session, gpu),
	FD(I_OP, "call", F_CALL, session_op, call),
	FD(I_OP, "pid", F_PID, session_op, pid),
	FD(I_OP, "ret", F_INT, session_op, ret),
	FD(I_OP, "ns", F_U64, session_op, ns),
	FD(I_OP, "snapshot_ns", F_U64, session_op, snapshot_ns),
	FD(I_OP, "requested", F_U32, session_op, n),
	FD(I_OP, "ok", F_U32, session_op, n_ok),
	FD(I_OP, "invalid", F_U32, session_op, n_invalid),
	FD(I_OP, "error", F_U32, session_op, n_error),
	FD(I_OP, "queues", F_QRES, session_op, q),
};

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(N_FIELDS <= 32, "parse_info() keeps a 32-bit seen mask");

static int field_value(const struct field *f, const char *v, size_t vl,
		       void *base)
{
	char *p = (char *)base + f->off;
	uint64_t n;

	switch (f->type) {
	case F_PID:
		if (parse_dec(v, vl, INT32_MAX, &n) || !n)
			return -1;
		*(pid_t *)p = (pid_t)n;
		return 0;
	case F_U32:
		if (parse_dec(v, vl, UINT32_MAX, &n))
			return -1;
		*(uint32_t *)p = (uint32_t)n;
		return 0;
	case F_U64:
		return parse_dec(v, vl, UINT64_MAX, (uint64_t *)p) ? -1 : 0;
	case F_INT:
		return proto_dec_int(v, vl, (int *)p);
	case F_RUNTIME:
		return parse_runtime(v, vl, (uint32_t *)p);
	case F_CALL:
		if (proto_tok_is(v, vl, "suspend"))
			*(enum kfd_call *)p = KFD_CALL_SUSPEND;
		else if (proto_tok_is(v, vl, "resume"))
			*(enum kfd_call *)p = KFD_CALL_RESUME;
		else
			return -1;
		return 0;
	case F_KFD:
		return parse_kfd_version(v, vl, base);
	case F_QRES:
		return parse_qres(v, vl, base);
	case F_NAME:
	case F_GPU:
		if (!vl || vl >= (f->type == F_NAME ? PROTO_NAME_LEN :
				  PROTO_GPU_LEN))
			return -1;
		memcpy(p, v, vl);
		p[vl] = 0;
		if (vl == 1 && *v == '-')
			p[0] = 0;
		return 0;
	}
	return -1;
}

static int parse_info(enum info_kind kind, void *base, const char *p,
		      const char *end, struct gp_err *e)
{
	const char *f, *k, *v;
	size_t fl, kl, vl, i;
	uint32_t seen = 0;
	int rc;

	while ((rc = proto_next_field(&p, end, &f, &fl)) != 0) {
		if (rc < 0)
			return reply_bad(e, "empty field in", p, end - p);
		if (proto_split_kv(f, fl, &k, &kl, &v, &vl))
			return reply_bad(e, "field", f, fl);
		for (i = 0; i < N_FIELDS; i++)
			if (fields[i].kind == kind &&
			    proto_tok_is(k, kl, fields[i].key))
				break;
		if (i == N_FIELDS || seen & 1u << i)
			return reply_bad(e, "unknown or repeated key", k, kl);
		seen |= 1u << i;
		if (field_value(&fields[i], v, vl, base))
			return reply_bad(e, "value", f, fl);
	}
	/* every key is needed but the queue list (empty when none) */
	for (i = 0; i < N_FIELDS; i++)
		if (fields[i].kind == kind && !(seen & 1u << i) &&
		    fields[i].type != F_QRES && fields[i].type != F_NAME &&
		    fields[i].type != F_GPU)
			return reply_bad(e, "missing key", fields[i].key,
					 strlen(fields[i].key));
	return 0;
}

static int parse_op(const char *p, const char *end, struct proto_reply *r,
		    struct gp_err *e)
{
	struct session_op *op = &r->op;

	op->q = r->q;
	op->nq = 0;
	if (parse_info(I_OP, op, p, end, e))
		return -1;
	if (op->nq != (op->n < PROTO_MAX_QUEUES ? op->n : PROTO_MAX_QUEUES))
		return reply_bad(e, "queue list does not match requested=",
				 "", 0);
	return 0;
}

int proto_parse_reply_line(const char *line, size_t len,
			   struct proto_reply *r, struct gp_err *e)
{
	const char *end, *p, *sp;
	uint64_t ex, er;
	size_t n;

	if (len && line[len - 1] == '\n')
		len--;
	if (len + 1 > PROTO_MAX_LINE)
		return reply_bad(e, "line too long:", line, 16);
	if (proto_bad_byte(line, len) < len)
		return reply_bad(e, "non-printable byte in", line, len);
	end = line + len;
	if (proto_tok_is(line, len, "ok")) {
		r->exit = GP_EXIT_OK;
		r->err = 0;
		r->msg[0] = 0;
		return 1;
	}
	if (len > 4 && !memcmp(line, "err ", 4)) {
		p = line + 4;
		sp = memchr(p, ' ', end - p);
		if (!sp || parse_dec(p, sp - p, 255, &ex) || !ex)
			return reply_bad(e, "error line", line, len);
		p = sp + 1;
		sp = memchr(p, ' ', end - p);
		if (!sp || parse_dec(p, sp - p, 4095, &er))
			return reply_bad(e, "error line", line, len);
		p = sp + 1;
		n = end - p;
		if (!n || n >= sizeof(r->msg))
			return reply_bad(e, "error message in", line, len);
		r->exit = (int)ex;
		r->err = (int)er;
		memcpy(r->msg, p, n);
		r->msg[n] = 0;
		return 1;
	}
	p = memchr(line, ' ', len);
	if (!p)
		return reply_bad(e, "line", line, len);
	if (proto_tok_is(line, p - line, "daemon") && !r->has_daemon) {
		r->has_daemon = true;
		return parse_info(I_DAEMON, &r->daemon, p, end, e);
	}
	if (proto_tok_is(line, p - line, "op") && !r->has_op) {
		r->has_op = true;
		return parse_op(p, end, r, e);
	}
	if (proto_tok_is(line, p - line, "session") &&
	    r->n_sessions < PROTO_MAX_SESSIONS) {
		if (parse_info(I_SESSION, &r->sessions[r->n_sessions], p,
			       end, e))
			return -1;
		r->n_sessions++;
		return 0;
	}
	return reply_bad(e, "unexpected line", line, len);
}

int proto_parse_reply(const char *buf, size_t len, struct proto_reply *r,
		      struct gp_err *e)
{
	const char *p = buf, *end = buf + len, *nl;
	int rc;

	proto_reply_init(r);
	if (len > PROTO_MAX_REPLY)
		return reply_bad(e, "reply too long:", buf, 16);
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return reply_bad(e, "unterminated line", p, end - p);
		rc = proto_parse_reply_line(p, nl + 1 - p, r, e);
		if (rc < 0)
			return -1;
		p = nl + 1;
		if (rc == 1) {
			if (p != end)
				return reply_bad(e, "bytes after the final "
						 "line:", p, end - p);
			return 0;
		}
	}
	return reply_bad(e, "reply without a final ok/err line", "", 0);
}
