// SPDX-License-Identifier: GPL-2.0
/* Replay of an online activity trace through the policy (see replay.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "hist.h"
#include "json.h"

struct span {
	uint64_t a, b;
};

struct spans {
	size_t n, cap;
	struct span *v;
};

struct sim {
	const struct gp_replay_cfg *c;
	struct gp_replay_result *r;
	struct gp_policy p;
	uint64_t t0, chan_free, busy_from;
	uint64_t down_since[GP_POLICY_MAX_OFFLINE];
	struct spans ops, busy, down[GP_POLICY_MAX_OFFLINE];
};

static int spans_add(struct spans *s, uint64_t a, uint64_t b)
{
	if (b <= a)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct span){ a, b };
	return 0;
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* Length of the union of spans clamped to [lo, hi]; sorts s. */
static uint64_t clamp_len(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	a = a < lo ? lo : a;
	b = b > hi ? hi : b;
	return b > a ? b - a : 0;
}

static uint64_t union_len(struct spans *s, uint64_t lo, uint64_t hi)
{
	uint64_t sum = 0, ca, cb;
	size_t i;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_span);
	ca = s->v[0].a;
	cb = s->v[0].b;
	for (i = 1; i < s->n; i++) {
		if (s->v[i].a <= cb) {
			if (s->v[i].b > cb)
				cb = s->v[i].b;
			continue;
		}
		sum += clamp_len(ca, cb, lo, hi);
		ca = s->v[i].a;
		cb = s->v[i].b;
	}
	return sum + clamp_len(ca, cb, lo, hi);
}

/* Executes the policy's actions issued at t on the serial KFD channel. */
static int run_actions(struct sim *s, uint64_t t, struct gp_pactions *a)
{
	bool susp = false, res = false;
	int i, k;

	for (i = 0; i < a->n; i++) {
		const struct gp_paction *x = &a->a[i];
		bool is_s = x->op == GP_POP_SUSPEND;
		uint64_t start = t > s->chan_free ? t : s->chan_free;
		uint64_t end = start + (is_s ? s->c->suspend_cost_ns :
					      s->c->resume_cost_ns);

		k = x->pid - 1;		/* offline pids are 1..n */
		if (k < 0 || k >= s->c->n_offline)
			continue;
		s->chan_free = end;
		if (spans_add(&s->ops, start, end))
			return -ENOMEM;
		if (is_s) {
			s->down_since[k] = start;
			s->r->suspend_ops++;
			susp = true;
		} else {
			if (spans_add(&s->down[k], s->down_since[k], end))
				return -ENOMEM;
			s->down_since[k] = UINT64_MAX;
			s->r->resume_ops++;
			res = true;
		}
	}
	s->r->suspend_toggles += susp;
	s->r->resume_toggles += res;
	a->n = 0;
	return 0;
}

/* Notes busy-period edges after each policy call. */
static int track_busy(struct sim *s, uint64_t t, bool was)
{
	bool now = gp_policy_online_busy(&s->p);

	if (!was && now)
		s->busy_from = t;
	if (was && !now)
		return spans_add(&s->busy, s->busy_from, t);
	return 0;
}

/* Ticks the policy at each of its deadlines up to t. */
static int advance(struct sim *s, uint64_t t, struct gp_pactions *a)
{
	uint64_t d;

	while ((d = gp_policy_next_deadline(&s->p)) <= t) {
		gp_policy_tick(&s->p, d, a);
		if (run_actions(s, d, a))
			return -ENOMEM;
	}
	return 0;
}

static int step(struct sim *s, const struct gp_replay_ev *ev,
		struct gp_pactions *a)
{
	bool was = gp_policy_online_busy(&s->p);
	int ret = 0;

	if (advance(s, ev->t_ns, a))
		return -ENOMEM;
	switch (ev->ev) {
	case GP_REV_BUSY:
		ret = gp_policy_busy(&s->p, ev->t_ns, ev->src, ev->pid, a);
		break;
	case GP_REV_IDLE:
		if (gp_policy_idle(&s->p, ev->t_ns, ev->src, ev->pid, a))
			s->r->unmatched++;
		break;
	case GP_REV_CLOSE:
		gp_policy_source_closed(&s->p, ev->t_ns, ev->src, a);
		break;
	case GP_REV_EXIT:
		gp_policy_online_gone(&s->p, ev->t_ns, ev->pid, a);
		break;
	case GP_REV_MARK:
	case GP_REV_QUEUE:
		gp_policy_tick(&s->p, ev->t_ns, a);
		break;
	}
	if (ret)
		return ret;
	if (run_actions(s, ev->t_ns, a))
		return -ENOMEM;
	return track_busy(s, ev->t_ns, was);
}

