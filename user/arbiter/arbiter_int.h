/* SPDX-License-Identifier: GPL-2.0 */
/* What the arbiter's files share (arbiter.h). */
#ifndef GP_ARBITER_INT_H
#define GP_ARBITER_INT_H

#include "activity.h"
#include "arbiter.h"
#include "daemon_host.h"
#include "daemon_module.h"
#include "err.h"
#include "exitcodes.h"
#include "kfd.h"
#include "proc_desc.h"
#include "qwatch.h"
#include "source.h"

/* Each detector's busy is a policy source of its own kind (source.h),
 * fed as an activity record (activity.h, arb_feed): the watcher's and
 * the launch detector's one per pid, notify's one per connection (its
 * id below) or, scope=pid, per pid. What closes a source names it. */
#define ARB_CONN_ID(c) ((uintptr_t)(c))
#define ARB_SRC_CONN(c) gp_src(GP_SRC_CONN, ARB_CONN_ID(c))
#define ARB_SRC_QWATCH(pid) gp_src(GP_SRC_QUEUES, (uint32_t)(pid))

/* The arbiter's limit causes (daemon_host.h), named in its module table
 * (arbiter_module.c): counted and logged by alimit(). */
enum arb_limit {
	ARB_LIMIT_PROCS,	/* the process table */
	ARB_LIMIT_CLASSES,	/* run-time classes */
	ARB_LIMIT_BUSY_EXPIRED,	/* a busy not renewed within its bound */
	ARB_LIMIT_STUCK_UID,	/* stuck /proc readers of one uid */
	ARB_LIMIT_STUCK,	/* stuck /proc readers, all uids */
	ARB_LIMIT_PARKED,	/* requests waiting for a description */
	ARB_LIMIT__N,
};
#define alimit(cause, ...) dlimit_mod(&arbiter_module, (cause), __VA_ARGS__)

/* A process the arbiter knows: found by the KFD scan or named by a
 * busy/idle/classify request. */
struct arb_proc {
	int pid;
	uid_t uid;		/* real uid: who may signal for it */
	enum gp_pclass cls;
	char comm[16];
	int pidfd;		/* exit detection; -1 if pidfd_open failed */
	bool joined;		/* offline: attached and in the policy */
	bool own_session;	/* the arbiter attached it (a reload that
				 * unclassifies it detaches it) */
	bool conflict;		/* matched both classes: left alone */
	uint64_t retry_at;	/* offline: next attach attempt */
	/* As described when first met (the scan's job, a parked request)
	 * or last classified: what a reload classifies again, with no read
	 * of its /proc files on the loop (arbiter_reload.c). */
	struct gp_proc_desc desc;
};

/* A process whose /proc files did not answer (arbiter_stuck.c). */
struct arb_stuck {
	int pid;
	uid_t uid;		/* its owner: the per-uid bound */
	int pidfd;		/* its exit forgets it; -1: kill(pid, 0) */
};

/* Remembered at once, all uids; of one non-root uid; root's own room,
 * which no other uid's records can take. */
#define ARB_MAX_STUCK 64
#define ARB_STUCK_PER_UID 4
#define ARB_STUCK_ROOT 16
#define ARB_DESC_MAX 32		/* new pids one job describes */
#define ARB_DESC_DEADLINE_NS (2 * NSEC_PER_SEC)

struct arbiter {
	const struct arbiter_opts *o;
	struct gp_policy_cfg cfg;
	struct gp_classifier cls;	/* selectors + run-time classes */
	struct gp_policy pol;
	struct gp_pactions act;
	uint64_t started, next_scan;
	uint64_t trigger_ns;	/* when the last busy arrived */
	uint64_t busy_expired_said;	/* pol.st.busy_expired logged */
	uint64_t refused;	/* busy/idle refused: not online (W1, N15) */
	uint64_t log_sec, log_n, log_dropped;	/* alog()'s rate limit */
	uint64_t next_poll;
	struct gp_qwatch qw;	/* --detect queues */
	struct gp_offjob *qp;	/* its poll in flight (arbiter_qpoll.c) */
	struct gp_gpolicy *g;	/* the deciding policy (either scope) */
	struct gp_gactions *gact;	/* its actions, to carry out */
	struct gp_policy *view;	/* its node view, scratch (arbg_view) */
	struct gp_offjob *dj;	/* new pids being described (off the loop) */
	int n_stuck;
	struct arb_stuck stuck[ARB_MAX_STUCK];
	struct arb_parks *parks;	/* requests waiting (arbiter_defer.c) */
	int n;
	struct arb_proc p[ARB_MAX_PROCS];
};

/* Its state while it runs (else NULL) and its options block (NULL when
 * the daemon's options were built without the module): daemon_module.h. */
static inline struct arbiter *arb_of(const struct daemon *d)
{
	return daemon_module_data(d, &arbiter_module);
}

static inline void arb_set(struct daemon *d, struct arbiter *a)
{
	daemon_module_set_data(d, &arbiter_module, a);
}

