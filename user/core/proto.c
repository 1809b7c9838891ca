// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's socket protocol: strict parsers and formatters (pure),
 * and the client calls gpreempt-ctl makes. Grammar in proto.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "exitcodes.h"
#include "proto.h"
#include "util.h"

static const char *const verb_names[] = {
	[PROTO_SUSPEND] = "suspend",
	[PROTO_RESUME] = "resume",
	[PROTO_ATTACH] = "attach",
	[PROTO_DETACH] = "detach",
	[PROTO_STATUS] = "status",
};

#define N_VERBS (sizeof(verb_names) / sizeof(verb_names[0]))

const char *proto_verb_name(enum proto_verb v)
{
	if ((unsigned int)v >= N_VERBS)
		return NULL;
	return verb_names[v];
}

/* ---- small pure helpers ------------------------------------------------ */

static bool tok_is(const char *t, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(t, s, n);
}

/*
 * Plain decimal: digits only, no leading zero (but "0"), <= max. The
 * strictness keeps one spelling per value, so a request means one thing.
 */
static int dec_u64(const char *t, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20 || (n > 1 && t[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (t[i] - '0')) / 10)
			return -1;
		v = v * 10 + (t[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* An optional '-' then dec_u64; for op's ret (a count or -errno). */
static int dec_int(const char *t, size_t n, int *out)
{
	uint64_t v;

	if (n && t[0] == '-') {
		if (dec_u64(t + 1, n - 1, (uint64_t)INT32_MAX + 1, &v) || !v)
			return -1;
		*out = (int)(-(int64_t)v);
		return 0;
	}
	if (dec_u64(t, n, INT32_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* First byte outside printable ASCII, or len. */
static size_t bad_byte(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return i;
	return len;
}

/*
 * The next space-separated field of [*p, end): single spaces, no empty
 * field. 1 with the field, 0 at the end, -1 on an empty field.
 */
static int next_field(const char **p, const char *end, const char **f,
		      size_t *n)
{
	const char *s = *p, *sp;

	if (s == end)
		return 0;
	if (*s != ' ')
		return -1;	/* only reachable for the first call */
	s++;
	if (s == end || *s == ' ')
		return -1;
	sp = memchr(s, ' ', end - s);
	if (!sp)
		sp = end;
	*f = s;
	*n = sp - s;
	*p = sp;
	return 1;
}

/* Split "key=value" at the first '='. -1 if none or an empty side. */
static int split_kv(const char *f, size_t n, const char **k, size_t *kl,
		    const char **v, size_t *vl)
{
	const char *eq = memchr(f, '=', n);

	if (!eq || eq == f || eq == f + n - 1)
		return -1;
	*k = f;
	*kl = eq - f;
	*v = eq + 1;
	*vl = f + n - *v;
	return 0;
}

static void bad(struct gp_err *e, int exit, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void bad(struct gp_err *e, int exit, int err, const char *fmt, ...)
{
	va_list ap;

	e->exit = exit;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* ---- requests ------------------------------------------------------------ */

enum req_key {
	K_PID,
	K_QUEUES,
	K_GRACE,
	K_FOR_NS,
	N_KEYS,
};

static const char *const key_names[N_KEYS] = {
	[K_PID] = "pid",
	[K_QUEUES] = "queues",
	[K_GRACE] = "grace",
	[K_FOR_NS] = "for_ns",
};

/* Keys each verb accepts, and the ones it needs. */
static const unsigned int verb_keys[] = {
	[PROTO_SUSPEND] = 1u << K_PID | 1u << K_QUEUES | 1u << K_GRACE |
			  1u << K_FOR_NS,
	[PROTO_RESUME] = 1u << K_PID | 1u << K_QUEUES,
	[PROTO_ATTACH] = 1u << K_PID,
	[PROTO_DETACH] = 1u << K_PID,
	[PROTO_STATUS] = 1u << K_PID,
};

static int parse_queues(const char *v, size_t n, struct proto_req *q,
			struct gp_err *e)
{
	const char *end = v + n, *c;
	uint64_t id;
	uint32_t i;

	q->n_queues = 0;
	for (;;) {
		c = memchr(v, ',', end - v);
		if (!c)
			c = end;
		if (dec_u64(v, c - v, PROTO_QUEUE_ID_LIMIT - 1, &id)) {
			bad(e, GP_EXIT_USAGE, EINVAL, "bad queue id '%.*s' in "
			    "queues= (want decimal ids below %u, comma "
			    "separated)", (int)(c - v > 24 ? 24 : c - v), v,
			    PROTO_QUEUE_ID_LIMIT);
			return -1;
		}
		if (q->n_queues == PROTO_MAX_QUEUES) {
			bad(e, GP_EXIT_USAGE, E2BIG, "more than %d queue ids",
			    PROTO_MAX_QUEUES);
			return -1;
		}
		for (i = 0; i < q->n_queues; i++) {
			if (q->queues[i] == id) {
				bad(e, GP_EXIT_USAGE, EINVAL, "queue id %u "
				    "given twice", (uint32_t)id);
				return -1;
			}
		}
		q->queues[q->n_queues++] = (uint32_t)id;
		if (c == end)
			return 0;
		v = c + 1;
	}
}

int proto_parse_request(const char *line, size_t len, struct proto_req *q,
			struct gp_err *e)
{
	const char *p, *end, *f, *k, *v;
	size_t fl, kl, vl, i;
	unsigned int seen = 0, key;
	uint64_t n;
	int r;

	memset(q, 0, sizeof(*q));
	if (len && line[len - 1] == '\n')
		len--;
	if (len + 1 > PROTO_MAX_REQ) {
		bad(e, GP_EXIT_USAGE, E2BIG, "request longer than %d bytes",
		    PROTO_MAX_REQ - 1);
		return -1;
	}
	i = bad_byte(line, len);
	if (i < len) {
		bad(e, GP_EXIT_USAGE, EINVAL, "byte 0x%02x at offset %zu: a "
		    "request is one line of printable ASCII",
		    (unsigned char)line[i], i);
		return -1;
	}
	if (!len) {
		bad(e, GP_EXIT_USAGE, EINVAL, "empty request (want suspend, "
		    "resume, attach, detach or status)");
		return -1;
	}
	end = line + len;
	p = memchr(line, ' ', len);
	if (!p)
		p = end;
	for (i = 1; i < N_VERBS; i++)
		if (tok_is(line, p - line, verb_names[i]))
			q->verb = i;
	if (!q->verb) {
		bad(e, GP_EXIT_USAGE, EINVAL, "unknown request '%.*s' (want "
		    "suspend, resume, attach, detach or status)",
		    (int)(p - line > 32 ? 32 : p - line), line);
		return -1;
	}
	while ((r = next_field(&p, end, &f, &fl)) != 0) {
		if (r < 0) {
			bad(e, GP_EXIT_USAGE, EINVAL, "empty field at offset "
			    "%zu (fields are separated by single spaces)",
			    (size_t)(p - line));
			return -1;
		}
		if (split_kv(f, fl, &k, &kl, &v, &vl)) {
			bad(e, GP_EXIT_USAGE, EINVAL, "field '%.*s' is not "
			    "KEY=VALUE", (int)(fl > 32 ? 32 : fl), f);
			return -1;
		}
		for (key = 0; key < N_KEYS; key++)
			if (tok_is(k, kl, key_names[key]))
				break;
		if (key == N_KEYS || !(verb_keys[q->verb] & 1u << key)) {
			bad(e, GP_EXIT_USAGE, EINVAL, "'%s' takes no key "
			    "'%.*s'", verb_names[q->verb],
			    (int)(kl > 32 ? 32 : kl), k);
			return -1;
		}
		if (seen & 1u << key) {
			bad(e, GP_EXIT_USAGE, EINVAL, "key '%s' given twice",
			    key_names[key]);
			return -1;
		}
		seen |= 1u << key;
		switch (key) {
		case K_PID:
			if (dec_u64(v, vl, INT32_MAX, &n) || !n) {
				bad(e, GP_EXIT_USAGE, EINVAL, "bad pid '%.*s' "
				    "(want 1..%d)", (int)(vl > 24 ? 24 : vl),
				    v, INT32_MAX);
				return -1;
			}
			q->pid = (pid_t)n;
			break;
		case K_QUEUES:
			if (parse_queues(v, vl, q, e))
				return -1;
			break;
		case K_GRACE:
			if (dec_u64(v, vl, UINT32_MAX, &n)) {
				bad(e, GP_EXIT_USAGE, EINVAL, "bad grace "
				    "'%.*s' (want 0..%u, 1K-cycle units)",
				    (int)(vl > 24 ? 24 : vl), v, UINT32_MAX);
				return -1;
			}
			q->grace = (uint32_t)n;
			break;
		case K_FOR_NS:
			if (dec_u64(v, vl, UINT64_MAX, &q->for_ns) ||
			    !q->for_ns) {
				bad(e, GP_EXIT_USAGE, EINVAL, "bad for_ns "
				    "'%.*s' (want nanoseconds > 0)",
				    (int)(vl > 24 ? 24 : vl), v);
				return -1;
			}
			break;
		}
	}
	if (q->verb != PROTO_STATUS && !(seen & 1u << K_PID)) {
		bad(e, GP_EXIT_USAGE, EINVAL, "'%s' needs pid=N",
		    verb_names[q->verb]);
		return -1;
	}
	return 0;
}

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
	sb_printf(&s, "\n");
	return sb_done(&s);
}

int proto_format_daemon(char *buf, size_t len, const struct proto_daemon *d)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_printf(&s, "daemon pid=%d sessions=%u max_hold_ns=%llu", d->pid,
		  d->sessions, (unsigned long long)d->max_hold_ns);
	if (d->kfd)
		sb_printf(&s, " kfd=%u.%u\n", d->kfd_major, d->kfd_minor);
	else
		sb_printf(&s, " kfd=none\n");
	return sb_done(&s);
}

int proto_format_session(char *buf, size_t len,
			 const struct proto_session *ps)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_printf(&s, "session pid=%d runtime=%s queues=%u held=%u "
		  "held_ns=%llu left_ns=%llu\n", ps->pid,
		  kfd_runtime_state_name(ps->runtime), ps->queues, ps->held,
		  (unsigned long long)ps->held_ns,
		  (unsigned long long)ps->left_ns);
	return sb_done(&s);
}

int proto_format_op(char *buf, size_t len, const struct proto_op *op)
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
	for (i = 0; i < op->nq && i < PROTO_MAX_QUEUES; i++)
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

void proto_op_from_session(struct proto_op *p, pid_t pid,
			   const struct session_op *op)
{
	uint32_t i;

	memset(p, 0, offsetof(struct proto_op, q));
	p->call = op->call == KFD_CALL_RESUME ? KFD_CALL_RESUME :
		  KFD_CALL_SUSPEND;
	p->pid = pid;
	p->ret = op->ret;
	p->ns = op->ns;
	p->snapshot_ns = op->snapshot_ns;
	p->n = op->n;
	p->n_ok = op->n_ok;
	p->n_invalid = op->n_invalid;
	p->n_error = op->n_error;
	p->nq = op->n < PROTO_MAX_QUEUES ? op->n : PROTO_MAX_QUEUES;
	for (i = 0; i < p->nq; i++)
		p->q[i] = op->q ? op->q[i] :
			(struct session_qres){ 0, KFD_Q_ERROR };
}

void proto_op_to_session(struct proto_op *p, struct session_op *op)
{
	memset(op, 0, sizeof(*op));
	op->call = p->call;
	op->ret = p->ret;
	op->ns = p->ns;
	op->snapshot_ns = p->snapshot_ns;
	/* ctl_print_op() walks n entries of q: only nq exist. */
	op->n = p->nq;
	op->n_ok = p->n_ok;
	op->n_invalid = p->n_invalid;
	op->n_error = p->n_error;
	op->q = p->q;
}

/* ---- replies ----------------------------------------------------------- */

void proto_reply_init(struct proto_reply *r)
{
	memset(r, 0, sizeof(*r));
}

static int reply_bad(struct gp_err *e, const char *what, const char *t,
		     size_t n)
{
	bad(e, GP_EXIT_DAEMON, EPROTO, "malformed reply from the daemon: "
	    "%s '%.*s' (is it the same gpreempt version?)", what,
	    (int)(n > 40 ? 40 : n), t);
	return -1;
}

static int parse_runtime(const char *v, size_t n, uint32_t *out)
{
	uint32_t i;

	for (i = DEBUG_RUNTIME_STATE_DISABLED;
	     i <= DEBUG_RUNTIME_STATE_ENABLED_ERROR; i++) {
		if (tok_is(v, n, kfd_runtime_state_name(i))) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static int parse_qres(const char *v, size_t n, struct proto_op *op)
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
		    dec_u64(v, colon - v, PROTO_QUEUE_ID_LIMIT - 1, &id))
			return -1;
		for (st = KFD_Q_OK; st <= KFD_Q_ERROR; st++)
			if (tok_is(colon + 1, c - colon - 1,
				   kfd_qstatus_name(st)))
				break;
		if (st > KFD_Q_ERROR)
			return -1;
		op->q[op->nq].id = (uint32_t)id;
		op->q[op->nq].status = st;
		op->nq++;
		if (c == end)
			return 0;
		v = c + 1;
	}
}

/* Keys of the INFO lines; info_value() knows them by index. */
enum info_kind { I_DAEMON, I_SESSION, I_OP };

static const char *const daemon_keys[] = {
	"pid", "sessions", "max_hold_ns", "kfd", NULL
};
static const char *const session_keys[] = {
	"pid", "runtime", "queues", "held", "held_ns", "left_ns", NULL
};
static const char *const op_keys[] = {
	"call", "pid", "ret", "ns", "snapshot_ns", "requested", "ok",
	"invalid", "error", "queues", NULL
};
/* Keys a line may leave out: op's queues= when nothing was requested. */
#define OP_KEY_QUEUES 9

static int info_value(enum info_kind kind, int key, const char *v,
		      size_t vl, struct proto_reply *r)
{
	struct proto_session *s = &r->sessions[r->n_sessions];
	struct proto_daemon *d = &r->daemon;
	struct proto_op *op = &r->op;
	const char *dot;
	uint64_t n = 0;

	switch (kind) {
	case I_DAEMON:
		if (key == 3) {
			if (tok_is(v, vl, "none"))
				return 0;
			dot = memchr(v, '.', vl);
			if (!dot || dec_u64(v, dot - v, UINT32_MAX, &n))
				return -1;
			d->kfd_major = n;
			if (dec_u64(dot + 1, v + vl - dot - 1, UINT32_MAX, &n))
				return -1;
			d->kfd_minor = n;
			d->kfd = true;
			return 0;
		}
		if (dec_u64(v, vl, key ? UINT64_MAX : INT32_MAX, &n))
			return -1;
		if (key == 0)
			d->pid = n;
		else if (key == 1 && n <= UINT32_MAX)
			d->sessions = n;
		else if (key == 2)
			d->max_hold_ns = n;
		else
			return -1;
		return 0;
	case I_SESSION:
		if (key == 1)
			return parse_runtime(v, vl, &s->runtime);
		if (dec_u64(v, vl, key >= 4 ? UINT64_MAX : INT32_MAX, &n))
			return -1;
		switch (key) {
		case 0: s->pid = n; return n ? 0 : -1;
		case 2: s->queues = n; break;
		case 3: s->held = n; break;
		case 4: s->held_ns = n; break;
		case 5: s->left_ns = n; break;
		}
		return 0;
	case I_OP:
		if (key == 0) {
			if (tok_is(v, vl, "suspend"))
				op->call = KFD_CALL_SUSPEND;
			else if (tok_is(v, vl, "resume"))
				op->call = KFD_CALL_RESUME;
			else
				return -1;
			return 0;
		}
		if (key == 2)
			return dec_int(v, vl, &op->ret);
		if (key == OP_KEY_QUEUES)
			return parse_qres(v, vl, op);
		if (dec_u64(v, vl, key == 3 || key == 4 ? UINT64_MAX :
			    key == 1 ? INT32_MAX : UINT32_MAX, &n))
			return -1;
		switch (key) {
		case 1: op->pid = n; return n ? 0 : -1;
		case 3: op->ns = n; break;
		case 4: op->snapshot_ns = n; break;
		case 5: op->n = n; break;
		case 6: op->n_ok = n; break;
		case 7: op->n_invalid = n; break;
		case 8: op->n_error = n; break;
		}
		return 0;
	}
	return -1;
}

static int parse_info(enum info_kind kind, const char *p, const char *end,
		      struct proto_reply *r, struct gp_err *e)
{
	static const char *const *const tables[] = {
		[I_DAEMON] = daemon_keys, [I_SESSION] = session_keys,
		[I_OP] = op_keys,
	};
	const char *const *t = tables[kind];
	const char *f, *k, *v;
	size_t fl, kl, vl;
	unsigned int seen = 0;
	int key, rc;

	while ((rc = next_field(&p, end, &f, &fl)) != 0) {
		if (rc < 0)
			return reply_bad(e, "empty field in", p, end - p);
		if (split_kv(f, fl, &k, &kl, &v, &vl))
			return reply_bad(e, "field", f, fl);
		for (key = 0; t[key]; key++)
			if (tok_is(k, kl, t[key]))
				break;
		if (!t[key] || seen & 1u << key)
			return reply_bad(e, "unknown or repeated key", k, kl);
		seen |= 1u << key;
		if (info_value(kind, key, v, vl, r))
			return reply_bad(e, "value", f, fl);
	}
	for (key = 0; t[key]; key++)
		if (!(seen & 1u << key) &&
		    !(kind == I_OP && key == OP_KEY_QUEUES))
			return reply_bad(e, "missing key", t[key],
					 strlen(t[key]));
	if (kind == I_OP && r->op.nq != (r->op.n < PROTO_MAX_QUEUES ?
					  r->op.n : PROTO_MAX_QUEUES))
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
	if (bad_byte(line, len) < len)
		return reply_bad(e, "non-printable byte in", line, len);
	end = line + len;
	if (tok_is(line, len, "ok")) {
		r->exit = GP_EXIT_OK;
		r->err = 0;
		r->msg[0] = 0;
		return 1;
	}
	if (len > 4 && !memcmp(line, "err ", 4)) {
		p = line + 4;
		sp = memchr(p, ' ', end - p);
		if (!sp || dec_u64(p, sp - p, 255, &ex) || !ex)
			return reply_bad(e, "error line", line, len);
		p = sp + 1;
		sp = memchr(p, ' ', end - p);
		if (!sp || dec_u64(p, sp - p, 4095, &er))
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
	if (tok_is(line, p - line, "daemon") && !r->has_daemon) {
		r->has_daemon = true;
		return parse_info(I_DAEMON, p, end, r, e) ? -1 : 0;
	}
	if (tok_is(line, p - line, "op") && !r->has_op) {
		r->has_op = true;
		return parse_info(I_OP, p, end, r, e) ? -1 : 0;
	}
	if (tok_is(line, p - line, "session") &&
	    r->n_sessions < PROTO_MAX_SESSIONS) {
		if (parse_info(I_SESSION, p, end, r, e))
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

/* ---- client ------------------------------------------------------------ */

int proto_connect(const char *path, struct gp_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		gp_err_set(e, GP_EXIT_USAGE, ENAMETOOLONG, "socket path %s is "
			   "longer than %zu bytes", path,
			   sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		gp_err_set(e, GP_EXIT_DAEMON, errno, "socket: %s",
			   strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err = errno;
	close(fd);
	if (err == EACCES || err == EPERM)
		gp_err_set(e, GP_EXIT_PRIV, err, "cannot connect to the daemon "
			   "at %s: %s: its socket is for root (and the group "
			   "of 'daemon --group'); run as root or join that "
			   "group", path, strerror(err));
	else if (err == ECONNREFUSED || err == ENOENT)
		gp_err_set(e, GP_EXIT_DAEMON, err, "no daemon listens on %s "
			   "(%s): start 'gpreempt-ctl daemon', or use "
			   "--no-daemon", path, strerror(err));
	else
		gp_err_set(e, GP_EXIT_DAEMON, err, "cannot connect to the "
			   "daemon at %s: %s", path, strerror(err));
	return -1;
}

/* Milliseconds left until deadline (monotonic ns), at least 0. */
static int ms_left(uint64_t deadline)
{
	uint64_t now = monotonic_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000 + 1);
}

static int wait_fd(int fd, short ev, uint64_t deadline, struct gp_err *e)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;

	for (;;) {
		r = poll(&p, 1, ms_left(deadline));
		if (r > 0)
			return 0;
		if (r == 0) {
			gp_err_set(e, GP_EXIT_DAEMON, ETIMEDOUT, "the daemon "
				   "did not answer in time: is it stuck? "
				   "('gpreempt-ctl status --no-daemon' shows "
				   "who holds what)");
			return -1;
		}
		if (errno != EINTR) {
			gp_err_set(e, GP_EXIT_DAEMON, errno, "poll: %s",
				   strerror(errno));
			return -1;
		}
	}
}

int proto_roundtrip(int fd, const char *line, size_t len,
		    struct proto_reply *r, int timeout_ms, struct gp_err *e)
{
	uint64_t deadline = monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	char buf[PROTO_MAX_LINE];
	size_t off = 0, have = 0, total = 0;
	ssize_t n;
	char *nl;
	int rc;

	proto_reply_init(r);
	while (off < len) {
		if (wait_fd(fd, POLLOUT, deadline, e))
			return -1;
		n = send(fd, line + off, len - off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			break;	/* a refusal may be waiting: read it */
		if (n < 0) {
			gp_err_set(e, GP_EXIT_DAEMON, errno, "sending to the "
				   "daemon: %s", strerror(errno));
			return -1;
		}
		off += n;
	}
	for (;;) {
		/* Complete lines first; the reply ends at ok/err. */
		while ((nl = memchr(buf, '\n', have))) {
			rc = proto_parse_reply_line(buf, nl + 1 - buf, r, e);
			if (rc < 0)
				return -1;
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have);
			if (rc == 1)
				return 0;
		}
		if (have == sizeof(buf))
			return reply_bad(e, "line too long:", buf, 16);
		if (wait_fd(fd, POLLIN, deadline, e))
			return -1;
		n = recv(fd, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			gp_err_set(e, GP_EXIT_DAEMON, errno, "reading from the "
				   "daemon: %s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			gp_err_set(e, GP_EXIT_DAEMON, ECONNRESET, "the daemon "
				   "closed the connection before replying "
				   "(see its log)");
			return -1;
		}
		have += n;
		total += n;
		if (total > PROTO_MAX_REPLY)
			return reply_bad(e, "reply too long:", buf, 16);
	}
}

int proto_call(const char *path, const struct proto_req *q,
	       struct proto_reply *r, int timeout_ms, struct gp_err *e)
{
	char line[PROTO_MAX_REQ];
	int fd, n, rc;

	n = proto_format_request(line, sizeof(line), q);
	if (n < 0) {
		gp_err_set(e, GP_EXIT_USAGE, -n, "cannot format the request");
		return -1;
	}
	fd = proto_connect(path, e);
	if (fd < 0)
		return -1;
	rc = proto_roundtrip(fd, line, n, r, timeout_ms, e);
	close(fd);
	return rc;
}
