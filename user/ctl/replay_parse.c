// SPDX-License-Identifier: GPL-2.0
/*
 * One line of a replay trace (format in replay.h). A flat JSON object
 * reader: the keys replay needs are read, every other value (nested ones
 * of gpreempt-trace's hist objects included) is skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "replay.h"

struct val {
	bool is_str, is_uint, present;
	char s[64];
	uint64_t n;
};

enum { K_T_NS, K_T_US, K_T_MS, K_TS_BOOT, K_EV, K_TYPE, K_OP, K_SRC, K_PID,
       K_GPU, K_QID, K_GANG, K__N };
static const char *const key_names[K__N] = {
	"t_ns", "t_us", "t_ms", "ts_boot_ns", "ev", "type", "op", "src", "pid",
	"gpu", "qid", "gang",
};

static const char *ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* A string literal at p (on '"'); copies up to len-1 bytes into out. */
static const char *str(const char *p, char *out, size_t len)
{
	size_t n = 0;

	for (p++; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			c = *++p;
			if (!c)
				return NULL;
			if (c == 'u') {	/* kept as '?': no key needs it */
				if (strspn(p + 1, "0123456789abcdefABCDEF") < 4)
					return NULL;
				p += 4;
				c = '?';
			}
		} else if ((unsigned char)c < 0x20) {
			return NULL;
		}
		if (out && n + 1 < len)
			out[n++] = c;
	}
	if (out)
		out[n] = 0;
	return *p == '"' ? p + 1 : NULL;
}

