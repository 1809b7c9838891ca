// SPDX-License-Identifier: GPL-2.0
/* The arbiter's socket verbs: parsers and formatters (arb_proto.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arb_proto.h"
#include "exitcodes.h"
#include "util.h"

static int bad(struct gp_err *e, const char *why, const char *word, int n)
{
	return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "%s: '%.*s'", why, n,
			  word);
}

/* Length of the word at p: up to a space, "\n" or end (never past it). */
static size_t word_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q != ' ' && *q != '\n')
		q++;
	return q - p;
}

/* "0x" then 1..16 hex digits, non-zero, 8-byte aligned. */
static int hex_addr(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return -1;
	for (i = 2; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	if (!v || v % 8)
		return -1;
	*out = v;
	return 0;
}

int arb_parse_gpus(const char *s, size_t n, struct arb_req *q)
{
	const char *end = s + n;

	while (s < end) {
		const char *c = memchr(s, ',', end - s);
		size_t l = (c ? c : end) - s;
		uint64_t id;
		int i;

		if (parse_dec(s, l, UINT32_MAX, &id) || !id ||
		    q->ngpus == ARB_MAX_REQ_GPUS)
			return -1;
		for (i = 0; i < q->ngpus; i++)
			if (q->gpus[i] == id)
				return -1;
		q->gpus[q->ngpus++] = id;
		if (c && c + 1 == end)
			return -1;	/* a trailing comma */
		s = c ? c + 1 : end;
	}
	return q->ngpus ? 0 : -1;
}

int arb_parse_request(const char *line, size_t len, struct arb_req *q,
		      struct gp_err *e)
{
	static const char *const verbs[] = { NULL, "busy", "idle", "classify",
					     "policy", "watch" };
	const char *end = line + len;
	size_t vl;
	int v;

	if (len && line[len - 1] == '\n')
		end--;
	vl = word_len(line, end);
	memset(q, 0, sizeof(*q));
	for (v = ARB_BUSY; v <= ARB_WATCH; v++)
		if (strlen(verbs[v]) == vl && !memcmp(line, verbs[v], vl))
			break;
	if (v > ARB_WATCH)
		return 0;
	return arb_parse_args(v, line + vl, len - vl, q, e);
}

int arb_parse_args(enum arb_verb v, const char *args, size_t len,
		   struct arb_req *q, struct gp_err *e)
{
	bool have_pid = false, have_scope = false, have_class = false;
	bool have_q = false, have_w = false, have_r = false, have_g = false;
	const char *p, *end = args + len, *w;

	if (len && args[len - 1] == '\n')
		end--;
	memset(q, 0, sizeof(*q));
	q->verb = v;
	for (p = args; p < end;) {
		const char *eq;
		size_t wl;

		if (*p != ' ' || p + 1 >= end || p[1] == ' ')
			return gp_err_set(e, GP_EXIT_USAGE, EINVAL,
					  "malformed request: single spaces "
					  "between KEY=VALUE words, none at "
					  "the end");
		w = ++p;
		wl = word_len(w, end);
		p = w + wl;
		eq = memchr(w, '=', wl);
		if (!eq)
			return bad(e, "expected KEY=VALUE", w, wl);
		if (q->verb != ARB_POLICY && eq - w == 3 &&
		    !memcmp(w, "pid", 3) && !have_pid) {
			uint64_t pid;

			if (parse_dec(eq + 1, w + wl - eq - 1, 0x7fffffff, &pid)
			    || !pid)
				return bad(e, "not a pid", w, wl);
			q->pid = pid;
			have_pid = true;
		} else if ((q->verb == ARB_BUSY || q->verb == ARB_IDLE) &&
			   eq - w == 5 && !memcmp(w, "scope", 5) &&
			   !have_scope) {
			if (wl == 9 && !memcmp(eq + 1, "pid", 3))
				q->pid_scope = true;
			else if (!(wl == 10 && !memcmp(eq + 1, "conn", 4)))
				return bad(e, "scope is conn or pid", w, wl);
			have_scope = true;
		} else if ((q->verb == ARB_BUSY || q->verb == ARB_IDLE) &&
			   eq - w == 3 && !memcmp(w, "gpu", 3) && !have_g) {
			if (arb_parse_gpus(eq + 1, w + wl - eq - 1, q))
				return bad(e, "gpu is one or more distinct "
					   "non-zero KFD gpu_ids, comma-"
					   "separated (at most 64)", w, wl);
			have_g = true;
		} else if (q->verb == ARB_CLASSIFY && eq - w == 5 &&
			   !memcmp(w, "class", 5) && !have_class) {
			char c[16];

			snprintf(c, sizeof(c), "%.*s",
				 (int)(w + wl - eq - 1), eq + 1);
			if (w + wl - eq - 1 >= (long)sizeof(c) ||
			    gp_pclass_parse(c, &q->cls))
				return bad(e, "class is online, offline or "
					   "none", w, wl);
			have_class = true;
		} else if (q->verb == ARB_WATCH && eq - w == 5 &&
			   !memcmp(w, "queue", 5) && !have_q) {
			uint64_t id;

			if (parse_dec(eq + 1, w + wl - eq - 1, 0x3fffffff, &id))
				return bad(e, "not a queue id", w, wl);
			q->queue = id;
			have_q = true;
		} else if (q->verb == ARB_WATCH && eq - w == 4 &&
			   (!memcmp(w, "wptr", 4) || !memcmp(w, "rptr", 4)) &&
			   !(w[0] == 'w' ? have_w : have_r)) {
			uint64_t *dst = w[0] == 'w' ? &q->wptr : &q->rptr;

			if (hex_addr(eq + 1, w + wl - eq - 1, dst))
				return bad(e, "not an address (0x and 1-16 hex "
					   "digits, 8-byte aligned)", w, wl);
			*(w[0] == 'w' ? &have_w : &have_r) = true;
		} else {
			return bad(e, "unknown or repeated key for this verb",
				   w, wl);
		}
	}
	if (q->verb == ARB_WATCH && (!have_pid || !have_q || !have_w || !have_r))
		return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "watch needs pid=N "
				  "queue=ID wptr=0xADDR rptr=0xADDR");
	if (q->verb == ARB_CLASSIFY && (!have_pid || !have_class))
		return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "classify needs "
				  "pid=N and class=online|offline|none");
	return 1;
}

