// SPDX-License-Identifier: GPL-2.0
/*
 * kfd-exerciser command line: STEP[:KEY=VAL,...] -> struct step. All
 * steps are parsed before any runs, so bad usage changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ex.h"

static const char *const kind_names[] = {
	[ST_OPEN] = "open", [ST_CLOSE] = "close", [ST_VERSION] = "version",
	[ST_RT_ENABLE] = "runtime-enable", [ST_RT_DISABLE] = "runtime-disable",
	[ST_CREATE] = "create", [ST_DESTROY] = "destroy", [ST_SLEEP] = "sleep",
	[ST_READY] = "ready", [ST_WAIT] = "wait", [ST_SEIZE] = "seize",
	[ST_DBG] = "dbg", [ST_POLL] = "poll-event",
	[ST_DEBUG_TARGET] = "debug-target", [ST_EVENTS] = "events",
	[ST_UCONNECT] = "uconnect",
};

/* The key a bare value (no '=') stands for, per step. */
static const char *const bare_keys[] = {
	[ST_RT_ENABLE] = "r_debug", [ST_DESTROY] = "qid", [ST_SLEEP] = "ms",
	[ST_WAIT] = "ms", [ST_SEIZE] = "pid", [ST_POLL] = "ms",
};

#define NR_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))
#define NR_BARE (sizeof(bare_keys) / sizeof(bare_keys[0]))
static int bad(const char *step, const char *what, const char *val)
{
	fprintf(stderr, "kfd-exerciser: step '%s': %s '%s' (see --help)\n",
		step, what, val);
	return -1;
}

int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end || *v > max ? -1 : 0;
}

static int u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (parse_num(s, UINT32_MAX, &x))
		return -1;
	*v = x;
	return 0;
}

static int qid_list(const char *s, uint32_t *q, int *n)
{
	char buf[1024], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, "+", &save); tok;
	     tok = strtok_r(NULL, "+", &save)) {
		if (*n == EX_MAX_QIDS || u32(tok, &q[*n]))
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

static int queue_type(const char *s, uint32_t *t)
{
	static const char *const names[] = {
		[KFD_IOC_QUEUE_TYPE_COMPUTE] = "compute",
		[KFD_IOC_QUEUE_TYPE_SDMA] = "sdma",
		[KFD_IOC_QUEUE_TYPE_COMPUTE_AQL] = "aql",
		[KFD_IOC_QUEUE_TYPE_SDMA_XGMI] = "sdma-xgmi",
		[KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID] = "sdma-eng",
	};
	uint32_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*t = i;
			return 0;
		}
	}
	return u32(s, t);
}

static int ms_val(const char *s, long long *ms)
{
	uint64_t v;

	if (parse_num(s, INT32_MAX, &v))
		return -1;
	*ms = v;
	return 0;
}

static int bool_val(const char *s, bool *b)
{
	if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true"))
		*b = true;
	else if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false"))
		*b = false;
	else
		return -1;
	return 0;
}

