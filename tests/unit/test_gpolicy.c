// SPDX-License-Identifier: GPL-2.0
/*
 * L0: per-GPU arbitration (user/policy/gpolicy.c) with an injected clock.
 * - two GPUs keep independent hysteresis and budgets;
 * - a decision names exactly the queue ids on the busy GPU, one ioctl
 *   per process; a queue created after the suspension is suspended too;
 * - a gang spanning GPUs is suspended on all of them and resumed together;
 * - --scope node emits, action for action, what the single-GPU policy
 *   (policy.c alone) emits on the replay fixtures;
 * - a multi-GPU trace: offline share per GPU and toggle counts against
 *   figures worked out by hand in the comments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpolicy.h"
#include "greplay.h"
#include "replay.h"
#include "tap.h"

#define MS 1000000ULL
#define G0 10001
#define G1 10002

static struct gp_gactions acts;	/* 64 KiB: not on the stack */

static struct gp_policy_cfg cfg(unsigned int share, uint64_t window)
{
	struct gp_policy_cfg c;

	gp_policy_cfg_default(&c);	/* resume_after 2 ms */
	c.min_offline_share = share;
	c.window_ns = window;
	return c;
}

static void queue(struct gp_gpolicy *g, uint64_t t, int pid, uint32_t qid,
		  uint32_t gpu)
{
	struct gp_qplace q = { .queue_id = qid, .gpu_id = gpu };

	CHECK(!gp_gpolicy_queue(g, t, pid, &q, &acts));
}

/* The one action of pid in acts with op, or NULL. */
static const struct gp_gaction *find(int pid, enum gp_pop op)
{
	const struct gp_gaction *f = NULL;
	int n = 0;

	for (int i = 0; i < acts.n; i++)
		if (acts.a[i].pid == pid && acts.a[i].op == op) {
			f = &acts.a[i];
			n++;
		}
	return n == 1 ? f : NULL;
}

static bool ids_are(const struct gp_gaction *a, int n, const uint32_t *ids)
{
	if (!a || a->nids != n)
		return false;
	for (int i = 0; i < n; i++)
		if (a->ids[i] != ids[i])
			return false;
	return true;
}

/* Process 300: queues 0,1 on G0 and 2,3 on G1; process 301: 0 on G1. */
static struct gp_gpolicy *two_gpus(const struct gp_policy_cfg *c,
				   enum gp_gang gang, uint64_t k300,
				   uint64_t k301)
{
	struct gp_gpolicy *g = gp_gpolicy_new(c, GP_SCOPE_GPU, gang, 0);

	acts.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 0, 300, k300, &acts));
	CHECK(!gp_gpolicy_offline_attached(g, 0, 301, k301, &acts));
	queue(g, 0, 300, 0, G0);
	queue(g, 0, 300, 1, G0);
	queue(g, 0, 300, 2, G1);
	queue(g, 0, 300, 3, G1);
	queue(g, 0, 301, 0, G1);
	CHECK(acts.n == 0);
	return g;
}

TEST(subset_on_busy_gpu)
{
	struct gp_policy_cfg c = cfg(0, 1000 * MS);
	struct gp_gpolicy *g = two_gpus(&c, GP_GANG_NONE, 0, 0);
	uint32_t g0 = G0, q01[] = { 0, 1 }, q4[] = { 4 };

	acts.n = 0;
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	/* one ioctl, for 300 only, naming exactly its queues on G0 */
	CHECK(acts.n == 1);
	CHECK(ids_are(find(300, GP_POP_SUSPEND), 2, q01));
	CHECK(!acts.a[0].all && acts.a[0].cause == GP_CAUSE_BUSY);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 0);
	/* a new stream of 300 on G0 while held: suspended alone */
	acts.n = 0;
	queue(g, 11 * MS, 300, 4, G0);
	CHECK(acts.n == 1 && ids_are(find(300, GP_POP_SUSPEND), 1, q4));
	/* ... on G1, where online is not: left running */
	acts.n = 0;
	queue(g, 11 * MS, 300, 5, G1);
	CHECK(acts.n == 0);
	/* idle: resume after 2 ms, the same three ids */
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, &g0, 1, &acts));
	CHECK(acts.n == 0);
	gp_gpolicy_tick(g, 22 * MS, &acts);
	CHECK(acts.n == 1 && find(300, GP_POP_RESUME) &&
	      find(300, GP_POP_RESUME)->nids == 3 &&
	      find(300, GP_POP_RESUME)->cause == GP_CAUSE_IDLE);
	CHECK(g->suspend_ioctls == 2 && g->resume_ioctls == 1);
	gp_gpolicy_free(g);
}

