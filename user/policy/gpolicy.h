/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-GPU arbitration: one policy.c state machine per GPU (gpu_id), so
 * hysteresis, budget windows, min-share and max-hold hold per GPU, and a
 * decision names, per offline process, exactly the queue ids on the GPUs
 * it concerns. Pure like policy.c: clock injected, no I/O; the caller
 * feeds queue placement (qplace.h: tracer, sysfs, snapshot) and activity.
 *
 * Scope (--scope):
 *   gpu   one state machine per gpu_id. Online busy on a set of GPUs
 *         drives only those GPUs' machines; an offline unit is a member
 *         of the machine of every GPU it has queues on.
 *   node  one machine for the whole node; every busy drives it and a
 *         decision suspends every queue of every offline process (the
 *         single-GPU arbiter's behaviour, action for action).
 * Gangs (--gang): offline processes grouped into one unit.
 *   none    each process its own unit; on a busy GPU only its queues on
 *           that GPU are suspended (the others keep running).
 *   pgid    processes of one process group (torchrun and its ranks on
 *           bare metal, started from one shell job);
 *   cgroup  processes of one cgroup (a container, a Kubernetes pod, a
 *           systemd unit).
 *   A gang is suspended on all its GPUs when online needs any of them
 *   (its ranks wait for each other in collectives: a rank left running
 *   beside a suspended peer only spins), and resumed when no GPU needs
 *   it. Each GPU's machine counts the gang once: one member of its
 *   offline table, one share, one budget.
 * The caller computes gang keys (a pgid, a cgroup id); 0 = none, and a
 * process without a key is its own unit, suspended by subsets.
 *
 * Placement: an offline process is a member of a GPU's machine once a
 * queue of it on that GPU is reported (gp_gpolicy_queue: sysfs and the
 * snapshot at attach, then the tracer's creates). Before any queue of
 * its unit is reported it may be on any GPU: it is a member of every
 * GPU's machine (those known and those made later) and is held whole
 * (all=true) when online is busy on any of them. Its first reported
 * queue moves it to exact placement: it leaves the machines of GPUs it
 * has no queue on, and a whole hold becomes one RESUME of all and one
 * SUSPEND of the ids still wanted. A busy naming no GPU while no GPU is
 * known drives the machine of gpu_id 0 ("no GPU known yet": KFD gives
 * CPU nodes gpu_id 0, never a GPU).
 *
 * Actions carry the queue ids to name in one SUSPEND_QUEUES or
 * RESUME_QUEUES ioctl for the process. all=true asks for every queue of
 * a fresh snapshot as well (node scope and gangs: queues the tables do
 * not know yet are the job's too). A queue reported after its process
 * was suspended on that GPU gets a SUSPEND of its own id.
 */
#ifndef GP_GPOLICY_H
#define GP_GPOLICY_H

#include "policy.h"
#include "qplace.h"

#define GP_GP_MAX_GPUS 64	/* 8 cards in CPX mode */
#define GP_GP_MAX_PROCS GP_POLICY_MAX_OFFLINE
#define GP_GP_MAX_QUEUES 128	/* per process: ~60 for one on 8 GPUs */
#define GP_GP_MAX_ACTIONS (2 * GP_GP_MAX_PROCS)
#define GP_GP_NODE 0		/* the node-scope machine's gpu_id */

enum gp_scope { GP_SCOPE_GPU, GP_SCOPE_NODE };
enum gp_gang { GP_GANG_NONE, GP_GANG_PGID, GP_GANG_CGROUP };

struct gp_gaction {
	enum gp_pop op;
	int pid;
	enum gp_pcause cause;
	bool all;		/* plus every queue of a fresh snapshot */
	int nids;
	uint32_t ids[GP_GP_MAX_QUEUES];
};

struct gp_gactions {
	int n;
	struct gp_gaction a[GP_GP_MAX_ACTIONS];
};

struct gp_gproc {
	int pid;
	int unit;		/* index into units */
	bool whole;		/* suspended as a whole (all=true) */
	int nq;
	struct gp_qplace q[GP_GP_MAX_QUEUES];
	uint64_t suspend_ioctls, resume_ioctls;
};

struct gp_gunit {
	int id;			/* the machines' "pid": a pid, or -n */
	uint64_t key;		/* gang key, 0 none */
	int members;
	enum gp_pcause cause;	/* of the last machine action this sync */
	bool acted;
	bool placed;		/* a queue of it was reported (gpu scope) */
};

struct gp_gslot {
	uint32_t gpu_id;
	struct gp_policy p;
};

struct gp_gpolicy {
	enum gp_scope scope;
	enum gp_gang gang;
	struct gp_policy_cfg cfg;
	uint64_t now;
	int next_gang;
	int nslot, nproc, nunit;
	struct gp_gslot *slot[GP_GP_MAX_GPUS];
	struct gp_gproc proc[GP_GP_MAX_PROCS];
	struct gp_gunit unit[GP_GP_MAX_PROCS];
	struct gp_pactions tmp;	/* one machine's actions, scratch */
	uint64_t suspend_ioctls, resume_ioctls, queues_named;
};

/* Allocates; NULL on ENOMEM. */
struct gp_gpolicy *gp_gpolicy_new(const struct gp_policy_cfg *c,
				  enum gp_scope scope, enum gp_gang gang,
				  uint64_t now);
void gp_gpolicy_free(struct gp_gpolicy *g);

/*
 * One backend call per process and direction per decision round
 * (gpolicy_round.c): the machines decide one GPU at a time, so a busy
 * naming two GPUs gives a process on both one SUSPEND per GPU. Merges
 * each action of acts into its process's previous one when that has the
 * same op (nothing of that process lies between, so the order of its
 * calls holds), naming the union of their queue ids; the counters
 * (suspend_ioctls, resume_ioctls, queues_named) then count the calls.
 * Returns how many actions were merged away.
 */
int gp_gpolicy_coalesce(struct gp_gpolicy *g, struct gp_gactions *acts);

/*
 * Activity from any detector: online pid busy/idle on gpus[0..ngpus)
 * (ngpus < 0: every GPU the policy knows; a notify without a GPU, when
 * the caller knows no queue of pid). Returns 0 or -errno as policy.c.
 */
int gp_gpolicy_busy(struct gp_gpolicy *g, uint64_t now, uint64_t src,
		    int pid, const uint32_t *gpus, int ngpus,
		    struct gp_gactions *out);
int gp_gpolicy_idle(struct gp_gpolicy *g, uint64_t now, uint64_t src,
		    int pid, const uint32_t *gpus, int ngpus,
		    struct gp_gactions *out);
void gp_gpolicy_source_closed(struct gp_gpolicy *g, uint64_t now,
			      uint64_t src, struct gp_gactions *out);
void gp_gpolicy_online_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			    struct gp_gactions *out);

/* Offline processes: attach (with their gang key), queues, detach. */
int gp_gpolicy_offline_attached(struct gp_gpolicy *g, uint64_t now, int pid,
				uint64_t gang_key, struct gp_gactions *out);
int gp_gpolicy_queue(struct gp_gpolicy *g, uint64_t now, int pid,
		     const struct gp_qplace *q, struct gp_gactions *out);
void gp_gpolicy_queue_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			   uint32_t queue_id, struct gp_gactions *out);
/*
 * pid's full queue list from a GET_QUEUE_SNAPSHOT (decoded by
 * gp_qplace_from_snapshot): each row is reported as gp_gpolicy_queue
 * does; a known queue the list lacks stays (gpolicy_snap.c).
 * 0, -ENOENT (pid not attached) or gp_gpolicy_queue's error.
 */
int gp_gpolicy_snapshot(struct gp_gpolicy *g, uint64_t now, int pid,
			const struct gp_qplace *rows, int n,
			struct gp_gactions *out);
void gp_gpolicy_offline_gone(struct gp_gpolicy *g, uint64_t now, int pid,
			     struct gp_gactions *out);

/* New timings on every GPU's machine (policy.h's reconfigure, each). */
void gp_gpolicy_reconfigure(struct gp_gpolicy *g, uint64_t now,
			    const struct gp_policy_cfg *c,
			    struct gp_gactions *out);

void gp_gpolicy_tick(struct gp_gpolicy *g, uint64_t now,
		     struct gp_gactions *out);
/* An action failed: the process is recorded as running everywhere. */
void gp_gpolicy_failed(struct gp_gpolicy *g, uint64_t now, int pid,
		       enum gp_pop op);
/* An admin resumed pid outside the policy: recorded running everywhere,
 * suspended again at the next busy edge of a GPU it is on, not at a
 * window boundary (gp_policy_offline_released). A gang stays held while
 * another of its ranks is suspended (online's idle resumes that one);
 * the rank resumed runs until the gang's next action. */
void gp_gpolicy_released(struct gp_gpolicy *g, uint64_t now, int pid);
uint64_t gp_gpolicy_next_deadline(const struct gp_gpolicy *g);

/* Lookups for policy output and tests. */
const struct gp_gslot *gp_gpolicy_slot(const struct gp_gpolicy *g,
				       uint32_t gpu_id);
const struct gp_gproc *gp_gpolicy_proc(const struct gp_gpolicy *g, int pid);
/* Queues of pid suspended on gpu_id (as far as the policy knows). */
int gp_gpolicy_suspended_on(const struct gp_gpolicy *g, int pid,
			    uint32_t gpu_id);

/*
 * The node-wide numbers, derived (gpolicy_view.c): sources' busy table,
 * busy periods and histograms, with the state (the busiest GPU's), the
 * action counts (ioctls, and the machines' budget/max-hold/cancelled
 * resumes and failures, summed) and one offline row per process (held,
 * its ioctls, its longest suspended time over its GPUs) from g.
 */
void gp_gpolicy_node_view(const struct gp_gpolicy *g,
			  const struct gp_policy *sources, uint64_t now,
			  struct gp_policy *v);

const char *gp_scope_name(enum gp_scope s);
const char *gp_gang_name(enum gp_gang k);
/* "gpu"/"node", "none"/"pgid"/"cgroup": 0 or -EINVAL. */
int gp_scope_parse(const char *s, enum gp_scope *out);
int gp_gang_parse(const char *s, enum gp_gang *out);

#endif