static void per_busy_wait(struct sim *s)
{
	struct gp_replay_result *r = s->r;
	size_t i, j = 0;

	/* Both sorted; ops do not overlap each other (one channel). */
	qsort(s->ops.v, s->ops.n, sizeof(*s->ops.v), cmp_span);
	for (i = 0; i < s->busy.n; i++) {
		struct span b = s->busy.v[i];
		uint64_t w = 0, us;
		size_t k;
		unsigned int slot = 0;

		while (j < s->ops.n && s->ops.v[j].b <= b.a)
			j++;
		for (k = j; k < s->ops.n && s->ops.v[k].a < b.b; k++) {
			uint64_t a = s->ops.v[k].a > b.a ? s->ops.v[k].a : b.a;
			uint64_t e = s->ops.v[k].b < b.b ? s->ops.v[k].b : b.b;

			w += e > a ? e - a : 0;
		}
		r->wait_total_ns += w;
		if (w > r->wait_max_ns)
			r->wait_max_ns = w;
		for (us = w / 1000; us > 1 && slot < 31; us >>= 1)
			slot++;
		r->wait_slots_us[slot]++;
	}
}

static void finish(struct sim *s, uint64_t end)
{
	struct gp_replay_result *r = s->r;
	uint64_t down = 0;
	int k;

	if (gp_policy_online_busy(&s->p))
		spans_add(&s->busy, s->busy_from, end);
	r->duration_ns = end - s->t0;
	r->busy_ns = union_len(&s->busy, s->t0, end);
	per_busy_wait(s);
	for (k = 0; k < s->c->n_offline; k++) {
		size_t i;

		if (s->down_since[k] != UINT64_MAX)
			spans_add(&s->down[k], s->down_since[k], end);
		/* Everyone's operation stalls the whole device (HWS). */
		for (i = 0; i < s->ops.n; i++)
			spans_add(&s->down[k], s->ops.v[i].a, s->ops.v[i].b);
		down += union_len(&s->down[k], s->t0, end);
	}
	r->offline_run_ns = r->duration_ns * s->c->n_offline - down;
	r->offline_share_ppm = r->duration_ns ? r->offline_run_ns *
		1000000.0 / ((double)r->duration_ns * s->c->n_offline) + 0.5 :
		1000000;
	r->busy_periods = s->p.st.busy_periods;
	r->budget_resumes = s->p.st.budget_resumes;
	r->max_hold_resumes = s->p.st.max_hold_resumes;
	r->cancelled_resumes = s->p.st.cancelled_resumes;
}

int gp_replay_run(FILE *in, const char *name, const struct gp_replay_cfg *c,
		  struct gp_replay_result *r, char *err, size_t len)
{
	static struct gp_pactions a;
	struct sim *s = calloc(1, sizeof(*s));
	struct gp_replay_ev ev;
	char line[4096], why[256];
	uint64_t last = 0;
	int k, ret = 0;

