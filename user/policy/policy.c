// SPDX-License-Identifier: GPL-2.0
/* The arbitration policy's state machine (see policy.h for the rules). */
#include <errno.h>
#include <string.h>

#include "policy.h"

void gp_policy_init(struct gp_policy *p, const struct gp_policy_cfg *c,
		    uint64_t now)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *c;
	p->start = p->win_start = p->now = now;
	p->state = GP_PS_IDLE;
}

static void push(struct gp_pactions *out, enum gp_pop op, int pid,
		 enum gp_pcause cause)
{
	/* Sized for a resume and a suspend of every offline process. */
	if (out->n < GP_POLICY_MAX_ACTIONS)
		out->a[out->n++] = (struct gp_paction){ op, pid, cause };
}

static bool offline_should_be_suspended(const struct gp_policy *p)
{
	return p->state == GP_PS_BUSY || p->state == GP_PS_LINGER;
}

static bool accruing(const struct gp_policy *p)
{
	int i;

	if (!offline_should_be_suspended(p))
		return false;
	for (i = 0; i < p->n_off; i++)
		if (p->off[i].suspended)
			return true;
	return false;
}

/* Counts offline's suspended time in the window up to t. */
static void acct(struct gp_policy *p, uint64_t t)
{
	if (t > p->susp_mark && accruing(p))
		p->win_susp_ns += t - p->susp_mark;
	if (t > p->susp_mark)
		p->susp_mark = t;
}

static uint64_t budget_ns(const struct gp_policy *p)
{
	return p->cfg.window_ns * (100 - p->cfg.min_offline_share) / 100;
}

static bool budget_spent(const struct gp_policy *p)
{
	return p->cfg.min_offline_share && p->win_susp_ns >= budget_ns(p);
}

static void suspend_one(struct gp_policy *p, struct gp_poffline *o,
			uint64_t t, enum gp_pcause cause,
			struct gp_pactions *out)
{
	if (o->suspended || o->held_out || o->released)
		return;
	o->suspended = true;
	o->since = t;
	o->suspends++;
	p->st.suspends++;
	push(out, GP_POP_SUSPEND, o->pid, cause);
}

static void resume_one(struct gp_policy *p, struct gp_poffline *o,
		       uint64_t t, enum gp_pcause cause,
		       struct gp_pactions *out)
{
	if (!o->suspended)
		return;
	o->suspended = false;
	o->suspended_ns += t - o->since;
	o->resumes++;
	p->st.resumes++;
	push(out, GP_POP_RESUME, o->pid, cause);
}

static void suspend_all(struct gp_policy *p, uint64_t t,
			enum gp_pcause cause, struct gp_pactions *out)
{
	int i;

	for (i = 0; i < p->n_off; i++)
		suspend_one(p, &p->off[i], t, cause, out);
}

static void resume_all(struct gp_policy *p, uint64_t t,
		       enum gp_pcause cause, struct gp_pactions *out)
{
	int i;

	for (i = 0; i < p->n_off; i++)
		resume_one(p, &p->off[i], t, cause, out);
}

/* Online went idle -> busy at t (state IDLE or LINGER). */
static void go_busy(struct gp_policy *p, uint64_t t, struct gp_pactions *out)
{
	/* The edge an admin's resume lasts until (offline_released). */
	for (int i = 0; i < p->n_off; i++)
		p->off[i].released = false;
	p->st.busy_periods++;
	p->busy_since = t;
	if (p->state == GP_PS_LINGER) {
		/* Offline is still suspended: no toggle at all. */
		p->st.cancelled_resumes++;
		p->state = GP_PS_BUSY;
		suspend_all(p, t, GP_CAUSE_BUSY, out);
		return;
	}
	if (budget_spent(p)) {
		/* Offline keeps the rest of this window. */
		p->state = GP_PS_BUDGET;
		return;
	}
	p->state = GP_PS_BUSY;
	suspend_all(p, t, GP_CAUSE_BUSY, out);
}

/* Online went busy -> idle at t. */
static void go_idle(struct gp_policy *p, uint64_t t, struct gp_pactions *out)
{
	if (p->state == GP_PS_BUDGET) {
		p->state = GP_PS_IDLE;
		return;
	}
	p->state = GP_PS_LINGER;
	p->idle_since = t;
	if (!p->cfg.resume_after_ns) {
		resume_all(p, t, GP_CAUSE_IDLE, out);
		p->state = GP_PS_IDLE;
	}
}

static bool any_held_out(const struct gp_policy *p)
{
	int i;

	for (i = 0; i < p->n_off; i++)
		if (p->off[i].held_out)
			return true;
	return false;
}

enum dl { DL_NONE, DL_LINGER, DL_BUDGET, DL_WINDOW, DL_HOLD, DL_BUSY };

/* The earliest deadline; with all=true also the window end that only
 * resets the accounting (advance() needs it, the timer does not). */
