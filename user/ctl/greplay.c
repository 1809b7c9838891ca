// SPDX-License-Identifier: GPL-2.0
/* Multi-GPU replay (see greplay.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "greplay.h"
#include "json.h"
#include "replay.h"

/* Which (process, GPU) pairs exist, and since when each is held. */
struct pair {
	int pid;
	uint32_t gpu;
	uint64_t since;		/* held since, or UINT64_MAX */
	uint64_t held_ns;
};

struct sim {
	struct gp_gpolicy *g;
	struct gp_gactions act;
	int npair;
	struct pair pair[GP_GP_MAX_PROCS * 8];
	uint32_t gpus[GP_GP_MAX_GPUS];
	int ngpus;
};

static void note_gpu(struct sim *s, uint32_t gpu)
{
	for (int i = 0; i < s->ngpus; i++)
		if (s->gpus[i] == gpu)
			return;
	if (s->ngpus < GP_GP_MAX_GPUS)
		s->gpus[s->ngpus++] = gpu;
}

/* After every policy step at t: open or close each pair's held stretch. */
static void account(struct sim *s, uint64_t t)
{
	for (int i = 0; i < s->npair; i++) {
		struct pair *p = &s->pair[i];
		bool held = gp_gpolicy_suspended_on(s->g, p->pid, p->gpu) > 0;

		if (held && p->since == UINT64_MAX)
			p->since = t;
		else if (!held && p->since != UINT64_MAX) {
			p->held_ns += t - p->since;
			p->since = UINT64_MAX;
		}
	}
	s->act.n = 0;
}

static void advance(struct sim *s, uint64_t t)
{
	uint64_t d;

	while ((d = gp_gpolicy_next_deadline(s->g)) <= t) {
		gp_gpolicy_tick(s->g, d, &s->act);
		account(s, d);
	}
}

static int add_queue(struct sim *s, const struct gp_replay_ev *ev)
{
	struct gp_qplace q = { .queue_id = ev->qid, .gpu_id = ev->gpu };
	int i, r;

	if (!gp_gpolicy_proc(s->g, ev->pid)) {
		r = gp_gpolicy_offline_attached(s->g, ev->t_ns, ev->pid,
						ev->gang, &s->act);
		if (r)
			return r;
	}
	for (i = 0; i < s->npair; i++)
		if (s->pair[i].pid == ev->pid && s->pair[i].gpu == ev->gpu)
			break;
	if (i == s->npair) {
		if (s->npair == (int)(sizeof(s->pair) / sizeof(s->pair[0])))
			return -ENOSPC;
		s->pair[s->npair++] = (struct pair){ ev->pid, ev->gpu,
						     UINT64_MAX, 0 };
	}
	note_gpu(s, ev->gpu);
	return gp_gpolicy_queue(s->g, ev->t_ns, ev->pid, &q, &s->act);
}

static int step(struct sim *s, const struct gp_replay_ev *ev,
		struct gp_greplay_result *r)
{
	const uint32_t *gpus = ev->has_gpu ? &ev->gpu : NULL;
	int n = ev->has_gpu ? 1 : -1, ret = 0;

	advance(s, ev->t_ns);
	if (ev->has_gpu)
		note_gpu(s, ev->gpu);
	switch (ev->ev) {
	case GP_REV_BUSY:
		ret = gp_gpolicy_busy(s->g, ev->t_ns, ev->src, ev->pid, gpus,
				      n, &s->act);
		break;
	case GP_REV_IDLE:
		if (gp_gpolicy_idle(s->g, ev->t_ns, ev->src, ev->pid, gpus, n,
				    &s->act))
			r->unmatched++;
		break;
	case GP_REV_CLOSE:
		gp_gpolicy_source_closed(s->g, ev->t_ns, ev->src, &s->act);
		break;
	case GP_REV_EXIT:
		gp_gpolicy_online_gone(s->g, ev->t_ns, ev->pid, &s->act);
		break;
	case GP_REV_QUEUE:
		ret = add_queue(s, ev);
		break;
	case GP_REV_MARK:
		gp_gpolicy_tick(s->g, ev->t_ns, &s->act);
		break;
	}
	account(s, ev->t_ns);
	return ret;
}

static void finish(struct sim *s, uint64_t t0, uint64_t end,
		   struct gp_greplay_result *r)
{
	r->duration_ns = end - t0;
	r->suspend_ioctls = s->g->suspend_ioctls;
	r->resume_ioctls = s->g->resume_ioctls;
	r->queues_named = s->g->queues_named;
	for (int i = 0; i < s->ngpus; i++) {
		struct gp_greplay_gpu *o = &r->gpu[r->ngpus++];
		const struct gp_gslot *sl = gp_gpolicy_slot(s->g,
			s->g->scope == GP_SCOPE_NODE ? GP_GP_NODE : s->gpus[i]);

		o->gpu_id = s->gpus[i];
		for (int k = 0; k < s->npair; k++) {
			if (s->pair[k].gpu != o->gpu_id)
				continue;
			o->procs++;
			o->held_ns += s->pair[k].held_ns;
		}
		if (o->procs && r->duration_ns)
			o->share_ppm = 1000000 - o->held_ns * 1000000 /
				       (o->procs * r->duration_ns);
		else
			o->share_ppm = 1000000;
		if (sl && s->g->scope == GP_SCOPE_GPU) {
			o->busy_periods = sl->p.st.busy_periods;
			o->suspends = sl->p.st.suspends;
			o->resumes = sl->p.st.resumes;
			o->budget_resumes = sl->p.st.budget_resumes;
			o->max_hold_resumes = sl->p.st.max_hold_resumes;
		}
	}
	for (int i = 0; i < s->g->nslot; i++)
		r->busy_periods += s->g->slot[i]->p.st.busy_periods;
}

