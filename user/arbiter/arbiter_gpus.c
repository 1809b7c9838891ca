// SPDX-License-Identifier: GPL-2.0
/*
 * Per-GPU arbitration in the daemon (--scope gpu, the default; gpolicy.h,
 * docs/arbiter.md). The per-GPU policy makes the decisions; this file
 * feeds it what the daemon knows and carries its actions out:
 *
 * - Placement: an offline process's queues (gpu_id, type) from the KFD
 *   sysfs tree (root: --kfd-proc's stand-in in tests) when it joins and
 *   at each scan, from its session's GET_QUEUE_SNAPSHOT at attach and
 *   after each suspend/resume, and from the embedded tracer's
 *   CREATE_QUEUE events when it runs (--detect queues). A queue reported
 *   after its process was suspended on that GPU is suspended by its own
 *   id.
 * - Activity: busy/idle with the GPUs the signal names (notify gpu=); a
 *   signal with only a pid is all of that process's GPUs (its sysfs
 *   queues), and with none known, every GPU.
 * - Gangs: the key is the cgroup v2 path's hash (--gang cgroup) or the
 *   process group (--gang pgid).
 * - Actions: one SUSPEND_QUEUES or RESUME_QUEUES per offline process
 *   and direction per round (the machines' actions merged first:
 *   gp_gpolicy_coalesce), naming exactly the decision's queue ids
 *   (all=true: every queue of a fresh snapshot, for gangs and queues not
 *   known yet).
 *
 * The per-GPU policy decides in both scopes (--scope node is its one
 * node-wide machine). The node machine (a->pol) sees every signal only to
 * own the busy sources (counting, scope=pid, EALREADY, busy-max); it has
 * no offline member and never acts. The node-wide numbers `policy` and
 * the metrics show are derived from the per-GPU policy
 * (gp_gpolicy_node_view, arbg_view).
 *
 * What the loop reads here, and why none of it waits on another process
 * (docs/reliability.md, "A loop that never waits"):
 * - The cgroup gang key comes from the process's description (its
 *   /proc/PID/cgroup, read off the loop by the job that described it:
 *   arbiter_discover.c, arbiter_defer.c), not from a read here. On 6.1,
 *   proc_cgroup_show() takes the global cgroup_mutex (kernel/cgroup/
 *   cgroup.c), which a task migrating another between cgroups holds while
 *   it waits for cgroup_threadgroup_rwsem, whose readers are forks, execs
 *   and exits of any process; RCU and css_set_lock replaced the mutex only
 *   in v6.7 (9067d90006df, "cgroup: Eliminate the need for cgroup_mutex
 *   in proc_cgroup_show()").
 * - KFD's sysfs queue files (PID/queues/QID/{gpuid,type}) stay read on the
 *   loop: kfd_procfs_queue_show() (drivers/gpu/drm/amd/amdkfd/
 *   kfd_process.c) formats fields of the queue under no lock of KFD's
 *   (no process mutex, no mmap lock); kernfs holds only an active
 *   reference of the node (kernfs_get_active never waits) and the open
 *   file's own mutex, ours alone; listing PID/queues takes the kernfs
 *   root's rwsem for reading, which writers hold only to link or unlink a
 *   node (kernfs_drain drops it before it waits: fs/kernfs/dir.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter_int.h"
#include "backend.h"
#include "bk_cuda.h"
#include "hist.h"
#include "util.h"

int arbg_start(struct arbiter *a)
{
	a->g = gp_gpolicy_new(&a->cfg, a->o->scope, a->o->gang,
			      monotonic_ns());
	a->gact = calloc(1, sizeof(*a->gact));
	a->view = calloc(1, sizeof(*a->view));
	if (!a->g || !a->gact || !a->view) {
		arbg_stop(a);
		return -ENOMEM;
	}
	return 0;
}

void arbg_stop(struct arbiter *a)
{
	gp_gpolicy_free(a->g);
	free(a->gact);
	free(a->view);
	a->g = NULL;
	a->gact = NULL;
	a->view = NULL;
}

/* FNV-1a of the cgroup v2 path, never 0; 0 when unknown (no v2 line). */
static uint64_t cgroup_key(const char *path)
{
	uint64_t h = 14695981039346656037ULL;

	if (!path[0])
		return 0;
	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 1099511628211ULL;
	return h ? h : 1;
}