static uint64_t deadline(const struct gp_policy *p, bool all, enum dl *what,
			 int *idx)
{
	uint64_t d = GP_POLICY_NO_DEADLINE, w = p->win_start + p->cfg.window_ns;
	int i;

	*what = DL_NONE;
	if (p->state == GP_PS_LINGER &&
	    p->idle_since + p->cfg.resume_after_ns < d) {
		d = p->idle_since + p->cfg.resume_after_ns;
		*what = DL_LINGER;
	}
	if (p->cfg.min_offline_share && accruing(p)) {
		uint64_t b = budget_ns(p), used = p->win_susp_ns;
		uint64_t t = p->susp_mark + (used < b ? b - used : 0);

		if (t < d) {
			d = t;
			*what = DL_BUDGET;
		}
	}
	if ((all || p->state == GP_PS_BUDGET || any_held_out(p)) && w <= d) {
		d = w;
		*what = DL_WINDOW;
	}
	for (i = 0; p->cfg.max_hold_ns && i < p->n_off; i++) {
		const struct gp_poffline *o = &p->off[i];

		if (o->suspended && o->since + p->cfg.max_hold_ns < d) {
			d = o->since + p->cfg.max_hold_ns;
			*what = DL_HOLD;
			*idx = i;
		}
	}
	for (i = 0; p->cfg.busy_max_ns && i < p->n_busy; i++) {
		const struct gp_pbusy *b = &p->busy[i];

		if (b->seen + p->cfg.busy_max_ns < d) {
			d = b->seen + p->cfg.busy_max_ns;
			*what = DL_BUSY;
			*idx = i;
		}
	}
	return d;
}

uint64_t gp_policy_next_deadline(const struct gp_policy *p)
{
	enum dl what;
	int idx;

	return deadline(p, false, &what, &idx);
}

static void new_window(struct gp_policy *p, uint64_t t, uint64_t now,
		       struct gp_pactions *out)
{
	int i;

	p->win_start = t;
	p->win_susp_ns = 0;
	for (i = 0; i < p->n_off; i++)
		p->off[i].held_out = false;
	if (p->state == GP_PS_BUDGET || p->state == GP_PS_BUSY) {
		/* A share of 100% leaves no budget at all. */
		p->state = budget_spent(p) ? GP_PS_BUDGET : GP_PS_BUSY;
		if (p->state == GP_PS_BUSY)
			suspend_all(p, t, GP_CAUSE_WINDOW, out);
	} else if (!accruing(p) && now - t >= p->cfg.window_ns) {
		/* Nothing happens in idle windows: skip to now's. */
		p->win_start += (now - t) / p->cfg.window_ns *
				p->cfg.window_ns;
	}
}

/* Acts on every deadline up to now, each at its own time. */
static void advance(struct gp_policy *p, uint64_t now,
		    struct gp_pactions *out)
{
	enum dl what;
	uint64_t d;
	int idx = 0;

	if (now < p->now)
		now = p->now;	/* the clock never goes back */
	while ((d = deadline(p, true, &what, &idx)) <= now) {
		acct(p, d);
		switch (what) {
		case DL_LINGER:
			resume_all(p, d, GP_CAUSE_IDLE, out);
			p->state = GP_PS_IDLE;
			break;
		case DL_BUDGET:
			p->st.budget_resumes++;
			resume_all(p, d, GP_CAUSE_BUDGET, out);
			p->state = p->state == GP_PS_LINGER ? GP_PS_IDLE :
							      GP_PS_BUDGET;
			break;
		case DL_WINDOW:
			new_window(p, d, now, out);
			break;
		case DL_HOLD:
			p->st.max_hold_resumes++;
			resume_one(p, &p->off[idx], d, GP_CAUSE_MAX_HOLD, out);
			p->off[idx].held_out = true;
			break;
		case DL_BUSY:
			/* neither renewed nor confirmed: it ends, whole */
			p->st.busy_expired++;
			p->busy[idx] = p->busy[--p->n_busy];
			if (!p->n_busy) {
				p->now = d;
				go_idle(p, d, out);
			}
			break;
		case DL_NONE:
			return;
		}
	}
	acct(p, now);
	p->now = now;
}

void gp_policy_tick(struct gp_policy *p, uint64_t now,
		    struct gp_pactions *out)
{
	advance(p, now, out);
}

void gp_policy_reconfigure(struct gp_policy *p, uint64_t now,
			   const struct gp_policy_cfg *c,
			   struct gp_pactions *out)
{
	bool window = c->window_ns != p->cfg.window_ns ||
		      c->min_offline_share != p->cfg.min_offline_share;

	advance(p, now, out);
	p->cfg = *c;
	/* Old windows' accounting means nothing under a new budget. */
	if (window)
		new_window(p, p->now, p->now, out);
	advance(p, now, out);
}