static inline struct arbiter_opts *arb_opts(const struct daemon *d)
{
	return daemon_module_opts(d, &arbiter_module);
}

/* The module's verbs (arbiter_req.c) and fd callback (arbiter_queues.c). */
void arbiter_busy(struct daemon *d, struct client *c, const char *line,
		  size_t len);
void arbiter_idle(struct daemon *d, struct client *c, const char *line,
		  size_t len);
void arbiter_classify(struct daemon *d, struct client *c, const char *line,
		      size_t len);
void arbiter_policy(struct daemon *d, struct client *c, const char *line,
		    size_t len);
void arbiter_watch(struct daemon *d, struct client *c, const char *line,
		   size_t len);

/* arbiter_core.c: the process table and the log. */
#define ARB_LOG_PER_SEC 50
void alog(struct arbiter *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *arb_kfd_proc_dir(const struct arbiter *a);
struct arb_proc *arb_find(struct arbiter *a, int pid);
/* May c see pid's lines in `policy`? An admin every process, a tenant its
 * own uid's only, in its own PID namespace (as `status` shows only its own
 * holds: daemon_view.h). */
bool arb_shows(struct arbiter *a, const struct client *c, int pid);
struct arb_proc *arb_add(struct arbiter *a, const struct gp_proc_desc *pd,
			 enum gp_pclass cls);
/* Classes with a selector a process can match by itself (select.h):
 * "none", "online", "offline", "online,offline"; warned at start. */
const char *arb_spoofable(const struct arbiter *a);
void arb_warn_spoofable(struct arbiter *a);
/* arbiter_procs.c: class changes. */
void arb_offline_join(struct daemon *d, struct arb_proc *p);
void arb_leave(struct daemon *d, struct arb_proc *p, const char *why);
/*
 * Moves p to class cls (reload, classify): the policy first (a suspended
 * offline process is resumed, an online one's busy ends), then the
 * session (the arbiter's own is detached), then the queue watcher. False
 * when p already was in cls.
 */
bool arb_set_class(struct daemon *d, struct arb_proc *p, enum gp_pclass cls,
		   bool conflict, const char *why);

/*
 * arbiter_discover.c: the scan's new pids described off the loop. A tick
 * takes a finished job, marks the pid a late one was reading stuck, and
 * starts a job for pids[0..n) not known yet. arb_stuck_find: a stuck pid
 * (never described: busy/idle/classify refuse it), else NULL.
 */
struct gp_offjob;
void arb_discover_tick(struct daemon *d, const int *pids, int n,
		       uint64_t now);
/* Only the take, every round (a job's end wakes the loop: offjob.h). */
void arb_discover_take(struct daemon *d, uint64_t now);
void arb_discover_stop(struct arbiter *a);
/* Forget the KFD processes no selector classed (a reload: new selectors
 * may class them; the next scan describes them again). */
void arb_ignored_clear(void);
/* A described process not seen before: classified and added. */
void arb_discover_desc(struct daemon *d, const struct gp_proc_desc *pd);

/*
 * arbiter_stuck.c: processes whose /proc files did not answer, bounded
 * per owner. arb_stuck_find: a stuck pid (never read again: busy, idle,
 * classify refuse it), else NULL. arb_stuck_owner: pid's owner from the
 * stat of its /proc folder (a procfs getattr: no lock of the target's
 * is taken), 0 or -errno. arb_stuck_room: 0, or -EDQUOT when uid has
 * its share, -ENOSPC when the table has no room for uid. arb_stuck_add:
 * remembers pid (via: who read it, for the log), else logs and counts
 * the full table and returns arb_stuck_room's error.
 */
struct arb_stuck;
const struct arb_stuck *arb_stuck_find(const struct arbiter *a, int pid);
int arb_stuck_owner(const struct arbiter *a, int pid, uid_t *uid);
int arb_stuck_room(const struct arbiter *a, uid_t uid);
int arb_stuck_add(struct arbiter *a, int pid, uid_t uid, const char *via);
void arb_stuck_forget_exited(struct arbiter *a);
/* The refusal of a request naming a stuck pid: -1 with e filled. */
int arb_stuck_err(struct gp_err *e, int pid);
void arb_stuck_clear(struct arbiter *a);
/* The /proc processes are described from (--proc-root's stand-in). */
const char *arb_proc_root(const struct arbiter *a);

/*
 * arbiter_defer.c: a request naming a process not described yet is
 * parked and answered once a job (offjob.h) described it off the loop,
 * or refused at ARB_DESC_DEADLINE_NS with the pid marked stuck. Parked
 * requests are bounded (ARB_PARK_MAX, ARB_PARK_PER_UID a non-admin
 * uid); arb_defer answers a refusal itself. done (the handler) runs
 * again with the description.
 */
#define ARB_PARK_MAX 16
#define ARB_PARK_PER_UID 2
#define ARB_PARK_ADMIN 4	/* of ARB_PARK_MAX, admins' alone */
struct arb_req;
struct gp_proc_desc;
/* q again, pid described (err 0 and pd) or gone (err < 0). */
typedef void arb_described_fn(struct daemon *d, struct client *c,
			      const struct arb_req *q, int err,
			      const struct gp_proc_desc *pd);
/* owner: pid's, from arb_stuck_owner (read once, by the caller). */
void arb_defer(struct daemon *d, struct client *c, const struct arb_req *q,
	       int pid, uid_t owner, arb_described_fn *done);
void arb_defer_tick(struct daemon *d, uint64_t now);
uint64_t arb_defer_deadline(const struct arbiter *a);
void arb_defer_closed(struct arbiter *a, const struct client *c);
/* Waiting requests refused (their connections' later lines are served
 * by their next bytes, never at shutdown). */
void arb_defer_stop(struct arbiter *a);

/* arbiter_launch.c: --detect launch. */
void arbl_start(struct daemon *d);
void arbl_stop(struct daemon *d);
void arbl_tick(struct daemon *d);
uint64_t arbl_deadline(const struct daemon *d);
/* Every active detector, "notify,queues,launch" (in buf, returned). */
const char *arb_detect_names(const struct arbiter_opts *o, char *buf,
			     size_t len);

/* arbiter_queues.c: the embedded tracer feeding the watcher. */
struct gp_event;
void arbq_start(struct daemon *d);
void arbq_stop(struct daemon *d);
void arbq_tick(struct daemon *d);

/*
 * The debugfs MQD dump, read off the loop (arbiter_mqd.c): start a read
 * (a job, offjob.h; NULL when no memory or no thread: try again later),
 * and its result once it ended (else NULL; never blocks). gp_offjob_put
 * drops it (the thread frees a read still under way when it ends).
 */
struct gp_offjob;
struct gp_qf_mqd;
struct gp_offjob *arb_mqd_start(const struct arbiter_opts *o, uint64_t now);
const struct gp_qf_mqd *arb_mqd_result(const struct gp_offjob *job);
void arbq_event(struct daemon *d, const struct gp_event *e);

/* arbiter_feed.c: one detector's edge (activity.h) into the policy: 0,
 * or the node machine's refusal (-EALREADY: an idle with no busy open
 * for its source; -ENOSPC: too many busy sources). */
int arb_feed(struct arbiter *a, const struct gp_activity *r);
/* Every busy of source src ends (its connection closed, its detector
 * turned off), on both machines. */
void arb_source_closed(struct arbiter *a, uint64_t src, uint64_t now);

/* arbiter_gpus.c: the per-GPU policy in the daemon (a->g NULL only when
 * out of memory at a reload: nothing is decided until the next one). */
int arbg_start(struct arbiter *a);
void arbg_stop(struct arbiter *a);
/* The gang p belongs to under k (0: none): from its description. */
uint64_t arbg_gang_key(enum gp_gang k, const struct arb_proc *p);
void arbg_attached(struct daemon *d, struct arb_proc *p);
void arbg_rescan(struct daemon *d);
/* The scan's pids plus the CUDA backend's processes; the new count. */
int arbg_more_pids(struct daemon *d, int **pids, int n);
void arbg_event(struct daemon *d, const struct gp_event *e);
/* busy/idle on gpus[0..ngpus) (0: pid's GPUs, else all). */
int arbg_edge(struct arbiter *a, uint64_t src, int pid, const uint32_t *gpus,
	      int ngpus, bool busy);
void arbg_apply(struct daemon *d);
/* Carry out the decisions: the per-GPU policy's, on warm sessions. */
void arb_apply(struct daemon *d);
/* The node-wide numbers, derived from a->g (a->pol when it is NULL). */
const struct gp_policy *arbg_view(struct arbiter *a, uint64_t now);
struct gp_gproc;
bool arbg_held(const struct gp_gproc *p);
/* The policy verb's and metrics' per-GPU lines (arbiter_gpus_out.c). */
void arbg_policy_lines(struct daemon *d, struct client *c);
void arbg_backend_text(struct daemon *d, int pid, char *bk, size_t bl,
		       char *gpus, size_t gl);
struct prom_buf;
void arbg_metrics(const struct arbiter *a, struct prom_buf *b);
void arbq_policy(struct daemon *d, struct client *c);

/* arbiter_qpoll.c: the queue watcher's poll off the loop. A job not
 * done within the deadline is stuck on cur's memory. */
#define ARB_QPOLL_DEADLINE_NS (2 * NSEC_PER_SEC)
struct gp_offjob;
/* The job (offjob.h: done, late, put); NULL when it cannot start. */
struct gp_offjob *arb_qpoll_start(const struct gp_qwatch *w, uint64_t now);
int arb_qpoll_current(const struct gp_offjob *job);
void arb_qpoll_merge(struct gp_offjob *job, struct gp_qwatch *w,
		     const struct gp_qw_cb *cb);

#endif