uint64_t arbg_gang_key(enum gp_gang k, const struct arb_proc *p)
{
	pid_t g;

	if (k == GP_GANG_CGROUP)
		return cgroup_key(p->desc.cgroup);
	/* getpgid: the task's group under RCU (kernel/sys.c), no wait */
	if (k == GP_GANG_PGID && (g = getpgid(p->pid)) > 0)
		return (uint64_t)g;
	return 0;
}

/*
 * The scan's pids (KFD's sysfs processes, n of them in *pids) plus the
 * CUDA processes the CUDA backend found off the loop, when it is on:
 * NVIDIA processes have no KFD entry. Returns the new count.
 */
int arbg_more_pids(struct daemon *d, int **pids, int n)
{
	struct gp_backend *b = daemon_backend(d, "cuda");
	int *more = NULL, m, *all;

	if (!b || (m = gp_bk_cuda_candidates(b, &more)) <= 0)
		return n;
	all = realloc(*pids, (n + m) * sizeof(int));
	if (all) {
		memcpy(all + n, more, m * sizeof(int));
		*pids = all;
		n += m;
	}
	free(more);
	return n;
}

/* pid's queues in the sysfs tree into the policy (new ones only count). */
static void place_sysfs(struct arbiter *a, int pid)
{
	struct gp_qplace q[GP_GP_MAX_QUEUES];
	int i, n = gp_qplace_from_sysfs(arb_kfd_proc_dir(a), pid, q,
					GP_GP_MAX_QUEUES);

	for (i = 0; i < n; i++)
		gp_gpolicy_queue(a->g, monotonic_ns(), pid, &q[i], a->gact);
}

/*
 * pid's last GET_QUEUE_SNAPSHOT (its session takes one at open and before
 * every suspend and resume) into the policy: each queue's gpu_id, those
 * created before any tracer ran included (gpolicy_snap.c).
 */
static void place_snapshot(struct daemon *d, struct arbiter *a, int pid)
{
	struct gp_bk_where w[GP_GP_MAX_QUEUES];
	struct gp_qplace q[GP_GP_MAX_QUEUES];
	struct target *t = target_find(d, pid);
	struct gp_bproc *bp = t ? target_proc(t) : NULL;
	int i, n, k = 0;

	if (!bp || (n = gp_bk_where(bp, w, GP_GP_MAX_QUEUES)) <= 0)
		return;
	/* places without a queue (a whole GPU: CUDA) are not queues: such
	 * a process stays unplaced, suspended whole */
	for (i = 0; i < n; i++)
		if (w[i].queue_id != UINT32_MAX)
			q[k++] = (struct gp_qplace){ .queue_id = w[i].queue_id,
				.gpu_id = w[i].gpu_id, .type = w[i].type,
				.origin = GP_QP_SNAPSHOT };
	if (k > 0)
		gp_gpolicy_snapshot(a->g, monotonic_ns(), pid, q, k, a->gact);
}

void arbg_attached(struct daemon *d, struct arb_proc *p)
{
	struct arbiter *a = arb_of(d);
	uint64_t key = arbg_gang_key(a->o->gang, p);

	gp_gpolicy_offline_attached(a->g, monotonic_ns(), p->pid, key,
				    a->gact);
	place_sysfs(a, p->pid);
	place_snapshot(d, a, p->pid);
}

void arbg_rescan(struct daemon *d)
{
	struct arbiter *a = arb_of(d);

	for (int i = 0; i < a->n; i++)
		if (a->p[i].cls == GP_CLASS_OFFLINE && a->p[i].joined)
			place_sysfs(a, a->p[i].pid);
	arb_apply(d);
}

void arbg_event(struct daemon *d, const struct gp_event *e)
{
	struct arbiter *a = arb_of(d);
	struct arb_proc *p;
	struct gp_qplace q = {};

	if (!a || !a->g || !(p = arb_find(a, e->pid)) ||
	    p->cls != GP_CLASS_OFFLINE || !p->joined)
		return;
	if (e->op == GP_OP_CREATE && e->ret >= 0 && e->gpu_id) {
		q.queue_id = e->queue_id;
		q.gpu_id = e->gpu_id;
		q.type = e->queue.type;
		q.origin = GP_QP_TRACER;
		gp_gpolicy_queue(a->g, monotonic_ns(), e->pid, &q, a->gact);
		arb_apply(d);
	} else if (e->op == GP_OP_DESTROY && e->ret >= 0) {
		gp_gpolicy_queue_gone(a->g, monotonic_ns(), e->pid,
				      e->queue_id, a->gact);
		arb_apply(d);
	}
}