TEST(two_gpus_independent)
{
	/* share 50% of 100 ms windows on each GPU */
	struct gp_policy_cfg c = cfg(50, 100 * MS);
	struct gp_gpolicy *g = two_gpus(&c, GP_GANG_NONE, 0, 0);
	uint32_t g0 = G0, g1 = G1;
	const struct gp_gslot *s0, *s1;

	acts.n = 0;
	/* G0 busy from 0: its budget (50 ms) ends at 50 ms */
	CHECK(!gp_gpolicy_busy(g, 0, 1, 100, &g0, 1, &acts));
	/* G1 busy from 30 ms: its own budget lasts until 80 ms */
	CHECK(!gp_gpolicy_busy(g, 30 * MS, 2, 200, &g1, 1, &acts));
	CHECK(gp_gpolicy_suspended_on(g, 300, G0) == 2);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 2);
	CHECK(gp_gpolicy_suspended_on(g, 301, G1) == 1);
	gp_gpolicy_tick(g, 50 * MS, &acts);
	s0 = gp_gpolicy_slot(g, G0);
	s1 = gp_gpolicy_slot(g, G1);
	CHECK(s0->p.state == GP_PS_BUDGET && s0->p.st.budget_resumes == 1);
	CHECK(s1->p.state == GP_PS_BUSY && s1->p.st.budget_resumes == 0);
	CHECK(gp_gpolicy_suspended_on(g, 300, G0) == 0);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 2);
	gp_gpolicy_tick(g, 80 * MS, &acts);
	CHECK(s1->p.st.budget_resumes == 1);
	CHECK(gp_gpolicy_suspended_on(g, 301, G1) == 0);
	/* hysteresis per GPU: G0 idle at 100.5 ms lingers; G1 still busy */
	CHECK(!gp_gpolicy_idle(g, 100 * MS + MS / 2, 1, 100, &g0, 1, &acts));
	/* new window at 100 ms: G1 (busy) suspended again, G0 too until
	 * its linger ends at 102.5 ms */
	CHECK(s1->p.state == GP_PS_BUSY && s0->p.state == GP_PS_LINGER);
	acts.n = 0;
	gp_gpolicy_tick(g, 103 * MS, &acts);
	CHECK(s0->p.state == GP_PS_IDLE && s1->p.state == GP_PS_BUSY);
	CHECK(acts.n == 1 && find(300, GP_POP_RESUME) &&
	      find(300, GP_POP_RESUME)->nids == 2);
	CHECK(gp_gpolicy_suspended_on(g, 300, G1) == 2);
	gp_gpolicy_free(g);
}

TEST(gang_spans_gpus)
{
	struct gp_policy_cfg c = cfg(0, 1000 * MS);
	/* 300 and 301 are ranks of one job (gang key 77) */
	struct gp_gpolicy *g = two_gpus(&c, GP_GANG_PGID, 77, 77);
	uint32_t g0 = G0;

	acts.n = 0;
	CHECK(!gp_gpolicy_busy(g, 10 * MS, 1, 100, &g0, 1, &acts));
	/* online needs G0 only; the gang is held on G0 and G1 */
	CHECK(acts.n == 2);
	CHECK(find(300, GP_POP_SUSPEND) && find(300, GP_POP_SUSPEND)->all &&
	      find(300, GP_POP_SUSPEND)->nids == 4);
	CHECK(find(301, GP_POP_SUSPEND) && find(301, GP_POP_SUSPEND)->nids == 1);
	CHECK(gp_gpolicy_suspended_on(g, 301, G1) == 1);
	/* one unit in each machine, counted once */
	CHECK(gp_gpolicy_slot(g, G0)->p.n_off == 1);
	CHECK(gp_gpolicy_slot(g, G1)->p.n_off == 1);
	CHECK(gp_gpolicy_slot(g, G0)->p.st.suspends == 1);
	/* a third rank joining while held is held at once */
	acts.n = 0;
	CHECK(!gp_gpolicy_offline_attached(g, 11 * MS, 302, 77, &acts));
	CHECK(acts.n == 1 && find(302, GP_POP_SUSPEND) &&
	      find(302, GP_POP_SUSPEND)->all);
	/* resumed together */
	acts.n = 0;
	CHECK(!gp_gpolicy_idle(g, 20 * MS, 1, 100, NULL, -1, &acts));
	gp_gpolicy_tick(g, 23 * MS, &acts);
	CHECK(acts.n == 3 && find(300, GP_POP_RESUME) &&
	      find(301, GP_POP_RESUME) && find(302, GP_POP_RESUME));
	gp_gpolicy_free(g);
}

