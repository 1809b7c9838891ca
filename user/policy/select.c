// SPDX-License-Identifier: GPL-2.0
/* Selectors and the classifier for the arbiter's classes (select.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "procfs.h"
#include "select.h"
#include "text.h"
#include "util.h"

static const struct {
	const char *key;
	enum gp_sel_kind kind;
} keys[] = {
	{ "pid", GP_SEL_PID }, { "comm", GP_SEL_COMM },
	{ "cmdline", GP_SEL_CMDLINE }, { "cgroup", GP_SEL_CGROUP },
	{ "uid", GP_SEL_UID },
};

static int cond_parse(const char *s, struct gp_cond *sel, char *err,
		      size_t len)
{
	const char *eq = strchr(s, '=');
	const char *v = eq ? eq + 1 : NULL;
	size_t i, klen = eq ? (size_t)(eq - s) : 0;

	memset(sel, 0, sizeof(*sel));
	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == klen && !strncmp(s, keys[i].key, klen))
			break;
	if (!eq || i == sizeof(keys) / sizeof(keys[0])) {
		snprintf(err, len, "unknown selector '%s': use pid=N, comm=NAME, "
			 "cmdline=SUBSTRING, cgroup=PATH or uid=N", s);
		return -EINVAL;
	}
	sel->kind = keys[i].kind;
	if (!*v) {
		snprintf(err, len, "selector '%s' has an empty value", s);
		return -EINVAL;
	}
	if (strlen(v) >= GP_SEL_STR) {
		snprintf(err, len, "selector '%.*s...' is longer than %d "
			 "characters", 20, s, GP_SEL_STR - 1);
		return -EINVAL;
	}
	switch (sel->kind) {
	case GP_SEL_PID: {
		int pid;

		if (parse_pid(v, &pid)) {
			snprintf(err, len, "selector '%s': not a pid", s);
			return -EINVAL;
		}
		sel->num = pid;
		return 0;
	}
	case GP_SEL_UID: {
		uint32_t uid;

		if (parse_u32(v, &uid) || uid == (uint32_t)-1) {
			snprintf(err, len, "selector '%s': not a uid", s);
			return -EINVAL;
		}
		sel->num = uid;
		return 0;
	}
	case GP_SEL_COMM:
		if (strlen(v) > 15) {
			snprintf(err, len, "selector '%s': comm is at most 15 "
				 "characters (the kernel cuts it); use "
				 "cmdline=SUBSTRING", s);
			return -EINVAL;
		}
		break;
	case GP_SEL_CGROUP:
		if (v[0] != '/') {
			snprintf(err, len, "selector '%s': a cgroup path starts "
				 "with '/', as in /proc/PID/cgroup", s);
			return -EINVAL;
		}
		break;
	case GP_SEL_CMDLINE:
		break;
	}
	snprintf(sel->str, sizeof(sel->str), "%s", v);
	/* "/a/b/" and "/a/b" name the same cgroup. */
	if (sel->kind == GP_SEL_CGROUP) {
		size_t n = strlen(sel->str);

		while (n > 1 && sel->str[n - 1] == '/')
			sel->str[--n] = 0;
	}
	return 0;
}

int gp_sel_parse(const char *s, struct gp_sel *sel, char *err, size_t len)
{
	char buf[GP_SEL_STR + 16], *w, *save = NULL;
	int r;

	memset(sel, 0, sizeof(*sel));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "selector '%.*s...' is longer than %zu "
			 "characters", 20, s, sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	snprintf(sel->spec, sizeof(sel->spec), "%s", s);
	sel->spoofable = true;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (sel->n == GP_SEL_CONDS) {
			snprintf(err, len, "selector '%s': more than %d "
				 "conditions", s, GP_SEL_CONDS);
			return -EINVAL;
		}
		r = cond_parse(w, &sel->c[sel->n], err, len);
		if (r)
			return r;
		if (sel->c[sel->n].kind != GP_SEL_COMM &&
		    sel->c[sel->n].kind != GP_SEL_CMDLINE)
			sel->spoofable = false;
		sel->n++;
	}
	if (!sel->n) {
		snprintf(err, len, "selector '%s' has no condition", s);
		return -EINVAL;
	}
	return 0;
}

static bool cond_match(const struct gp_cond *sel, const struct gp_proc_desc *d)
{
	switch (sel->kind) {
	case GP_SEL_PID:
		return d->pid == sel->num;
	case GP_SEL_UID:
		return (long)d->uid == sel->num;
	case GP_SEL_COMM:
		return !strcmp(d->comm, sel->str);
	case GP_SEL_CMDLINE:
		return strstr(d->cmdline, sel->str) != NULL;
	case GP_SEL_CGROUP:
		return d->cgroup[0] && procfs_cgroup_under(d->cgroup, sel->str);
	}
	return false;
}