/* The node view (gpolicy_view.c) into the arbiter's scratch policy. */
const struct gp_policy *arbg_view(struct arbiter *a, uint64_t now)
{
	if (!a->g)
		return &a->pol;
	gp_gpolicy_node_view(a->g, &a->pol, now, a->view);
	return a->view;
}

/* The GPUs a busy/idle means: named, else pid's queues', else all (-1). */
static int gpus_of(struct arbiter *a, int pid, const uint32_t *gpus,
		   int ngpus, uint32_t *out)
{
	struct gp_qplace q[GP_GP_MAX_QUEUES];
	int n;

	if (ngpus > 0) {
		memcpy(out, gpus, ngpus * sizeof(*gpus));
		return ngpus;
	}
	n = gp_qplace_from_sysfs(arb_kfd_proc_dir(a), pid, q,
				 GP_GP_MAX_QUEUES);
	n = n > 0 ? gp_qplace_gpus(q, n, out, GP_GP_MAX_GPUS) : 0;
	return n > 0 ? n : -1;
}

int arbg_edge(struct arbiter *a, uint64_t src, int pid, const uint32_t *gpus,
	      int ngpus, bool busy)
{
	uint32_t g[GP_GP_MAX_GPUS];
	int n = gpus_of(a, pid, gpus, ngpus, g);

	return busy ? gp_gpolicy_busy(a->g, monotonic_ns(), src, pid, g, n,
				      a->gact) :
		      gp_gpolicy_idle(a->g, monotonic_ns(), src, pid, g, n,
				      a->gact);
}

/*
 * What an action did, into the policy and the metrics. t0: when the call
 * began; dt its duration (for an operation that ran off the loop, until
 * its completion was seen).
 */
static void action_result(struct daemon *d, struct arbiter *a,
			  struct target *t, enum gp_pop pop, enum gp_pcause cause,
			  bool all, uint64_t t0, uint64_t dt,
			  const struct session_op *op, int r,
			  const struct gp_err *e)
{
	bool susp = pop == GP_POP_SUSPEND;
	const struct gp_gproc *gp;
	const char *bk = gp_bk_name(target_proc(t));
	pid_t pid = target_pid(t);

	gp_hist_add(susp ? &a->pol.st.suspend_ioctl :
		    &a->pol.st.resume_ioctl, dt);
	gp = gp_gpolicy_proc(a->g, pid);
	if (susp && op->ret >= 0) {
		if (!target_held_since(t))
			hold_start(d, t, 0);
		dm_suspend(pid, dt, cause == GP_CAUSE_BUSY &&
			   a->trigger_ns ? t0 + dt - a->trigger_ns : dt);
	} else if (!susp && (!gp || !arbg_held(gp))) {
		hold_end(t);
		if (!r || r == GP_EXIT_PARTIAL)
			dm_resume(pid, dt, false);
	}
	if (r && r != GP_EXIT_PARTIAL) {
		alog(a, "%s pid %d (%s) failed: %s", gp_pop_name(pop), pid,
		     gp_pcause_name(cause), e->msg);
		gp_gpolicy_failed(a->g, monotonic_ns(), pid, pop);
	} else {
		alog(a, "%s pid %d (%s): %u queues%s, %u ok, %.3f ms%s%s",
		     gp_pop_name(pop), pid, gp_pcause_name(cause), op->n,
		     all ? " (all)" : " named", op->n_ok, dt / 1e6,
		     strcmp(bk, "kfd") ? ", backend " : "",
		     strcmp(bk, "kfd") ? bk : "");
	}
}

/*
 * A suspend that ran off the loop (CUDA's lock, which waits for the
 * kernels in flight) completed: the policy counted it suspended since
 * the action ("locking"); a failure tells it otherwise now.
 */
static void suspend_done(struct daemon *d, struct target *t,
			 struct gp_bk_done *dn)
{
	struct arbiter *a = arb_of(d);
	uint64_t now = monotonic_ns();

	if (!a || !a->g)
		return;
	const struct gp_gproc *gp;
	struct session_op op = {};
	struct gp_err e = {};
	int r;