int arb_format_request(char *buf, size_t len, const struct arb_req *q)
{
	static const char *const verbs[] = { "?", "busy", "idle", "classify",
					     "policy", "watch" };
	int n = snprintf(buf, len, "%s", verbs[q->verb <= ARB_WATCH ?
						q->verb : 0]);

	if (q->pid)
		n += snprintf(buf + n, n < (int)len ? len - n : 0, " pid=%d",
			      (int)q->pid);
	if (q->pid_scope)
		n += snprintf(buf + n, n < (int)len ? len - n : 0,
			      " scope=pid");
	for (int i = 0; i < q->ngpus; i++)
		n += snprintf(buf + n, n < (int)len ? len - n : 0, "%s%u",
			      i ? "," : " gpu=", q->gpus[i]);
	if (q->verb == ARB_CLASSIFY)
		n += snprintf(buf + n, n < (int)len ? len - n : 0, " class=%s",
			      gp_pclass_name(q->cls));
	if (q->verb == ARB_WATCH)
		n += snprintf(buf + n, n < (int)len ? len - n : 0,
			      " queue=%u wptr=0x%llx rptr=0x%llx", q->queue,
			      (unsigned long long)q->wptr,
			      (unsigned long long)q->rptr);
	n += snprintf(buf + n, n < (int)len ? len - n : 0, "\n");
	return n < (int)len ? n : -ENOSPC;
}

int arb_kv_parse(const char *line, size_t len, struct arb_kv *kv)
{
	char *w, *p, *e;

	memset(kv, 0, sizeof(*kv));
	if (len >= sizeof(kv->buf))
		return -1;
	memcpy(kv->buf, line, len);
	kv->buf[len] = 0;
	kv->buf[strcspn(kv->buf, "\n")] = 0;
	w = kv->buf;
	e = w + strcspn(w, " ");
	if (e == w || (size_t)(e - w) >= sizeof(kv->kind))
		return -1;
	memcpy(kv->kind, w, e - w);
	w = *e ? e + 1 : e;
	while (*w) {
		if (*w == ' ') {
			w++;
			continue;
		}
		p = strchr(w, '=');
		if (!p || p == w || memchr(w, ' ', p - w) || kv->n == ARB_MAX_KV)
			return -1;
		*p++ = 0;
		kv->key[kv->n] = w;
		if (*p == '"') {
			/* a quoted value (reason="..."): spaces in it, no
			 * quote; it ends at the next quote */
			e = strchr(++p, '"');
			if (!e || (e[1] && e[1] != ' '))
				return -1;
		} else {
			e = p + strcspn(p, " ");
		}
		kv->val[kv->n++] = p;
		w = *e ? e + 1 : e;
		*e = 0;
	}
	return 0;
}

const char *arb_kv_get(const struct arb_kv *kv, const char *key)
{
	int i;

	for (i = 0; i < kv->n; i++)
		if (!strcmp(kv->key[i], key))
			return kv->val[i];
	return NULL;
}
