// SPDX-License-Identifier: GPL-2.0
/* The backend interface's dispatch (backend.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

struct gp_backend *gp_bk_claim(const struct gp_bk_set *set, pid_t pid)
{
	for (int i = 0; i < set->n; i++)
		if (set->b[i]->ops->claims(set->b[i], pid))
			return set->b[i];
	return NULL;
}

struct gp_backend *gp_bk_named(const struct gp_bk_set *set,
			       const char *name)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->b[i]->ops->name, name))
			return set->b[i];
	return NULL;
}

int gp_bk_open(struct gp_backend *b, struct gp_err *e)
{
	if (b->opened)
		return 0;
	if (b->ops->open && b->ops->open(b, e))
		return -1;
	b->opened = true;
	return 0;
}

void gp_bk_set_close(struct gp_bk_set *set)
{
	for (int i = 0; i < set->n; i++) {
		if (set->b[i]->opened && set->b[i]->ops->close)
			set->b[i]->ops->close(set->b[i]);
		set->b[i]->opened = false;
	}
}

const char *gp_bk_name(const struct gp_bproc *p)
{
	return p->b->ops->name;
}

const char *gp_bk_state_name(enum gp_bk_state s)
{
	static const char *const n[] = { "running", "locking", "suspended",
					 "gone" };

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

struct gp_bproc *gp_bk_attach(struct gp_backend *b, pid_t pid,
			      struct gp_bproc **pending, struct gp_err *e)
{
	if (pending)
		*pending = NULL;
	if (gp_bk_open(b, e))
		return NULL;
	return b->ops->attach(b, pid, pending, e);
}

int gp_bk_release(struct gp_bproc *p)
{
	return p->b->ops->release(p);
}

int gp_bk_release_poll(struct gp_bproc *p)
{
	return p->b->ops->release_poll(p);
}

void gp_bk_free(struct gp_bproc *p)
{
	if (p)
		p->b->ops->free(p);
}

int gp_bk_suspend(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		  uint32_t grace, struct session_op *op, struct gp_err *e)
{
	return p->b->ops->suspend(p, ids, n, grace, op, e);
}

int gp_bk_resume(struct gp_bproc *p, const uint32_t *ids, uint32_t n,
		 struct session_op *op, struct gp_err *e)
{
	return p->b->ops->resume(p, ids, n, op, e);
}

bool gp_bk_take_done(struct gp_bproc *p, struct gp_bk_done *out)
{
	return p->b->ops->take_done && p->b->ops->take_done(p, out);
}

int gp_bk_event_fd(const struct gp_bproc *p)
{
	return p->b->ops->event_fd(p);
}

int gp_bk_handle(struct gp_bproc *p, struct gp_err *e)
{
	return p->b->ops->handle(p, e);
}

enum gp_bk_state gp_bk_state(const struct gp_bproc *p)
{
	return p->b->ops->state(p);
}

bool gp_bk_alive(const struct gp_bproc *p)
{
	return gp_bk_state(p) != GP_BK_GONE;
}

uint32_t gp_bk_runtime(const struct gp_bproc *p)
{
	return p->b->ops->runtime(p);
}

uint32_t gp_bk_held(const struct gp_bproc *p)
{
	return p->b->ops->held(p);
}

uint32_t gp_bk_nqueues(const struct gp_bproc *p)
{
	return p->b->ops->nqueues ? p->b->ops->nqueues(p) : 0;
}

int gp_bk_where(const struct gp_bproc *p, struct gp_bk_where *w, int max)
{
	return p->b->ops->where ? p->b->ops->where(p, w, max) : -1;
}

const char *gp_bk_if_holder_dies(const struct gp_bproc *p)
{
	return p->b->ops->if_holder_dies;
}

int gp_bk_gpus_text(const struct gp_bproc *p, char *buf, size_t len)
{
	struct gp_bk_where w[GP_BK_MAX_WHERE];
	size_t off = 0;
	int n, i;

	if (!len)
		return -1;
	buf[0] = 0;
	n = gp_bk_where(p, w, GP_BK_MAX_WHERE);
	for (i = 0; i < n && off + 1 < len; i++) {
		char one[GP_BK_UUID_LEN];

		if (w[i].uuid[0])
			snprintf(one, sizeof(one), "%s", w[i].uuid);
		else
			snprintf(one, sizeof(one), "0x%x", w[i].gpu_id);
		if (strstr(buf, one))
			continue;	/* a GPU of several queues */
		off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
				one);
	}
	if (off >= len)
		buf[len - 1] = 0;
	return n;
}