bool gp_sel_match(const struct gp_sel *sel, const struct gp_proc_desc *d)
{
	int i;

	for (i = 0; i < sel->n; i++)
		if (!cond_match(&sel->c[i], d))
			return false;
	return sel->n > 0;
}

int gp_classifier_add(struct gp_classifier *c, enum gp_pclass cls,
		      const char *spec, char *err, size_t len)
{
	int *n = cls == GP_CLASS_ONLINE ? &c->n_online : &c->n_offline;
	struct gp_sel *tab = cls == GP_CLASS_ONLINE ? c->online : c->offline;
	int ret;

	if (cls == GP_CLASS_NONE)
		return -EINVAL;
	if (*n == GP_SEL_MAX) {
		snprintf(err, len, "more than %d --%s selectors", GP_SEL_MAX,
			 gp_pclass_name(cls));
		return -ENOSPC;
	}
	ret = gp_sel_parse(spec, &tab[*n], err, len);
	if (!ret)
		(*n)++;
	return ret;
}

int gp_classifier_set(struct gp_classifier *c, const struct gp_proc_desc *d,
		      enum gp_pclass cls, bool bounded)
{
	int i, mine = 0;

	for (i = 0; i < c->n_over; i++) {
		if (c->over[i].pid == d->pid && c->over[i].start == d->start) {
			c->over[i].cls = cls;
			return 0;
		}
		mine += c->over[i].uid == d->uid;
	}
	/* The same pid, another process: the old one has gone. */
	gp_classifier_forget(c, d->pid);
	if (bounded && mine >= GP_OVERRIDE_PER_UID)
		return -EDQUOT;
	if (c->n_over == GP_OVERRIDE_MAX)
		return -ENOSPC;
	c->over[c->n_over].pid = d->pid;
	c->over[c->n_over].start = d->start;
	c->over[c->n_over].uid = d->uid;
	c->over[c->n_over++].cls = cls;
	return 0;
}

const struct gp_sel *gp_classifier_spoofable(const struct gp_classifier *c,
					     enum gp_pclass cls)
{
	const struct gp_sel *tab = cls == GP_CLASS_ONLINE ? c->online :
				   c->offline;
	int i, n = cls == GP_CLASS_ONLINE ? c->n_online : c->n_offline;

	for (i = 0; i < n; i++)
		if (tab[i].spoofable)
			return &tab[i];
	return NULL;
}

void gp_classifier_forget(struct gp_classifier *c, int pid)
{
	int i;

	for (i = 0; i < c->n_over; i++)
		if (c->over[i].pid == pid) {
			c->over[i] = c->over[--c->n_over];
			return;
		}
}

/* The first selector matching d, one the process cannot spoof first. */
static const struct gp_sel *first_match(const struct gp_sel *tab, int n,
					const struct gp_proc_desc *d)
{
	const struct gp_sel *spoofable = NULL;
	int i;

	for (i = 0; i < n; i++)
		if (gp_sel_match(&tab[i], d)) {
			if (!tab[i].spoofable)
				return &tab[i];
			if (!spoofable)
				spoofable = &tab[i];
		}
	return spoofable;
}

int gp_classify(const struct gp_classifier *c, const struct gp_proc_desc *d,
		enum gp_pclass *cls, char *err, size_t len)
{
	const struct gp_sel *on, *off;
	int i;

	for (i = 0; i < c->n_over; i++)
		if (c->over[i].pid == d->pid && c->over[i].start == d->start) {
			*cls = c->over[i].cls;
			return 0;
		}
	on = first_match(c->online, c->n_online, d);
	off = first_match(c->offline, c->n_offline, d);
	/* Online only by what the process says of itself (its comm, its
	 * argv) does not get it out of offline. */
	if (on && off && on->spoofable) {
		*cls = GP_CLASS_OFFLINE;
		return 0;
	}
	if (on && off) {
		char comm[sizeof(d->comm)];

		snprintf(err, len, "pid %d (%s) matches both --online %s and "
			 "--offline %s: make the selectors disjoint or "
			 "classify it by pid", d->pid,
			 gp_text_safe(comm, sizeof(comm), d->comm,
				      sizeof(d->comm)), on->spec, off->spec);
		return -EEXIST;
	}
	*cls = on ? GP_CLASS_ONLINE : off ? GP_CLASS_OFFLINE : GP_CLASS_NONE;
	return 0;
}

const char *gp_pclass_name(enum gp_pclass c)
{
	return c == GP_CLASS_ONLINE ? "online" :
	       c == GP_CLASS_OFFLINE ? "offline" : "none";
}

int gp_pclass_parse(const char *s, enum gp_pclass *c)
{
	if (!strcmp(s, "online"))
		*c = GP_CLASS_ONLINE;
	else if (!strcmp(s, "offline"))
		*c = GP_CLASS_OFFLINE;
	else if (!strcmp(s, "none"))
		*c = GP_CLASS_NONE;
	else
		return -EINVAL;
	return 0;
}