/*
 * --scope node against policy.c alone on each replay fixture: the same
 * events (with the same deadline ticks in between) give the same
 * (op, pid, cause) sequence, with every queue named (all).
 */
static int node_matches(const char *file, int n_off)
{
	char line[4096], err[256];
	struct gp_policy_cfg c = cfg(30, 50 * MS);
	static struct gp_policy p;
	struct gp_pactions a = { 0 };
	struct gp_gpolicy *g = NULL;
	struct gp_replay_ev ev;
	FILE *in = fopen(file, "r");
	int compared = 0, bad = 0;

	if (!in)
		return -1;
	acts.n = 0;
	c.max_hold_ns = 40 * MS;
	while (fgets(line, sizeof(line), in) && !bad) {
		uint64_t d;

		if (gp_replay_parse_line(line, &ev, err, sizeof(err)) != 1)
			continue;
		if (!g) {
			gp_policy_init(&p, &c, ev.t_ns);
			g = gp_gpolicy_new(&c, GP_SCOPE_NODE, GP_GANG_NONE,
					   ev.t_ns);
			for (int i = 0; i < n_off; i++) {
				gp_policy_offline_attached(&p, ev.t_ns, 900 + i,
							   &a);
				gp_gpolicy_offline_attached(g, ev.t_ns, 900 + i,
							    0, &acts);
			}
		}
		while ((d = gp_policy_next_deadline(&p)) <= ev.t_ns) {
			gp_policy_tick(&p, d, &a);
			gp_gpolicy_tick(g, d, &acts);
		}
		switch (ev.ev) {
		case GP_REV_BUSY:
			gp_policy_busy(&p, ev.t_ns, ev.src, ev.pid, &a);
			gp_gpolicy_busy(g, ev.t_ns, ev.src, ev.pid, NULL, -1,
					&acts);
			break;
		case GP_REV_IDLE:
			gp_policy_idle(&p, ev.t_ns, ev.src, ev.pid, &a);
			gp_gpolicy_idle(g, ev.t_ns, ev.src, ev.pid, NULL, -1,
					&acts);
			break;
		case GP_REV_CLOSE:
			gp_policy_source_closed(&p, ev.t_ns, ev.src, &a);
			gp_gpolicy_source_closed(g, ev.t_ns, ev.src, &acts);
			break;
		case GP_REV_EXIT:
			gp_policy_online_gone(&p, ev.t_ns, ev.pid, &a);
			gp_gpolicy_online_gone(g, ev.t_ns, ev.pid, &acts);
			break;
		default:
			gp_policy_tick(&p, ev.t_ns, &a);
			gp_gpolicy_tick(g, ev.t_ns, &acts);
		}
		if (a.n != acts.n)
			bad = 1;
		if (getenv("GP_DEBUG"))
			for (int i = 0; i < (a.n > acts.n ? a.n : acts.n); i++)
				printf("# t=%llu %d: %d/%d/%d vs %d/%d/%d\n",
				       (unsigned long long)ev.t_ns, i,
				       i < a.n ? (int)a.a[i].op : -1,
				       i < a.n ? a.a[i].pid : -1,
				       i < a.n ? (int)a.a[i].cause : -1,
				       i < acts.n ? (int)acts.a[i].op : -1,
				       i < acts.n ? acts.a[i].pid : -1,
				       i < acts.n ? (int)acts.a[i].cause : -1);
		for (int i = 0; !bad && i < a.n; i++)
			bad = a.a[i].op != acts.a[i].op ||
			      a.a[i].pid != acts.a[i].pid ||
			      a.a[i].cause != acts.a[i].cause ||
			      !acts.a[i].all;
		compared += a.n;
		a.n = acts.n = 0;
	}
	fclose(in);
	gp_gpolicy_free(g);
	if (bad)
		printf("# %s: node scope differs after %d actions\n", file,
		       compared);
	return bad ? -1 : compared;
}

TEST(scope_node_is_today)
{
	static const char *const f[] = { "simple", "bursty", "continuous",
					 "mixed-trace" };
	char path[256];
	int total = 0;

	for (unsigned int i = 0; i < 4; i++) {
		int n;

		snprintf(path, sizeof(path),
			 "tests/unit/fixtures/replay/%s.ndjson", f[i]);
		n = node_matches(path, 3);
		CHECK(n >= 0);
		total += n > 0 ? n : 0;
	}
	/* the fixtures do make the policy act (not a vacuous match) */
	CHECK(total > 20);
}

