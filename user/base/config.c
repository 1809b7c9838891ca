// SPDX-License-Identifier: GPL-2.0
/* Configuration file -> argv-style options (see config.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int fail(struct config_err *err, int line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const struct config_opt *find(const struct config_opt *opts,
				     const char *name, size_t n)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == n && !strncmp(opts->name, name, n))
			return opts;
	return NULL;
}

void config_free(struct config *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->argv[i]);
	c->n = 0;
}

/* Trim [*s, *e) of blanks on both sides. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* One non-blank, non-comment line [s, e) -> one option. */
static int parse_line(const char *s, const char *e, int lineno,
		      const struct config_opt *opts, struct config *out,
		      struct config_err *err)
{
	const char *name = s, *val, *hash;
	const struct config_opt *o;
	size_t nlen;
	char *arg;

	/* " # ..." after the value is a comment; '#' inside a word is not. */
	for (hash = s + 1; hash < e; hash++)
		if (*hash == '#' && isspace((unsigned char)hash[-1])) {
			e = hash;
			trim(&s, &e);
			break;
		}
	if (e - s >= 2 && s[0] == '-' && s[1] == '-')
		name = s += 2;		/* "--max-hold 1s" is forgiven */
	while (s < e && (isalnum((unsigned char)*s) || *s == '-' || *s == '_'))
		s++;
	nlen = s - name;
	if (!nlen)
		return fail(err, lineno, "expected an option name, got '%.*s'",
			    (int)(e - name > 40 ? 40 : e - name), name);
	if (s < e && !isspace((unsigned char)*s) && *s != '=')
		return fail(err, lineno, "bad character '%c' in option name '%.*s'",
			    *s, (int)nlen, name);
	o = find(opts, name, nlen);
	if (!o)
		return fail(err, lineno, "unknown option '%.*s'", (int)nlen, name);
	val = s;
	trim(&val, &e);
	if (val < e && *val == '=') {
		val++;
		trim(&val, &e);
	}
	/* "a value with blanks" may be quoted; the quotes are not part of it. */
	if (e - val >= 2 && *val == '"' && e[-1] == '"') {
		val++;
		e--;
	}
	if (o->has_arg && val == e)
		return fail(err, lineno, "'%s' needs a value", o->name);
	if (!o->has_arg && val != e)
		return fail(err, lineno, "'%s' takes no value (got '%.*s')",
			    o->name, (int)(e - val > 40 ? 40 : e - val), val);
	if (out->n == CONFIG_MAX_OPTS)
		return fail(err, lineno, "more than %d options", CONFIG_MAX_OPTS);
	if (o->has_arg) {
		if (asprintf(&arg, "--%s=%.*s", o->name, (int)(e - val), val) < 0)
			return -ENOMEM;
	} else if (asprintf(&arg, "--%s", o->name) < 0) {
		return -ENOMEM;
	}
	out->argv[out->n] = arg;
	out->line[out->n++] = lineno;
	return 0;
}

int config_parse(const char *text, size_t len, const struct config_opt *opts,
		 struct config *out, struct config_err *err)
{
	const char *p = text, *end = text + len;
	int lineno = 0, r;

	out->n = 0;
	err->line = 0;
	err->msg[0] = '\0';
	if (len > CONFIG_MAX_BYTES)
		return fail(err, 0, "larger than %d bytes", CONFIG_MAX_BYTES);
	if (memchr(text, '\0', len)) {
		const char *z = memchr(text, '\0', len);

		for (p = text, lineno = 1; p < z; p++)
			lineno += *p == '\n';
		return fail(err, lineno, "contains a NUL byte: not a text file");
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *s = p, *e = nl ? nl : end;

		lineno++;
		p = nl ? nl + 1 : end;
		if (e - s > CONFIG_MAX_LINE) {
			r = fail(err, lineno, "line longer than %d bytes",
				 CONFIG_MAX_LINE);
			goto out;
		}
		trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		r = parse_line(s, e, lineno, opts, out, err);
		if (r)
			goto out;
	}
	return 0;
out:
	config_free(out);
	return r;
}
