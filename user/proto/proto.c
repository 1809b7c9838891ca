// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's socket protocol, requests: the strict parser and the
 * lexing helpers every parser shares. Pure (no I/O). Grammar in proto.h;
 * formatters in proto_fmt.c, the reply parser in proto_reply.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "proto_int.h"
#include "util.h"

const char *const proto_verb_names[N_VERBS] = {
	[PROTO_SUSPEND] = "suspend",
	[PROTO_RESUME] = "resume",
	[PROTO_ATTACH] = "attach",
	[PROTO_DETACH] = "detach",
	[PROTO_STATUS] = "status",
};

const char *proto_verb_name(enum proto_verb v)
{
	if ((unsigned int)v >= N_VERBS)
		return NULL;
	return proto_verb_names[v];
}

/* ---- small pure helpers ------------------------------------------------ */

bool proto_tok_is(const char *t, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(t, s, n);
}

int proto_dec_int(const char *t, size_t n, int *out)
{
	uint64_t v;

	if (n && t[0] == '-') {
		if (parse_dec(t + 1, n - 1, (uint64_t)INT32_MAX + 1, &v) || !v)
			return -1;
		*out = (int)(-(int64_t)v);
		return 0;
	}
	if (parse_dec(t, n, INT32_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

size_t proto_bad_byte(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return i;
	return len;
}

int proto_next_field(const char **p, const char *end, const char **f,
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

int proto_split_kv(const char *f, size_t n, const char **k, size_t *kl,
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

/* ---- requests ------------------------------------------------------------ */

enum req_key {
	K_PID,
	K_QUEUES,
	K_GRACE,
	K_FOR_NS,
	K_WAIT_NS,
	N_KEYS,
};

static const char *const key_names[N_KEYS] = {
	[K_PID] = "pid",
	[K_QUEUES] = "queues",
	[K_GRACE] = "grace",
	[K_FOR_NS] = "for_ns",
	[K_WAIT_NS] = "wait_ns",
};

/* Keys each verb accepts, and the ones it needs. */
static const unsigned int verb_keys[] = {
	[PROTO_SUSPEND] = 1u << K_PID | 1u << K_QUEUES | 1u << K_GRACE |
			  1u << K_FOR_NS | 1u << K_WAIT_NS,
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
		if (parse_dec(v, c - v, PROTO_QUEUE_ID_LIMIT - 1, &id)) {
			gp_err_set(e, GP_EXIT_USAGE, EINVAL, "bad queue id '%.*s' in "
			    "queues= (want decimal ids below %u, comma "
			    "separated)", (int)(c - v > 24 ? 24 : c - v), v,
			    PROTO_QUEUE_ID_LIMIT);
			return -1;
		}
		if (q->n_queues == PROTO_MAX_QUEUES) {
			gp_err_set(e, GP_EXIT_USAGE, E2BIG, "more than %d queue ids",
			    PROTO_MAX_QUEUES);
			return -1;
		}
		for (i = 0; i < q->n_queues; i++) {
			if (q->queues[i] == id) {
				gp_err_set(e, GP_EXIT_USAGE, EINVAL, "queue id %u "
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

/* A duration key: nanoseconds, 1..GP_DURATION_MAX_NS. */
static int parse_ns(const char *key, const char *v, size_t vl, uint64_t *out,
		    struct gp_err *e)
{
	if (!parse_dec(v, vl, GP_DURATION_MAX_NS, out) && *out)
		return 0;
	return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "bad %s '%.*s' (want "
			  "nanoseconds, 1..%llu)", key,
			  (int)(vl > 24 ? 24 : vl), v,
			  (unsigned long long)GP_DURATION_MAX_NS);
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
		gp_err_set(e, GP_EXIT_USAGE, E2BIG, "request longer than %d bytes",
		    PROTO_MAX_REQ - 1);
		return -1;
	}
	i = proto_bad_byte(line, len);
	if (i < len) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "byte 0x%02x at offset %zu: a "
		    "request is one line of printable ASCII",
		    (unsigned char)line[i], i);
		return -1;
	}
	if (!len) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "empty request (want suspend, "
		    "resume, attach, detach or status)");
		return -1;
	}
	end = line + len;
	p = memchr(line, ' ', len);
	if (!p)
		p = end;
	for (i = 1; i < N_VERBS; i++)
		if (proto_tok_is(line, p - line, proto_verb_names[i]))
			q->verb = i;
	if (!q->verb) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "unknown request '%.*s' (want "
		    "suspend, resume, attach, detach or status)",
		    (int)(p - line > 32 ? 32 : p - line), line);
		return -1;
	}
	while ((r = proto_next_field(&p, end, &f, &fl)) != 0) {
		if (r < 0) {
			gp_err_set(e, GP_EXIT_USAGE, EINVAL, "empty field at offset "
			    "%zu (fields are separated by single spaces)",
			    (size_t)(p - line));
			return -1;
		}
		if (proto_split_kv(f, fl, &k, &kl, &v, &vl)) {
			gp_err_set(e, GP_EXIT_USAGE, EINVAL, "field '%.*s' is not "
			    "KEY=VALUE", (int)(fl > 32 ? 32 : fl), f);
			return -1;
		}
		for (key = 0; key < N_KEYS; key++)
			if (proto_tok_is(k, kl, key_names[key]))
				break;
		if (key == N_KEYS || !(verb_keys[q->verb] & 1u << key)) {
			gp_err_set(e, GP_EXIT_USAGE, EINVAL, "'%s' takes no key "
			    "'%.*s'", proto_verb_names[q->verb],
			    (int)(kl > 32 ? 32 : kl), k);
			return -1;
		}
		if (seen & 1u << key) {
			gp_err_set(e, GP_EXIT_USAGE, EINVAL, "key '%s' given twice",
			    key_names[key]);
			return -1;
		}
		seen |= 1u << key;
		switch (key) {
		case K_PID:
			if (parse_dec(v, vl, INT32_MAX, &n) || !n) {
				gp_err_set(e, GP_EXIT_USAGE, EINVAL, "bad pid '%.*s' "
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
			if (parse_dec(v, vl, UINT32_MAX, &n)) {
				gp_err_set(e, GP_EXIT_USAGE, EINVAL, "bad grace "
				    "'%.*s' (want 0..%u, 1K-cycle units)",
				    (int)(vl > 24 ? 24 : vl), v, UINT32_MAX);
				return -1;
			}
			q->grace = (uint32_t)n;
			break;
		case K_FOR_NS:
			if (parse_ns(key_names[key], v, vl, &q->for_ns, e))
				return -1;
			break;
		case K_WAIT_NS:
			if (parse_ns(key_names[key], v, vl, &q->wait_ns, e))
				return -1;
			break;
		}
	}
	if (q->verb != PROTO_STATUS && !(seen & 1u << K_PID)) {
		gp_err_set(e, GP_EXIT_USAGE, EINVAL, "'%s' needs pid=N",
		    proto_verb_names[q->verb]);
		return -1;
	}
	return 0;
}