/*
 * A multi-GPU trace, 4 GPUs (G0..G3), 100 ms, resume_after 2 ms, no
 * share, one offline rank per GPU (pids 500+i, 2 queues each on G_i)
 * plus pid 600 with one queue on every GPU. Online busy on G0 over
 * [10,30) and [50,60), on G2 over [20,25); nothing on G1 and G3.
 * By hand:
 *   G0 held [10,32) and [50,62): 22 + 12 = 34 ms of 100 -> share 66%
 *   G2 held [20,27): 7 ms -> share 93%; G1, G3 never held -> 100%
 *   ioctls: rank 500: 2 suspends + 2 resumes; rank 502: 1 + 1;
 *           600: every transition of G0 or G2 is its own ioctl:
 *           suspends at 10 (G0), 20 (G2), 50 (G0) = 3, resumes at 27,
 *           32, 62 = 3. Total 6 suspends + 6 resumes.
 *   node scope: one busy period [10,32) (G2's is inside it) and
 *           [50,62): 2 toggles x 5 processes = 10 suspends + 10 resumes.
 */
struct mg {
	uint64_t held_since[4][700], held_ns[4];
};

static void account(struct gp_gpolicy *g, struct mg *m, uint64_t t)
{
	/* per GPU: time any queue of any offline process is held */
	for (int i = 0; i < 4; i++) {
		uint32_t gpu = G0 + i;
		bool held = gp_gpolicy_suspended_on(g, 500 + i, gpu) > 0;

		if (held && !m->held_since[i][0])
			m->held_since[i][0] = t + 1;
		else if (!held && m->held_since[i][0]) {
			m->held_ns[i] += t + 1 - m->held_since[i][0];
			m->held_since[i][0] = 0;
		}
	}
}

static void run_mg(enum gp_scope scope, struct mg *m, uint64_t *sus,
		   uint64_t *res)
{
	struct gp_policy_cfg c = cfg(0, 1000 * MS);
	struct gp_gpolicy *g = gp_gpolicy_new(&c, scope, GP_GANG_NONE, 0);
	struct { uint64_t t; int busy; uint32_t gpu; } tr[] = {
		{ 10, 1, G0 }, { 20, 1, G0 + 2 }, { 25, 0, G0 + 2 },
		{ 30, 0, G0 }, { 50, 1, G0 }, { 60, 0, G0 },
	};
	uint64_t t = 0, d;

	memset(m, 0, sizeof(*m));
	acts.n = 0;
	for (int i = 0; i < 4; i++) {
		gp_gpolicy_offline_attached(g, 0, 500 + i, 0, &acts);
		queue(g, 0, 500 + i, 0, G0 + i);
		queue(g, 0, 500 + i, 1, G0 + i);
	}
	gp_gpolicy_offline_attached(g, 0, 600, 0, &acts);
	for (int i = 0; i < 4; i++)
		queue(g, 0, 600, i, G0 + i);
	for (unsigned int e = 0; e <= sizeof(tr) / sizeof(tr[0]); e++) {
		uint64_t te = e < sizeof(tr) / sizeof(tr[0]) ? tr[e].t * MS :
							       100 * MS;

		while ((d = gp_gpolicy_next_deadline(g)) <= te) {
			gp_gpolicy_tick(g, d, &acts);
			account(g, m, d);
		}
		t = te;
		if (e == sizeof(tr) / sizeof(tr[0]))
			break;
		if (tr[e].busy)
			gp_gpolicy_busy(g, t, 1, 100, &tr[e].gpu, 1, &acts);
		else
			gp_gpolicy_idle(g, t, 1, 100, &tr[e].gpu, 1, &acts);
		account(g, m, t);
	}
	account(g, m, 100 * MS);
	*sus = g->suspend_ioctls;
	*res = g->resume_ioctls;
	gp_gpolicy_free(g);
}

TEST(replay_multi_gpu_trace)
{
	static struct mg m;
	uint64_t s, r;

	run_mg(GP_SCOPE_GPU, &m, &s, &r);
	CHECK(m.held_ns[0] == 34 * MS);
	CHECK(m.held_ns[1] == 0);
	CHECK(m.held_ns[2] == 7 * MS);
	CHECK(m.held_ns[3] == 0);
	/* offline share per GPU in percent */
	CHECK(100 - m.held_ns[0] * 100 / (100 * MS) == 66);
	CHECK(100 - m.held_ns[2] * 100 / (100 * MS) == 93);
	CHECK(s == 6 && r == 6);
	if (s != 6 || r != 6)
		printf("# gpu scope: %llu suspends %llu resumes\n",
		       (unsigned long long)s, (unsigned long long)r);

	run_mg(GP_SCOPE_NODE, &m, &s, &r);
	for (int i = 0; i < 4; i++)
		CHECK(m.held_ns[i] == 34 * MS);
	CHECK(s == 10 && r == 10);
}