/* Skips a nested object or array (p on '{' or '['). */
static const char *skip_nested(const char *p)
{
	int depth = 0;

	while (*p) {
		if (*p == '"') {
			p = str(p, NULL, 0);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			if (--depth == 0)
				return p + 1;
		p++;
	}
	return NULL;
}

static const char *value(const char *p, struct val *v)
{
	const char *s = p;

	memset(v, 0, sizeof(*v));
	v->present = true;
	if (*p == '"') {
		v->is_str = true;
		return str(p, v->s, sizeof(v->s));
	}
	if (*p == '{' || *p == '[')
		return skip_nested(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	v->is_uint = *s != '-';
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = *p - '0';

		if (v->n > (UINT64_MAX - d) / 10)
			v->is_uint = false;	/* too big */
		v->n = v->n * 10 + d;
	}
	if (*p == '.' || *p == 'e' || *p == 'E') {
		v->is_uint = false;
		p += strspn(p, "0123456789.eE+-");
	}
	return p;
}

static int fail(char *err, size_t len, const char *msg, const char *key)
{
	snprintf(err, len, msg, key);
	return -EINVAL;
}

static int event_name(const char *s, enum gp_rev *ev)
{
	static const char *const n[] = { "busy", "idle", "close", "exit",
					  "mark", "queue" };
	unsigned int i;

	for (i = 0; i < 6; i++)
		if (!strcmp(s, n[i])) {
			*ev = i;
			return 0;
		}
	return -1;
}

static int read_time(struct val *k, struct gp_replay_ev *ev, char *err,
		     size_t len)
{
	static const uint64_t mul[] = { 1, 1000, 1000000, 1 };
	int i, found = -1;

	for (i = K_T_NS; i <= K_TS_BOOT; i++) {
		if (!k[i].present)
			continue;
		if (found >= 0)
			return fail(err, len, "two time keys (\"%s\" and "
				    "another): give one", key_names[i]);
		found = i;
	}
	if (found < 0)
		return fail(err, len, "no time: give \"t_ns\", \"t_us\", "
			    "\"t_ms\" or \"ts_boot_ns\"%s", "");
	if (!k[found].is_uint || k[found].n > UINT64_MAX / mul[found])
		return fail(err, len, "\"%s\" is not an unsigned integer "
			    "(in range)", key_names[found]);
	/* The policy adds windows and holds to event times: near 2^64 its
	 * deadlines wrap below the event and replay never ends. */
	if (k[found].n * mul[found] > GP_REPLAY_MAX_NS)
		return fail(err, len, "\"%s\" is past 2^62 ns (146 years): "
			    "give times relative to the trace's start",
			    key_names[found]);
	ev->t_ns = k[found].n * mul[found];
	return 0;
}

int gp_replay_parse_line(const char *line, struct gp_replay_ev *ev,
			 char *err, size_t len)
{
	struct val k[K__N] = { 0 }, v;
	const char *p = ws(line), *name;
	char key[32];
	int i;

	if (!*p || *p == '#')
		return 0;
	if (*p != '{')
		return fail(err, len, "not a JSON object%s", "");
	p = ws(p + 1);
	while (*p != '}') {
		if (*p != '"' || !(p = str(p, key, sizeof(key))))
			return fail(err, len, "expected a key string%s", "");
		p = ws(p);
		if (*p != ':')
			return fail(err, len, "expected ':' after \"%s\"", key);
		p = value(ws(p + 1), &v);
		if (!p)
			return fail(err, len, "bad value for \"%s\"", key);
		for (i = 0; i < K__N; i++)
			if (!strcmp(key, key_names[i]))
				k[i] = v;
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
		else if (*p != '}')
			return fail(err, len, "expected ',' or '}' after "
				    "\"%s\"", key);
	}
	if (*ws(p + 1))
		return fail(err, len, "text after the object%s", "");

	memset(ev, 0, sizeof(*ev));
	if (k[K_EV].present) {
		if (!k[K_EV].is_str || event_name(k[K_EV].s, &ev->ev))
			return fail(err, len, "unknown \"ev\" \"%s\": use busy, "
				    "idle, close, exit, mark or queue",
				    k[K_EV].s);
	} else {
		/* gpreempt-trace -j objects: busy/idle events if any. */
		name = k[K_TYPE].is_str ? k[K_TYPE].s : NULL;
		if (!name)
			return fail(err, len, "no \"ev\" (busy, idle, close, "
				    "exit or mark)%s", "");
		if (!strcmp(name, "event"))
			name = k[K_OP].is_str ? k[K_OP].s : "";
		if (event_name(name, &ev->ev))
			return 0;
	}
	if (read_time(k, ev, err, len))
		return -EINVAL;
	if (k[K_SRC].present) {
		if (!k[K_SRC].is_uint)
			return fail(err, len, "\"src\" is not an unsigned "
				    "integer%s", "");
		ev->src = k[K_SRC].n;
	}
	if (k[K_PID].present) {
		if (!k[K_PID].is_uint || k[K_PID].n > INT_MAX)
			return fail(err, len, "\"pid\" is not a pid%s", "");
		ev->pid = k[K_PID].n;
	}
	if (k[K_GPU].present) {
		if (!k[K_GPU].is_uint || !k[K_GPU].n ||
		    k[K_GPU].n > UINT32_MAX)
			return fail(err, len, "\"gpu\" is not a gpu_id (the "
				    "topology's, never a HIP index)%s", "");
		ev->gpu = k[K_GPU].n;
		ev->has_gpu = true;
	}
	if (k[K_QID].present) {
		if (!k[K_QID].is_uint || k[K_QID].n > UINT32_MAX)
			return fail(err, len, "\"qid\" is not a queue id%s",
				    "");
		ev->qid = k[K_QID].n;
	}
	if (k[K_GANG].present) {
		if (!k[K_GANG].is_uint)
			return fail(err, len, "\"gang\" is not an unsigned "
				    "integer%s", "");
		ev->gang = k[K_GANG].n;
	}
	if (ev->ev == GP_REV_QUEUE && (!ev->pid || !ev->has_gpu ||
				       !k[K_QID].present))
		return fail(err, len, "a queue line needs \"pid\", \"qid\" "
			    "and \"gpu\"%s", "");
	return 1;
}