	uint64_t t0 = target_op_req_ns(t);
	pid_t pid = target_pid(t);

	action_result(d, a, t, GP_POP_SUSPEND,
		      (enum gp_pcause)target_op_tag(t), true, t0, now - t0,
		      &dn->op, dn->r, &dn->e);
	if (!dn->r || dn->r == GP_EXIT_PARTIAL)
		place_snapshot(d, a, pid);
	/* the policy let it go while the lock waited (idle came first):
	 * undo the lock now (the unlock waits for nothing) */
	gp = gp_gpolicy_proc(a->g, pid);
	if (dn->op.ret >= 0 && (!gp || !arbg_held(gp))) {
		now = monotonic_ns();
		r = gp_bk_resume(target_proc(t), NULL, 0, &op, &e);
		action_result(d, a, t, GP_POP_RESUME, GP_CAUSE_IDLE, true, now,
			      monotonic_ns() - now, &op, r, &e);
		session_op_free(&op);
	}
	arb_apply(d);
}

/* Carries out the per-GPU policy's actions (arb_apply in gpu scope). */
void arbg_apply(struct daemon *d)
{
	struct arbiter *a = arb_of(d);

	/* one backend call per process and direction: a busy naming two
	 * GPUs gives one action per GPU's machine (issue 32, point 4) */
	gp_gpolicy_coalesce(a->g, a->gact);
	for (int i = 0; i < a->gact->n; i++) {
		const struct gp_gaction *x = &a->gact->a[i];
		bool susp = x->op == GP_POP_SUSPEND;
		struct target *t = target_find(d, x->pid);
		struct session_op op = {};
		struct gp_err e = {};
		uint32_t n = x->all ? 0 : x->nids;
		uint64_t t0;
		int r;

		if (!t) {
			gp_gpolicy_failed(a->g, monotonic_ns(), x->pid, x->op);
			continue;
		}
		t0 = monotonic_ns();
		if (susp && x->cause == GP_CAUSE_BUSY && a->trigger_ns)
			gp_hist_add(&a->pol.st.trigger_to_suspend,
				    t0 - a->trigger_ns);
		r = susp ? gp_bk_suspend(target_proc(t), x->ids, n, 0, &op,
					 &e) :
			   gp_bk_resume(target_proc(t), x->ids, n, &op, &e);
		if (r == GP_BK_PENDING) {
			/* "locking": the result comes to suspend_done() */
			target_op_pending(t, suspend_done, x->cause, t0);
			alog(a, "%s pid %d (%s, %s): locking off the loop",
			     gp_pop_name(x->op), x->pid,
			     gp_pcause_name(x->cause),
			     gp_bk_name(target_proc(t)));
			session_op_free(&op);
			continue;
		}
		if (!susp && r == GP_EXIT_BUSY &&
		    gp_bk_state(target_proc(t)) == GP_BK_LOCKING) {
			/* the lock in flight is undone when it lands
			 * (suspend_done): the policy's resume stands */
			alog(a, "%s pid %d (%s): after the lock in flight",
			     gp_pop_name(x->op), x->pid,
			     gp_pcause_name(x->cause));
			session_op_free(&op);
			continue;
		}
		action_result(d, a, t, x->op, x->cause, x->all, t0,
			      monotonic_ns() - t0, &op, r, &e);
		session_op_free(&op);
		/* The snapshot the ioctl took: placement of a held process
		 * (its new queues' actions join this loop). Not after a
		 * failure: a gang still held would be retried at once. */
		if (!r || r == GP_EXIT_PARTIAL)
			place_snapshot(d, a, x->pid);
	}
	a->gact->n = 0;
}

bool arbg_held(const struct gp_gproc *p)
{
	if (p->whole)
		return true;
	for (int i = 0; i < p->nq; i++)
		if (p->q[i].suspended)
			return true;
	return false;
}

/*
 * Carries out the decisions: the per-GPU policy's (gpolicy.c, in either
 * scope), each one KFD ioctl on a warm session (arbiter_gpus.c). The node
 * machine (a->pol) keeps only the busy sources: it has no offline member
 * and so never acts.
 */
void arb_apply(struct daemon *d)
{
	struct arbiter *a = arb_of(d);

	a->act.n = 0;
	if (a->g)
		arbg_apply(d);
}
