// SPDX-License-Identifier: GPL-2.0
/* The KFD backend: the debug-trap session behind backend.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bk_kfd.h"
#include "session.h"

struct kproc {
	struct gp_bproc base;	/* first: a gp_bproc * is a kproc * */
	struct session *s;
};

static const struct gp_bk_ops kfd_ops;

static struct kproc *kp(const struct gp_bproc *p)
{
	return (struct kproc *)p;
}

static int kfd_bk_open(struct gp_backend *b, struct gp_err *e)
{
	struct kfd *k = b->priv;

	if (k->fd >= 0)
		return 0;
	return kfd_open_debug(k, e);
}

static void kfd_bk_close(struct gp_backend *b)
{
	/* the owner's struct kfd: closed by the owner */
}

static bool kfd_bk_claims(struct gp_backend *b, pid_t pid)
{
	/* sysfs: kernfs attributes, no lock of the target's (session.h) */
	return session_has_kfd_process(pid);
}

struct gp_bproc *gp_bk_kfd_wrap(struct gp_backend *b, struct session *s)
{
	struct kproc *p;

	if (!s || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->base.b = b;
	p->base.pid = session_pid(s);
	p->s = s;
	return &p->base;
}

struct session *gp_bk_kfd_session(const struct gp_bproc *p)
{
	return p && p->b->ops == &kfd_ops ? kp(p)->s : NULL;
}

static struct gp_bproc *kfd_bk_attach(struct gp_backend *b, pid_t pid,
				      struct gp_bproc **pending,
				      struct gp_err *e)
{
	struct session *s, *left = NULL;
	struct gp_bproc *p;

	s = session_open(b->priv, pid, pending ? &left : NULL, e);
	if (!s) {
		if (left && !(*pending = gp_bk_kfd_wrap(b, left)))
			session_close(left);
		return NULL;
	}
	p = gp_bk_kfd_wrap(b, s);
	if (!p) {
		session_close(s);
		gp_err_set(e, 1, ENOMEM, "out of memory");
	}
	return p;
}

static int kfd_bk_release(struct gp_bproc *p)
{
	return session_release(kp(p)->s);
}

static int kfd_bk_release_poll(struct gp_bproc *p)
{
	return session_detach_poll(kp(p)->s);
}

static void kfd_bk_free(struct gp_bproc *p)
{
	session_free(kp(p)->s);
	free(p);
}

static int kfd_bk_suspend(struct gp_bproc *p, const uint32_t *ids,
			  uint32_t n, uint32_t grace, struct session_op *op,
			  struct gp_err *e)
{
	return session_suspend(kp(p)->s, ids, n, grace, op, e);
}

static int kfd_bk_resume(struct gp_bproc *p, const uint32_t *ids,
			 uint32_t n, struct session_op *op, struct gp_err *e)
{
	return session_resume(kp(p)->s, ids, n, op, e);
}

static int kfd_bk_event_fd(const struct gp_bproc *p)
{
	return session_event_fd(kp(p)->s);
}

static int kfd_bk_handle(struct gp_bproc *p, struct gp_err *e)
{
	struct session *s = kp(p)->s;

	session_handle_event(s, e);
	return session_handle_wait(s) || !session_alive(s);
}

static enum gp_bk_state kfd_bk_state(const struct gp_bproc *p)
{
	const struct session *s = kp(p)->s;

	if (!session_alive(s))
		return GP_BK_GONE;
	return session_suspended_count(s) ? GP_BK_SUSPENDED : GP_BK_RUNNING;
}

static uint32_t kfd_bk_runtime(const struct gp_bproc *p)
{
	return session_runtime_state(kp(p)->s);
}

static uint32_t kfd_bk_held(const struct gp_bproc *p)
{
	return session_suspended_count(kp(p)->s);
}

static uint32_t kfd_bk_nqueues(const struct gp_bproc *p)
{
	uint32_t n = 0;

	session_queues(kp(p)->s, &n);
	return n;
}

static int kfd_bk_where(const struct gp_bproc *p, struct gp_bk_where *w,
			int max)
{
	const struct kfd_queue_snapshot_entry *q;
	uint32_t n = 0;
	int k = 0;

	q = session_queues(kp(p)->s, &n);
	for (uint32_t i = 0; q && i < n && k < max; i++, k++)
		w[k] = (struct gp_bk_where){ .gpu_id = q[i].gpu_id,
			.queue_id = q[i].queue_id, .type = q[i].queue_type };
	return k;
}

static const struct gp_bk_ops kfd_ops = {
	.name = "kfd",
	/* the kernel's mm-release notifier of the holder DISABLEs debug on
	 * every target, which resumes their queues (session.h) */
	.if_holder_dies = "KFD disables debug on the holder's exit (its mm "
			  "release), which resumes every queue it suspended",
	.has_queues = true,
	.open = kfd_bk_open,
	.close = kfd_bk_close,
	.claims = kfd_bk_claims,
	.attach = kfd_bk_attach,
	.release = kfd_bk_release,
	.release_poll = kfd_bk_release_poll,
	.free = kfd_bk_free,
	.suspend = kfd_bk_suspend,
	.resume = kfd_bk_resume,
	.event_fd = kfd_bk_event_fd,
	.handle = kfd_bk_handle,
	.state = kfd_bk_state,
	.runtime = kfd_bk_runtime,
	.held = kfd_bk_held,
	.nqueues = kfd_bk_nqueues,
	.where = kfd_bk_where,
};

struct gp_backend *gp_bk_kfd_new(struct kfd *k)
{
	struct gp_backend *b = calloc(1, sizeof(*b));

	if (b) {
		b->ops = &kfd_ops;
		b->priv = k;
		/* the owner may have opened it already */
		b->opened = k->fd >= 0;
	}
	return b;
}

void gp_bk_kfd_destroy(struct gp_backend *b)
{
	free(b);
}