	if (!s)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	s->c = c;
	s->r = r;
	a.n = 0;
	if (c->n_offline < 1 || c->n_offline > GP_POLICY_MAX_OFFLINE) {
		snprintf(err, len, "the number of offline processes must be "
			 "1..%d", GP_POLICY_MAX_OFFLINE);
		ret = -EINVAL;
		goto out;
	}
	while (fgets(line, sizeof(line), in)) {
		r->lines++;
		if (!strchr(line, '\n') && !feof(in)) {
			snprintf(err, len, "%s:%" PRIu64 ": line longer than "
				 "%zu bytes", name, r->lines, sizeof(line) - 2);
			ret = -EINVAL;
			goto out;
		}
		ret = gp_replay_parse_line(line, &ev, why, sizeof(why));
		if (ret < 0) {
			snprintf(err, len, "%s:%" PRIu64 ": %s", name,
				 r->lines, why);
			goto out;
		}
		if (!ret) {
			r->skipped += !!line[strspn(line, " \t\r\n")] &&
				      line[strspn(line, " \t")] != '#';
			continue;
		}
		if (!r->events) {
			s->t0 = s->chan_free = ev.t_ns;
			gp_policy_init(&s->p, &c->pol, ev.t_ns);
			for (k = 0; k < c->n_offline; k++) {
				s->down_since[k] = UINT64_MAX;
				gp_policy_offline_attached(&s->p, ev.t_ns,
							   k + 1, &a);
			}
		} else if (ev.t_ns < last) {
			snprintf(err, len, "%s:%" PRIu64 ": time goes back "
				 "(%" PRIu64 " ns after %" PRIu64 " ns)", name,
				 r->lines, ev.t_ns, last);
			ret = -EINVAL;
			goto out;
		} else if ((ev.t_ns - s->t0) / c->pol.window_ns >
			   GP_REPLAY_MAX_WINDOWS) {
			/* the policy ticks once per window while busy */
			snprintf(err, len, "%s:%" PRIu64 ": the trace spans "
				 "more than %llu windows of %" PRIu64 " ns: "
				 "replay a shorter trace or give a longer "
				 "--window", name, r->lines,
				 GP_REPLAY_MAX_WINDOWS, c->pol.window_ns);
			ret = -EINVAL;
			goto out;
		}
		last = ev.t_ns;
		r->events++;
		ret = step(s, &ev, &a);
		if (ret) {
			snprintf(err, len, "%s:%" PRIu64 ": %s", name,
				 r->lines, strerror(-ret));
			goto out;
		}
	}
	if (ferror(in)) {
		ret = -EIO;
		snprintf(err, len, "%s: read error", name);
		goto out;
	}
	if (!r->events) {
		snprintf(err, len, "%s: no busy/idle events", name);
		ret = -EINVAL;
		goto out;
	}
	ret = advance(s, last, &a);
	if (!ret)
		finish(s, last);
out:
	free(s->ops.v);
	free(s->busy.v);
	for (k = 0; k < GP_POLICY_MAX_OFFLINE; k++)
		free(s->down[k].v);
	free(s);
	return ret;
}

/* "2.000 ms", "66.7 us": util.h's fmt_ns stops at ms, replay needs us;
 * fixed forms, so printed output can be compared exactly. */