static int set_kv(struct step *st, const char *k, const char *v)
{
	struct dbg_req *d = &st->dbg;
	struct dt_opts *o = &st->dt;
	uint64_t x;
	long long ms;

	switch (st->kind) {
	case ST_RT_ENABLE:
		if (!strcmp(k, "r_debug")) {
			st->r_debug_set = true;
			return parse_num(v, UINT64_MAX, &st->r_debug);
		}
		if (!strcmp(k, "mode"))
			return u32(v, &st->mode);
		break;
	case ST_CREATE:
		if (!strcmp(k, "gpu"))
			return u32(v, &st->gpu);
		if (!strcmp(k, "type"))
			return queue_type(v, &st->type);
		if (!strcmp(k, "prio"))
			return u32(v, &st->prio);
		if (!strcmp(k, "pct"))
			return u32(v, &st->pct);
		if (!strcmp(k, "ring"))
			return u32(v, &st->ring);
		if (!strcmp(k, "sdma"))
			return u32(v, &st->sdma);
		break;
	case ST_DESTROY:
		if (!strcmp(k, "qid")) {
			st->qid_set = true;
			return u32(v, &st->qid);
		}
		break;
	case ST_SLEEP:
	case ST_WAIT:
	case ST_POLL:
		if (!strcmp(k, "ms"))
			return ms_val(v, &st->ms);
		break;
	case ST_SEIZE:
	case ST_DBG:
		if (!strcmp(k, "pid")) {
			st->pid_set = true;
			if (strcmp(v, "self"))
				return u32(v, &d->pid);
			d->pid = getpid();
			return 0;
		}
		if (st->kind == ST_SEIZE)
			break;
		if (!strcmp(k, "op")) {
			st->op_set = true;
			return dbg_op_parse(v, &d->op);
		}
		if (!strcmp(k, "qids"))
			return qid_list(v, d->qids, &d->nq);
		if (!strcmp(k, "grace"))
			return u32(v, &d->grace);
		if (!strcmp(k, "mask")) {
			d->mask_set = true;
			return parse_num(v, UINT64_MAX, &d->mask);
		}
		if (!strcmp(k, "gpu"))
			return u32(v, &d->gpu);
		if (!strcmp(k, "qid"))
			return u32(v, &d->qid);
		if (!strcmp(k, "mode"))
			return u32(v, &d->mode);
		if (!strcmp(k, "n"))
			return u32(v, &d->n);
		if (!strcmp(k, "fd")) {
			st->fd_set = true;
			if (parse_num(v, INT32_MAX, &x))
				return -1;
			d->dbg_fd = x;
			return 0;
		}
		break;
	case ST_DEBUG_TARGET:
		if (!strcmp(k, "qids"))
			return qid_list(v, o->qids, &o->nq);
		if (!strcmp(k, "grace"))
			return u32(v, &o->grace);
		if (!strcmp(k, "order")) {
			if (strcmp(v, "before") && strcmp(v, "after"))
				return -1;
			o->before = !strcmp(v, "before");
			return 0;
		}
		if (!strcmp(k, "eperm"))
			return bool_val(v, &o->eperm);
		if (!strcmp(k, "dbgfd")) {
			if (strcmp(v, "pipe") && strcmp(v, "eventfd"))
				return -1;
			o->eventfd = !strcmp(v, "eventfd");
			return 0;
		}
		if (!strcmp(k, "r_debug")) {
			o->r_debug_set = true;
			return parse_num(v, UINT64_MAX, &o->r_debug);
		}
		if (!strcmp(k, "timeout") || !strcmp(k, "hold")) {
			if (ms_val(v, &ms))
				return -1;
			if (k[0] == 't')
				o->timeout_ms = ms;
			else
				o->hold_ms = ms;
			return 0;
		}
		break;
	case ST_EVENTS:
		if (!strcmp(k, "ms"))
			return ms_val(v, &st->ms);
		if (!strcmp(k, "set"))
			return bool_val(v, &st->set);
		break;
	default:
		break;
	}
	return -2;
}

int parse_step(const char *arg, struct step *st)
{
	char buf[1024], *params, *tok, *save, *eq;
	const char *key;
	size_t i;
	int ret;

	if (strlen(arg) >= sizeof(buf))
		return bad(arg, "too long", "");
	strcpy(buf, arg);
	params = strchr(buf, ':');
	if (params)
		*params++ = '\0';
	for (i = 0; i < NR_KINDS; i++)
		if (!strcmp(buf, kind_names[i]))
			break;
	if (i == NR_KINDS)
		return bad(arg, "unknown step", buf);

	memset(st, 0, sizeof(*st));
	st->kind = i;
	/*
	 * ROCr's own default, measured in the VM (docs/rocr.md): ENABLE
	 * only; TTMP_SAVE is added by HSA_ENABLE_DEBUG=1 (mode=3 here).
	 */
	st->mode = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK;
	st->type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	st->prio = 7;
	st->pct = 100;
	st->ring = 4096;
	st->ms = st->kind == ST_POLL ? 1000 : st->kind == ST_EVENTS ? 0 : -1;
	st->set = true;
	st->dbg.pid = getpid();
	st->dbg.dbg_fd = -1;
	st->dt.qids[0] = 7;
	st->dt.qids[1] = 1234;
	st->dt.nq = 2;
	st->dt.timeout_ms = 5000;

	if (st->kind == ST_READY || st->kind == ST_UCONNECT) {
		/* A path may hold ',' and '=': take the rest verbatim. */
		if (params && !strncmp(params, "file=", 5))
			params += 5;
		st->file = params && *params ? arg + (params - buf) : NULL;
		if (st->kind == ST_UCONNECT && !st->file)
			return bad(arg, "missing", "PATH");
		return 0;
	}
	if (params && !*params)
		return bad(arg, "empty parameter list after", ":");
	for (tok = params ? strtok_r(params, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq) {
			*eq = '\0';
			key = tok;
		} else {
			key = st->kind < NR_BARE ? bare_keys[st->kind] : NULL;
			if (!key)
				return bad(arg, "parameter needs KEY=VALUE",
					   tok);
		}
		ret = set_kv(st, key, eq ? eq + 1 : tok);
		if (ret == -2)
			return bad(arg, "unknown parameter", key);
		if (ret)
			return bad(arg, "bad value for", key);
	}
	if (st->kind == ST_DBG && !st->op_set)
		return bad(arg, "missing", "op=");
	if (st->kind == ST_SEIZE && !st->pid_set)
		return bad(arg, "missing", "pid=");
	if (st->kind == ST_SLEEP && st->ms < 0)
		return bad(arg, "missing", "MS");
	return 0;
}

