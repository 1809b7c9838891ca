// SPDX-License-Identifier: GPL-2.0
/* What a module may read or change of the daemon's structs, through
 * daemon_host.h (the structs stay private: daemon_int.h). */
#include "daemon_int.h"

uid_t client_uid(const struct client *c)
{
	return c->uid;
}

pid_t client_pid(const struct client *c)
{
	return c->pid;
}

bool client_admin(const struct client *c)
{
	return c->admin;
}

void client_defer_drop(struct client *c)
{
	c->deferred = false;
}

bool daemon_verbose(const struct daemon *d)
{
	return d->o->verbose;
}

uint64_t daemon_max_hold_ns(const struct daemon *d)
{
	return d->max_hold_ns;
}

uint64_t target_held_since(const struct target *t)
{
	return t->held_since;
}

void hold_rebound(struct daemon *d, struct target *t)
{
	if (t->held_since)
		t->deadline = t->held_since + d->max_hold_ns;
}

pid_t target_pid(const struct target *t)
{
	return t->pid;
}

struct gp_bproc *target_proc(const struct target *t)
{
	return t->p;
}

void target_op_pending(struct target *t, target_done_fn done, uint64_t tag,
		       uint64_t req_ns)
{
	t->op_done = done;
	t->op_client = NULL;
	t->op_for_ns = tag;
	t->op_req_ns = req_ns;
}

uint64_t target_op_tag(const struct target *t)
{
	return t->op_for_ns;
}

uint64_t target_op_req_ns(const struct target *t)
{
	return t->op_req_ns;
}

struct gp_backend *daemon_backend(struct daemon *d, const char *name)
{
	return gp_bk_named(&d->bk, name);
}