int gp_greplay_run(FILE *in, const char *name, const struct gp_greplay_cfg *c,
		   struct gp_greplay_result *r, char *err, size_t len)
{
	struct sim *s = calloc(1, sizeof(*s));
	char line[4096], why[200];
	struct gp_replay_ev ev;
	uint64_t t0 = 0, last = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!s)
		return -ENOMEM;
	while (fgets(line, sizeof(line), in)) {
		r->lines++;
		ret = gp_replay_parse_line(line, &ev, why, sizeof(why));
		if (ret < 0) {
			snprintf(err, len, "%s:%" PRIu64 ": %s", name,
				 r->lines, why);
			goto out;
		}
		if (!ret)
			continue;
		if (!s->g) {
			t0 = ev.t_ns;
			s->g = gp_gpolicy_new(&c->pol, c->scope, c->gang, t0);
			if (!s->g) {
				ret = -ENOMEM;
				goto out;
			}
		} else if (ev.t_ns < last) {
			snprintf(err, len, "%s:%" PRIu64 ": time goes back",
				 name, r->lines);
			ret = -EINVAL;
			goto out;
		}
		last = ev.t_ns;
		r->events++;
		ret = step(s, &ev, r);
		if (ret) {
			snprintf(err, len, "%s:%" PRIu64 ": %s", name,
				 r->lines, strerror(-ret));
			goto out;
		}
	}
	if (!s->g) {
		snprintf(err, len, "%s: no events", name);
		ret = -EINVAL;
		goto out;
	}
	advance(s, last);
	account(s, last);
	finish(s, t0, last, r);
	ret = 0;
out:
	if (s->g)
		gp_gpolicy_free(s->g);
	free(s);
	return ret;
}

static void pct(char *b, size_t len, uint64_t ppm)
{
	uint64_t pm = (ppm + 500) / 1000;

	snprintf(b, len, "%" PRIu64 ".%" PRIu64, pm / 10, pm % 10);
}

void gp_greplay_print(FILE *f, const char *name,
		      const struct gp_greplay_cfg *c,
		      const struct gp_greplay_result *r, bool json)
{
	char b[32];
	struct json j;

	if (json) {
		json_begin(&j, f);
		json_str(&j, "type", "replay_gpus");
		json_str(&j, "file", name);
		json_str(&j, "scope", gp_scope_name(c->scope));
		json_str(&j, "gang", gp_gang_name(c->gang));
		json_u64(&j, "events", r->events);
		json_u64(&j, "duration_ns", r->duration_ns);
		json_u64(&j, "suspend_ioctls", r->suspend_ioctls);
		json_u64(&j, "resume_ioctls", r->resume_ioctls);
		json_u64(&j, "queues_named", r->queues_named);
		json_arr_open(&j, "gpus");
		for (int i = 0; i < r->ngpus; i++) {
			const struct gp_greplay_gpu *g = &r->gpu[i];

			json_obj_open(&j, NULL);
			json_u64(&j, "gpu_id", g->gpu_id);
			json_u64(&j, "offline_procs", g->procs);
			json_u64(&j, "offline_share_ppm", g->share_ppm);
			json_u64(&j, "busy_periods", g->busy_periods);
			json_u64(&j, "suspends", g->suspends);
			json_u64(&j, "resumes", g->resumes);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_end(&j);
		return;
	}
	fprintf(f, "replay %s: %" PRIu64 " events, scope %s, gang %s\n",
		name, r->events, gp_scope_name(c->scope),
		gp_gang_name(c->gang));
	fprintf(f, "%-10s %6s %14s %6s %9s %8s\n", "GPU_ID", "PROCS",
		"OFFLINE_SHARE", "BUSY", "SUSPENDS", "RESUMES");
	for (int i = 0; i < r->ngpus; i++) {
		const struct gp_greplay_gpu *g = &r->gpu[i];

		pct(b, sizeof(b), g->share_ppm);
		fprintf(f, "%-10u %6d %13s%% %6" PRIu64 " %9" PRIu64 " %8"
			PRIu64 "\n", g->gpu_id, g->procs, b, g->busy_periods,
			g->suspends, g->resumes);
	}
	fprintf(f, "KFD ioctls: %" PRIu64 " (%" PRIu64 " suspend, %" PRIu64
		" resume), %" PRIu64 " queue ids named\n",
		r->suspend_ioctls + r->resume_ioctls, r->suspend_ioctls,
		r->resume_ioctls, r->queues_named);
}