static struct gp_pbusy *find_busy(struct gp_policy *p, uint64_t src, int pid)
{
	int i;

	for (i = 0; i < p->n_busy; i++)
		if (p->busy[i].src == src && p->busy[i].pid == pid)
			return &p->busy[i];
	return NULL;
}

int gp_policy_busy(struct gp_policy *p, uint64_t now, uint64_t src,
		   int pid, struct gp_pactions *out)
{
	struct gp_pbusy *b;

	advance(p, now, out);
	b = find_busy(p, src, pid);
	if (!b) {
		if (p->n_busy == GP_POLICY_MAX_BUSY)
			return -ENOSPC;
		b = &p->busy[p->n_busy++];
		*b = (struct gp_pbusy){ .src = src, .pid = pid };
		if (p->n_busy == 1)
			go_busy(p, p->now, out);
	}
	b->count++;
	b->seen = p->now;
	return 0;
}

void gp_policy_activity(struct gp_policy *p, uint64_t now, int pid,
			struct gp_pactions *out)
{
	int i;

	advance(p, now, out);
	for (i = 0; i < p->n_busy; i++)
		if (p->busy[i].pid == pid)
			p->busy[i].seen = p->now;
}

/* Drops busy entries matching (src or pid); idle when none is left. */
static int drop_busy(struct gp_policy *p, bool by_src, uint64_t src, int pid,
		     struct gp_pactions *out)
{
	int i, n = 0;

	for (i = 0; i < p->n_busy;) {
		struct gp_pbusy *b = &p->busy[i];

		if (by_src ? b->src == src : b->pid == pid) {
			*b = p->busy[--p->n_busy];
			n++;
		} else {
			i++;
		}
	}
	if (n && !p->n_busy)
		go_idle(p, p->now, out);
	return n;
}

int gp_policy_idle(struct gp_policy *p, uint64_t now, uint64_t src,
		   int pid, struct gp_pactions *out)
{
	struct gp_pbusy *b;

	advance(p, now, out);
	b = find_busy(p, src, pid);
	if (!b)
		return -EALREADY;
	if (--b->count)
		return 0;
	*b = p->busy[--p->n_busy];
	if (!p->n_busy)
		go_idle(p, p->now, out);
	return 0;
}

void gp_policy_source_closed(struct gp_policy *p, uint64_t now,
			     uint64_t src, struct gp_pactions *out)
{
	advance(p, now, out);
	drop_busy(p, true, src, 0, out);
}

void gp_policy_online_gone(struct gp_policy *p, uint64_t now, int pid,
			   struct gp_pactions *out)
{
	advance(p, now, out);
	drop_busy(p, false, 0, pid, out);
}

static struct gp_poffline *find_off(struct gp_policy *p, int pid)
{
	int i;

	for (i = 0; i < p->n_off; i++)
		if (p->off[i].pid == pid)
			return &p->off[i];
	return NULL;
}

int gp_policy_offline_attached(struct gp_policy *p, uint64_t now, int pid,
			       struct gp_pactions *out)
{
	struct gp_poffline *o;

	advance(p, now, out);
	if (find_off(p, pid))
		return -EEXIST;
	if (p->n_off == GP_POLICY_MAX_OFFLINE)
		return -ENOSPC;
	o = &p->off[p->n_off++];
	*o = (struct gp_poffline){ .pid = pid, .attached_at = p->now };
	if (p->state == GP_PS_BUSY)
		suspend_one(p, o, p->now, GP_CAUSE_ATTACHED, out);
	return 0;
}

void gp_policy_offline_gone(struct gp_policy *p, uint64_t now, int pid,
			    struct gp_pactions *out)
{
	struct gp_poffline *o;

	advance(p, now, out);
	o = find_off(p, pid);
	if (!o)
		return;
	resume_one(p, o, p->now, GP_CAUSE_DETACH, out);
	acct(p, p->now);
	*o = p->off[--p->n_off];
}

int gp_policy_offline_released(struct gp_policy *p, uint64_t now, int pid)
{
	struct gp_poffline *o = find_off(p, pid);

	if (!o)
		return -ENOENT;
	/* as gp_policy_failed: no advance, the caller ticks at its deadline */
	if (now < p->now)
		now = p->now;
	o->released = true;
	if (o->suspended) {
		acct(p, now);
		o->suspended = false;
		o->suspended_ns += now - o->since;
		o->resumes++;
		p->st.resumes++;
	}
	return 0;
}

void gp_policy_failed(struct gp_policy *p, uint64_t now, int pid,
		      enum gp_pop op)
{
	struct gp_poffline *o = find_off(p, pid);

	p->st.failures++;
	if (!o)
		return;
	o->failures++;
	if (op == GP_POP_SUSPEND && o->suspended) {
		acct(p, now > p->now ? now : p->now);
		o->suspended = false;
		/* No retry before the next window: a bounded retry rate. */
		o->held_out = true;
	}
}
