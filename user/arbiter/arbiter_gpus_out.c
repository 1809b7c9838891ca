// SPDX-License-Identifier: GPL-2.0
/*
 * The policy verb's per-GPU lines (arb_proto.h), gpu lines in --scope gpu
 * only (node scope's one machine is the arbiter line):
 *   scope scope=gpu|node gang=cgroup|pgid|none
 *   gpu gpu_id= state= online_busy=0|1 offline_units= busy_periods=
 *       suspends= resumes= budget_resumes= max_hold_resumes=
 *   gang id= key=HEX members=      (offline processes held as one job)
 *   gproc pid= unit= gpus=ID,ID|- queues= suspended_queues= whole=0|1
 *       suspend_ioctls= resume_ioctls=
 */
#include <stdio.h>

#include "arbiter_int.h"
#include "backend.h"
#include "prom.h"
#include "util.h"

void arbg_policy_lines(struct daemon *d, struct client *c)
{
	struct arbiter *a = arb_of(d);
	const struct gp_gpolicy *g = a->g;
	int i;

	reply_linef(c, "scope scope=%s gang=%s\n", gp_scope_name(a->o->scope),
		    gp_gang_name(a->o->gang));
	if (!g)
		return;
	/* --scope node: its one machine is the node's, the arbiter line */
	for (i = 0; g->scope == GP_SCOPE_GPU && i < g->nslot; i++) {
		const struct gp_gslot *s = g->slot[i];
		const struct gp_policy_stats *st = &s->p.st;

		reply_linef(c, "gpu gpu_id=%u state=%s online_busy=%d "
			    "offline_units=%d busy_periods=%llu suspends=%llu "
			    "resumes=%llu budget_resumes=%llu "
			    "max_hold_resumes=%llu\n", s->gpu_id,
			    gp_pstate_name(s->p.state),
			    gp_policy_online_busy(&s->p), s->p.n_off,
			    (unsigned long long)st->busy_periods,
			    (unsigned long long)st->suspends,
			    (unsigned long long)st->resumes,
			    (unsigned long long)st->budget_resumes,
			    (unsigned long long)st->max_hold_resumes);
	}
	for (i = 0; i < GP_GP_MAX_PROCS; i++) {
		const struct gp_gunit *u = &g->unit[i];

		if (u->key && u->members)
			reply_linef(c, "gang id=%d key=%llx members=%d\n",
				    u->id, (unsigned long long)u->key,
				    u->members);
	}
	for (i = 0; i < g->nproc; i++) {
		const struct gp_gproc *p = &g->proc[i];
		uint32_t gpus[GP_GP_MAX_GPUS];
		char list[GP_GP_MAX_GPUS * 11 + 2] = "-";
		int n = gp_qplace_gpus(p->q, p->nq, gpus, GP_GP_MAX_GPUS);
		int k, off = 0, susp = 0;

		if (!arb_shows(a, c, p->pid))
			continue;	/* a tenant sees its own only */
		for (k = 0; k < n; k++)
			off += snprintf(list + off, sizeof(list) - off, "%s%u",
					k ? "," : "", gpus[k]);
		for (k = 0; k < p->nq; k++)
			susp += p->q[k].suspended;
		reply_linef(c, "gproc pid=%d unit=%d gpus=%s queues=%d "
			    "suspended_queues=%d whole=%d suspend_ioctls=%llu "
			    "resume_ioctls=%llu\n", p->pid, g->unit[p->unit].id,
			    list, p->nq, susp, p->whole,
			    (unsigned long long)p->suspend_ioctls,
			    (unsigned long long)p->resume_ioctls);
	}
}

/*
 * The policy verb's backend= and gpus= of an offline process: its
 * backend's name and where its work runs (GPU UUIDs on NVIDIA, 0x
 * gpu_ids on KFD, "all" when the backend does not know), "-" for both
 * while it is not attached. Reads only what the backend last saw (its
 * snapshot, NVML's list): nothing here waits on the process.
 */
void arbg_backend_text(struct daemon *d, int pid, char *bk, size_t bl,
		       char *gpus, size_t gl)
{
	struct target *t = target_find(d, pid);
	struct gp_bproc *p = t ? target_proc(t) : NULL;

	snprintf(bk, bl, "%s", p ? gp_bk_name(p) : "-");
	snprintf(gpus, gl, "-");
	if (p && gp_bk_gpus_text(p, gpus, gl) >= 0 && !gpus[0])
		snprintf(gpus, gl, "-");
	else if (p && !gpus[0])
		snprintf(gpus, gl, "all");
}

/* Per-GPU families of the --metrics scrape, labelled by gpu_id. */
void arbg_metrics(const struct arbiter *a, struct prom_buf *b)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "gpreempt_gpu_online_busy", "gauge",
		  "1 while online is busy on this GPU (gpu_id), else 0." },
		{ "gpreempt_gpu_offline_units", "gauge",
		  "Offline units (processes or gangs) with queues on this GPU." },
		{ "gpreempt_gpu_suspends_total", "counter",
		  "Suspends of offline units by this GPU's policy." },
		{ "gpreempt_gpu_resumes_total", "counter",
		  "Resumes of offline units by this GPU's policy." },
		{ "gpreempt_gpu_budget_resumes_total", "counter",
		  "This GPU's --min-offline-share resumes while online was "
		  "busy." },
	};
	const struct gp_gpolicy *g = a->g;
	char lab[64], id[16];

	if (!g || g->scope != GP_SCOPE_GPU)	/* node: gpreempt_policy_* */
		return;
	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		prom_family(b, fam[f].name, fam[f].type, fam[f].help);
		for (int i = 0; i < g->nslot; i++) {
			const struct gp_policy *p = &g->slot[i]->p;
			double v[] = { gp_policy_online_busy(p), p->n_off,
				       p->st.suspends, p->st.resumes,
				       p->st.budget_resumes };

			snprintf(id, sizeof(id), "%u", g->slot[i]->gpu_id);
			prom_sample(b, fam[f].name, prom_labels(lab,
				    sizeof(lab), "gpu_id", id, NULL), v[f]);
		}
	}
}