/* The same trace from its fixture, through the replay the CLI runs. */
static int greplay(enum gp_scope scope, struct gp_greplay_result *r)
{
	struct gp_greplay_cfg c = { .scope = scope };
	FILE *in = fopen("tests/unit/fixtures/replay/multi-gpu.ndjson", "r");
	char err[256] = "";
	int ret;

	if (!in)
		return -ENOENT;
	c.pol = cfg(0, 1000 * MS);
	ret = gp_greplay_run(in, "multi-gpu", &c, r, err, sizeof(err));
	if (ret)
		printf("# %s\n", err);
	fclose(in);
	return ret;
}

TEST(replay_fixture_per_gpu)
{
	static struct gp_greplay_result r;

	CHECK(!greplay(GP_SCOPE_GPU, &r));
	CHECK(r.ngpus == 4 && r.duration_ns == 100 * MS);
	/* G0: (500, 600) held 34 ms each of 100: 66%; G2: 7 ms: 93% */
	CHECK(r.gpu[0].gpu_id == 10001 && r.gpu[0].procs == 2);
	CHECK(r.gpu[0].share_ppm == 660000);
	CHECK(r.gpu[1].share_ppm == 1000000);
	CHECK(r.gpu[2].share_ppm == 930000);
	CHECK(r.gpu[3].share_ppm == 1000000);
	CHECK(r.gpu[0].busy_periods == 2 && r.gpu[2].busy_periods == 1);
	CHECK(r.gpu[1].busy_periods == 0);
	/* 6 + 6 ioctls naming 9 + 9 queue ids (hand count above) */
	CHECK(r.suspend_ioctls == 6 && r.resume_ioctls == 6);
	CHECK(r.queues_named == 18);

	CHECK(!greplay(GP_SCOPE_NODE, &r));
	for (int i = 0; i < 4; i++)
		CHECK(r.gpu[i].share_ppm == 660000);
	/* 5 processes x 2 toggles, each naming all 12 queues */
	CHECK(r.suspend_ioctls == 10 && r.resume_ioctls == 10);
	CHECK(r.queues_named == 48);
}

/*
 * The fixture's ranks 500-503 as one gang (key 7; 600 stays alone): the
 * gang is held on all four GPUs whenever online needs any GPU, i.e. over
 * [10,32) and [50,62) ms (G2's [20,27) is inside): 34 ms each. 600 keeps
 * its subsets. G1: rank 501 34 ms + 600 0 ms of 2 x 100 -> 83%.
 */
TEST(replay_gang_trace)
{
	static struct gp_greplay_result r;
	struct gp_greplay_cfg c = { .scope = GP_SCOPE_GPU,
				    .gang = GP_GANG_CGROUP };
	char *text = NULL, line[512], err[256] = "";
	size_t len = 0;
	FILE *in = fopen("tests/unit/fixtures/replay/multi-gpu.ndjson", "r");
	FILE *out = open_memstream(&text, &len);

	CHECK(in && out);
	if (!in || !out)
		return;
	while (fgets(line, sizeof(line), in)) {
		char *q = strstr(line, "\"ev\":\"queue\",\"pid\":50");

		if (q)	/* {"t_ms":0,"ev":"queue",... -> add "gang":7 */
			fprintf(out, "{\"gang\":7,%s", line + 1);
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	in = fmemopen(text, len, "r");
	c.pol = cfg(0, 1000 * MS);
	CHECK(!gp_greplay_run(in, "gang", &c, &r, err, sizeof(err)));
	fclose(in);
	free(text);
	CHECK(r.gpu[0].share_ppm == 660000);
	CHECK(r.gpu[1].share_ppm == 830000);
	/* G2: rank 502 34 ms + 600 7 ms (its own subset) -> 79.5% */
	CHECK(r.gpu[2].share_ppm == 795000);
	CHECK(r.gpu[3].share_ppm == 830000);
}

int main(void)
{
	RUN(subset_on_busy_gpu);
	RUN(two_gpus_independent);
	RUN(gang_spans_gpus);
	RUN(scope_node_is_today);
	RUN(replay_multi_gpu_trace);
	RUN(replay_fixture_per_gpu);
	RUN(replay_gang_trace);
	return tap_done();
}