static const char *dur_str(char *b, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(b, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(b, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(b, len, "%.3f ms", ns / 1e6);
	else
		snprintf(b, len, "%.3f s", ns / 1e9);
	return b;
}

/* Per mille, rounded, as "65.1". */
static const char *fmt_pct(char *b, size_t len, uint64_t part, uint64_t all)
{
	uint64_t pm = all ? (part * 1000.0 / all + 0.5) : 0;

	snprintf(b, len, "%" PRIu64 ".%" PRIu64, pm / 10, pm % 10);
	return b;
}

static void print_text(FILE *f, const char *name,
		       const struct gp_replay_cfg *c,
		       const struct gp_replay_result *r)
{
	char a[32], b[32], d[32];
	__u64 slots[32];
	int i;

	fprintf(f, "replay %s: %" PRIu64 " events over %s (%" PRIu64
		" lines skipped, %" PRIu64 " unmatched idle)\n", name,
		r->events, dur_str(a, sizeof(a), r->duration_ns), r->skipped,
		r->unmatched);
	fprintf(f, "policy: resume-after %s, min-offline-share %u%%, "
		"window %s, max-hold %s\n",
		dur_str(a, sizeof(a), c->pol.resume_after_ns),
		c->pol.min_offline_share, dur_str(b, sizeof(b), c->pol.window_ns),
		c->pol.max_hold_ns ? dur_str(d, sizeof(d), c->pol.max_hold_ns) :
				     "none");
	fprintf(f, "costs: suspend %s, resume %s; %d offline process%s\n",
		dur_str(a, sizeof(a), c->suspend_cost_ns),
		dur_str(b, sizeof(b), c->resume_cost_ns), c->n_offline,
		c->n_offline == 1 ? "" : "es");
	fprintf(f, "online busy:    %s%% in %" PRIu64 " busy periods\n",
		fmt_pct(a, sizeof(a), r->busy_ns, r->duration_ns),
		r->busy_periods);
	fprintf(f, "offline share:  %s%%\n",
		fmt_pct(a, sizeof(a), r->offline_share_ppm, 1000000));
	fprintf(f, "toggles:        %" PRIu64 " suspends, %" PRIu64
		" resumes (%" PRIu64 " budget, %" PRIu64 " max-hold); %"
		PRIu64 " resumes avoided by --resume-after\n",
		r->suspend_toggles, r->resume_toggles, r->budget_resumes,
		r->max_hold_resumes, r->cancelled_resumes);
	fprintf(f, "KFD ioctls:     %" PRIu64 " (%" PRIu64 " suspend, %"
		PRIu64 " resume)\n", r->suspend_ops + r->resume_ops,
		r->suspend_ops, r->resume_ops);
	fprintf(f, "online wait:    %s in total, %s per busy period on "
		"average, %s at most\n", dur_str(a, sizeof(a), r->wait_total_ns),
		dur_str(b, sizeof(b), r->busy_periods ?
		       r->wait_total_ns / r->busy_periods : 0),
		dur_str(d, sizeof(d), r->wait_max_ns));
	if (!r->busy_periods)
		return;
	for (i = 0; i < 32; i++)
		slots[i] = r->wait_slots_us[i];
	fprintf(f, "\nonline wait per busy period:\n");
	gp_print_log2_hist(f, slots, 32, "usecs");
}

static void print_json(FILE *f, const char *name,
		       const struct gp_replay_cfg *c,
		       const struct gp_replay_result *r)
{
	uint64_t low, high;
	struct json j;
	int i;

	json_begin(&j, f);
	json_str(&j, "type", "replay");
	json_str(&j, "file", name);
	json_u64(&j, "lines", r->lines);
	json_u64(&j, "events", r->events);
	json_u64(&j, "skipped", r->skipped);
	json_u64(&j, "unmatched_idle", r->unmatched);
	json_u64(&j, "duration_ns", r->duration_ns);
	json_u64(&j, "resume_after_ns", c->pol.resume_after_ns);
	json_u64(&j, "min_offline_share", c->pol.min_offline_share);
	json_u64(&j, "window_ns", c->pol.window_ns);
	json_u64(&j, "max_hold_ns", c->pol.max_hold_ns);
	json_u64(&j, "suspend_cost_ns", c->suspend_cost_ns);
	json_u64(&j, "resume_cost_ns", c->resume_cost_ns);
	json_u64(&j, "offline_processes", c->n_offline);
	json_u64(&j, "online_busy_ns", r->busy_ns);
	json_u64(&j, "busy_periods", r->busy_periods);
	json_u64(&j, "offline_run_ns", r->offline_run_ns);
	json_u64(&j, "offline_share_ppm", r->offline_share_ppm);
	json_u64(&j, "suspend_toggles", r->suspend_toggles);
	json_u64(&j, "resume_toggles", r->resume_toggles);
	json_u64(&j, "budget_resumes", r->budget_resumes);
	json_u64(&j, "max_hold_resumes", r->max_hold_resumes);
	json_u64(&j, "cancelled_resumes", r->cancelled_resumes);
	json_u64(&j, "suspend_ioctls", r->suspend_ops);
	json_u64(&j, "resume_ioctls", r->resume_ops);
	json_u64(&j, "online_wait_ns", r->wait_total_ns);
	json_u64(&j, "online_wait_max_ns", r->wait_max_ns);
	json_obj_open(&j, "online_wait_hist");
	json_str(&j, "unit", "usecs");
	json_arr_open(&j, "buckets");
	for (i = 0; i < 32; i++) {
		if (!r->wait_slots_us[i])
			continue;
		gp_hist_bounds(i, &low, &high);
		json_obj_open(&j, NULL);
		json_u64(&j, "low", low);
		json_u64(&j, "high", high);
		json_u64(&j, "count", r->wait_slots_us[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

void gp_replay_print(FILE *f, const char *name, const struct gp_replay_cfg *c,
		     const struct gp_replay_result *r, bool json)
{
	if (json)
		print_json(f, name, c, r);
	else
		print_text(f, name, c, r);
}
