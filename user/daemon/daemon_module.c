// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of modules (daemon_module.h) and the calls the daemon's
 * other files make into it: one loop over the registered modules per
 * event, so no file of the daemon names a module.
 */
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "daemon_int.h"
#include "exitcodes.h"
#include "util.h"

static const struct gp_module *mods[DAEMON_MAX_MODULES];
static unsigned int n_mods;
/* The daemon parser's children: one per module, then the end. */
static struct argp_child children[DAEMON_MAX_MODULES + 1];

int daemon_module_add(const struct gp_module *m)
{
	unsigned int i;
	int r;

	for (i = 0; i < n_mods; i++)
		if (mods[i] == m)
			return 0;
	if (n_mods == DAEMON_MAX_MODULES)
		return -ENOSPC;
	r = dlimit_add_module(m);
	if (r)
		return r;
	mods[n_mods++] = m;
	return 0;
}

static int index_of(const struct gp_module *m)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i] == m)
			return i;
	return -1;
}

void *daemon_module_opts(const struct daemon *d, const struct gp_module *m)
{
	int i = index_of(m);

	return i < 0 ? NULL : d->cur.mod_opts[i];
}

void *daemon_module_data(const struct daemon *d, const struct gp_module *m)
{
	int i = index_of(m);

	return i < 0 ? NULL : d->mod_data[i];
}

void daemon_module_set_data(struct daemon *d, const struct gp_module *m,
			    void *data)
{
	int i = index_of(m);

	if (i >= 0)
		d->mod_data[i] = data;
}

int daemon_io_add(struct daemon *d, int fd,
		  void (*cb)(struct daemon *d, void *ud), void *ud)
{
	if (d->n_io == DAEMON_MAX_IO)
		return -ENOSPC;
	d->io[d->n_io++] = (struct daemon_io){ fd, cb, ud };
	return 0;
}

void daemon_io_remove(struct daemon *d, int fd)
{
	uint32_t i;

	for (i = 0; i < d->n_io; i++)
		if (d->io[i].fd == fd)
			d->io[i--] = d->io[--d->n_io];
}

const struct argp_child *dmod_argp_children(void)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		children[i] = (struct argp_child){ mods[i]->argp, 0,
						   mods[i]->argp_header, 0 };
	children[i] = (struct argp_child){ 0 };
	return children;
}

int dmod_opts_alloc(void **opts)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++) {
		opts[i] = calloc(1, mods[i]->opts_size ? mods[i]->opts_size : 1);
		if (!opts[i]) {
			dmod_opts_free(opts);
			return -ENOMEM;
		}
	}
	return 0;
}

void dmod_opts_free(void **opts)
{
	unsigned int i;

	for (i = 0; i < DAEMON_MAX_MODULES; i++) {
		free(opts[i]);
		opts[i] = NULL;
	}
}

int dmod_start(struct daemon *d, struct gp_err *e)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->start && mods[i]->start(d, e))
			return -1;
	return 0;
}

void dmod_stop(struct daemon *d)
{
	unsigned int i;

	for (i = n_mods; i-- > 0;)
		if (mods[i]->stop)
			mods[i]->stop(d);
}

void dmod_tick(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->tick)
			mods[i]->tick(d);
}

uint64_t dmod_deadline(const struct daemon *d)
{
	uint64_t first = 0, t;
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->deadline && (t = mods[i]->deadline(d)) &&
		    (!first || t < first))
			first = t;
	return first;
}

void dmod_client_closed(struct daemon *d, struct client *c)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->client_closed)
			mods[i]->client_closed(d, c);
}

bool dmod_keeps(const struct daemon *d, const struct client *c)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->keeps && mods[i]->keeps(d, c))
			return true;
	return false;
}

bool dmod_client_busy(const struct daemon *d, const struct client *c)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->client_busy && mods[i]->client_busy(d, c))
			return true;
	return false;
}

void dmod_target_gone(struct daemon *d, int pid)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->target_gone)
			mods[i]->target_gone(d, pid);
}

bool dmod_holds(const struct daemon *d, int pid, char *why, size_t len)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->holds && mods[i]->holds(d, pid, why, len))
			return true;
	return false;
}

void dmod_hold_released(struct daemon *d, int pid, enum gp_who who)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->hold_released)
			mods[i]->hold_released(d, pid, who);
}

void dmod_reload(struct daemon *d, const struct daemon_opts *n)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->reload && n->mod_opts[i])
			mods[i]->reload(d, n->mod_opts[i]);
}

void dmod_metrics(const struct daemon *d, struct prom_buf *b)
{
	unsigned int i;

	for (i = 0; i < n_mods; i++)
		if (mods[i]->metrics)
			mods[i]->metrics(d, b);
}

/* The verb a line starts with (its first word), or NULL. */
static const struct gp_verb *verb_of(const char *line, size_t len,
				     const struct gp_verb *v)
{
	size_t wl = 0;

	while (wl < len && line[wl] != ' ' && line[wl] != '\n')
		wl++;
	for (; v && v->name; v++)
		if (strlen(v->name) == wl && !memcmp(line, v->name, wl))
			return v;
	return NULL;
}

int dmod_request(struct daemon *d, struct client *c, const char *line,
		 size_t len)
{
	const struct gp_verb *v = NULL;
	struct gp_err e = {};
	unsigned int i;

	for (i = 0; i < n_mods && !v; i++)
		v = verb_of(line, len, mods[i]->verbs);
	if (!v)
		return 0;
	if (v->who == GP_WHO_ADMIN && !c->admin) {
		if (c->tenant_sock)
			gp_err_set(&e, GP_EXIT_PRIV, EPERM, "'%s' is for the "
				   "node's admin, and nobody is admin on the "
				   "tenant socket: use the admin socket %s as "
				   "root", v->name, d->path);
		else
			gp_err_set(&e, GP_EXIT_PRIV, EPERM, "uid %u may not use "
				   "'%s': it is for the node's root (an admin)",
				   c->uid, v->name);
		reply_err(c, &e);
		return 1;
	}
	/* Any tenant, not only the tenant socket's: a --group member on the
	 * admin socket could otherwise classify its own process online and
	 * take the GPU from every offline job with its busy. */
	if (v->who == GP_WHO_TENANT_OPT && !c->admin &&
	    !d->o->tenant_classify) {
		if (c->tenant_sock)
			gp_err_set(&e, GP_EXIT_PRIV, EPERM, "'%s' is not allowed "
				   "on the tenant socket: the daemon runs "
				   "without --tenant-classify", v->name);
		else
			gp_err_set(&e, GP_EXIT_PRIV, EPERM, "uid %u may not use "
				   "'%s': tenants may only with "
				   "--tenant-classify", c->uid, v->name);
		reply_err(c, &e);
		return 1;
	}
	v->handler(d, c, line, len);
	return 1;
}

void dmod_tenant_verbs(const struct daemon *d, char *buf, size_t len)
{
	const struct gp_verb *v;
	size_t at;
	unsigned int i;

	at = (size_t)snprintf(buf, len, "status");
	for (i = 0; i < n_mods; i++)
		for (v = mods[i]->verbs; v && v->name && at < len; v++)
			if (v->who == GP_WHO_TENANT ||
			    (v->who == GP_WHO_TENANT_OPT &&
			     d->o->tenant_classify))
				at += (size_t)snprintf(buf + at, len - at,
						       ", %s", v->name);
}
