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

int arb_parse_request(const char *line, size_t len, struct arb_req *q,
		      struct gp_err *e)
{
	static const char *const verbs[] = { NULL, "busy", "idle", "classify",
					     "policy" };
	bool have_pid = false, have_scope = false, have_class = false;
	const char *p = line, *end = line + len, *w;
	size_t vl;
	int v;

	if (len && line[len - 1] == '\n')
		end--;
	vl = strcspn(line, " \n");
	if (line + vl > end)
		vl = end - line;
	memset(q, 0, sizeof(*q));
	for (v = ARB_BUSY; v <= ARB_POLICY; v++)
		if (strlen(verbs[v]) == vl && !strncmp(line, verbs[v], vl))
			break;
	if (v > ARB_POLICY)
		return 0;
	q->verb = v;
	for (p = line + vl; p < end;) {
		const char *eq;
		size_t wl;

		if (*p != ' ' || p + 1 >= end || p[1] == ' ')
			return gp_err_set(e, GP_EXIT_USAGE, EINVAL,
					  "malformed request: single spaces "
					  "between KEY=VALUE words, none at "
					  "the end");
		w = ++p;
		wl = strcspn(w, " \n");
		if (w + wl > end)
			wl = end - w;
		p = w + wl;
		eq = memchr(w, '=', wl);
		if (!eq)
			return bad(e, "expected KEY=VALUE", w, wl);
		if (q->verb != ARB_POLICY && eq - w == 3 &&
		    !strncmp(w, "pid", 3) && !have_pid) {
			uint64_t pid;

			if (parse_dec(eq + 1, w + wl - eq - 1, 0x7fffffff, &pid)
			    || !pid)
				return bad(e, "not a pid", w, wl);
			q->pid = pid;
			have_pid = true;
		} else if ((q->verb == ARB_BUSY || q->verb == ARB_IDLE) &&
			   eq - w == 5 && !strncmp(w, "scope", 5) &&
			   !have_scope) {
			if (!strncmp(eq + 1, "pid", 3) && wl == 9)
				q->pid_scope = true;
			else if (!(!strncmp(eq + 1, "conn", 4) && wl == 10))
				return bad(e, "scope is conn or pid", w, wl);
			have_scope = true;
		} else if (q->verb == ARB_CLASSIFY && eq - w == 5 &&
			   !strncmp(w, "class", 5) && !have_class) {
			char c[16];

			snprintf(c, sizeof(c), "%.*s",
				 (int)(w + wl - eq - 1), eq + 1);
			if (w + wl - eq - 1 >= (long)sizeof(c) ||
			    gp_pclass_parse(c, &q->cls))
				return bad(e, "class is online, offline or "
					   "none", w, wl);
			have_class = true;
		} else {
			return bad(e, "unknown or repeated key for this verb",
				   w, wl);
		}
	}
	if (q->verb == ARB_CLASSIFY && (!have_pid || !have_class))
		return gp_err_set(e, GP_EXIT_USAGE, EINVAL, "classify needs "
				  "pid=N and class=online|offline|none");
	return 1;
}

int arb_format_request(char *buf, size_t len, const struct arb_req *q)
{
	static const char *const verbs[] = { "?", "busy", "idle", "classify",
					     "policy" };
	int n = snprintf(buf, len, "%s", verbs[q->verb <= ARB_POLICY ?
						q->verb : 0]);

	if (q->pid)
		n += snprintf(buf + n, n < (int)len ? len - n : 0, " pid=%d",
			      (int)q->pid);
	if (q->pid_scope)
		n += snprintf(buf + n, n < (int)len ? len - n : 0,
			      " scope=pid");
	if (q->verb == ARB_CLASSIFY)
		n += snprintf(buf + n, n < (int)len ? len - n : 0, " class=%s",
			      gp_pclass_name(q->cls));
	n += snprintf(buf + n, n < (int)len ? len - n : 0, "\n");
	return n < (int)len ? n : -ENOSPC;
}

int arb_kv_parse(const char *line, size_t len, struct arb_kv *kv)
{
	char *p, *w, *save = NULL;

	memset(kv, 0, sizeof(*kv));
	if (len >= sizeof(kv->buf))
		return -1;
	memcpy(kv->buf, line, len);
	kv->buf[len] = 0;
	kv->buf[strcspn(kv->buf, "\n")] = 0;
	w = strtok_r(kv->buf, " ", &save);
	if (!w || strlen(w) >= sizeof(kv->kind))
		return -1;
	snprintf(kv->kind, sizeof(kv->kind), "%s", w);
	while ((w = strtok_r(NULL, " ", &save))) {
		p = strchr(w, '=');
		if (!p || p == w || kv->n == ARB_MAX_KV)
			return -1;
		*p = 0;
		kv->key[kv->n] = w;
		kv->val[kv->n++] = p + 1;
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
