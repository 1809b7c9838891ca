/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arbitration policy: a pure state machine with an injected clock.
 * No syscalls, no time source: every entry point takes "now" (ns, any
 * monotonic base) and appends actions to an output list. The daemon
 * executes them (one KFD suspend/resume ioctl each) and arms its timer at
 * gp_policy_next_deadline(); the replay (replay.c) drives the same code
 * from a recorded trace. One home for every decision.
 *
 * Rules (issue 10):
 * - online is busy while any (source, online pid) pair has a positive
 *   count: "busy" twice needs "idle" twice; closing a source ends all of
 *   its busy; an online process exiting ends every busy naming it.
 * - busy -> every attached offline process is suspended at once.
 * - idle for resume_after (hysteresis) -> every offline process resumes;
 *   busy again inside that gap cancels the resume (no toggle).
 * - budget: time is cut into windows of window_ns from the policy's
 *   start. When offline's suspended time in the current window reaches
 *   (100 - min_offline_share)% of it, offline resumes for the rest of the
 *   window ("budget" resume, counted) and is suspended again at the next
 *   window's start if online is still busy. share 0 disables this.
 * - max_hold: no one suspension of a process lasts longer (the daemon's
 *   watchdog bound). The policy resumes it itself at max_hold (cause
 *   "max-hold") and leaves it running for the rest of the window, so the
 *   watchdog never has to step in; 0 means no bound.
 * - an offline process attached while online is busy is suspended at once.
 *
 * Actions are optimistic: a SUSPEND marks the process suspended when it is
 * emitted. The caller reports failures with gp_policy_failed(); a failed
 * resume must leave the process running (the daemon ends its session,
 * which makes the kernel resume it), so it is recorded as running.
 */
#ifndef GP_POLICY_H
#define GP_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "gpreempt.h"

#define GP_POLICY_MAX_OFFLINE 64
#define GP_POLICY_MAX_BUSY 128	/* distinct (source, online pid) pairs */
#define GP_POLICY_MAX_ACTIONS (2 * GP_POLICY_MAX_OFFLINE)
#define GP_POLICY_NO_DEADLINE UINT64_MAX

enum gp_pclass { GP_CLASS_NONE, GP_CLASS_ONLINE, GP_CLASS_OFFLINE };

enum gp_pcause {
	GP_CAUSE_BUSY,		/* online became busy */
	GP_CAUSE_IDLE,		/* online idle for resume_after */
	GP_CAUSE_BUDGET,	/* min-offline-share reached in the window */
	GP_CAUSE_MAX_HOLD,	/* one suspension reached max_hold */
	GP_CAUSE_WINDOW,	/* new window, online still busy */
	GP_CAUSE_ATTACHED,	/* offline attached while online busy */
	GP_CAUSE_DETACH,	/* offline process left the policy */
	GP_CAUSE__N,
};

enum gp_pop { GP_POP_SUSPEND, GP_POP_RESUME };

struct gp_paction {
	enum gp_pop op;
	int pid;
	enum gp_pcause cause;
};

struct gp_pactions {
	int n;
	struct gp_paction a[GP_POLICY_MAX_ACTIONS];
};

struct gp_policy_cfg {
	uint64_t resume_after_ns;	/* default 2 ms */
	unsigned int min_offline_share;	/* percent 0..100, default 0 */
	uint64_t window_ns;		/* default 1 s */
	uint64_t max_hold_ns;		/* 0: none */
	uint64_t busy_max_ns;		/* a busy neither renewed nor
					 * confirmed this long ends; 0: never;
					 * default GP_POLICY_BUSY_MAX_NS */
};

/* 60 s: longer than a long generation request of an inference server, so
 * a server that says busy once per request is never cut short; a client
 * that says busy and never idle holds offline at most this long. */
#define GP_POLICY_BUSY_MAX_NS (60ULL * 1000000000ULL)

struct gp_poffline {
	int pid;
	bool suspended;
	bool held_out;		/* released by max-hold until the window ends */
	bool released;		/* resumed by an admin: runs until the next
				 * idle -> busy edge (windows keep off it) */
	uint64_t since;		/* suspended since */
	uint64_t attached_at;
	uint64_t suspended_ns;	/* total, closed suspensions */
	uint64_t suspends, resumes, failures;
};

struct gp_pbusy {
	uint64_t src;		/* connection id, or a watcher's id */
	int pid;		/* the online process meant */
	unsigned int count;
	uint64_t seen;		/* last busy or activity (busy_max_ns) */
};

enum gp_pstate {
	GP_PS_IDLE,		/* online idle, offline runs */
	GP_PS_BUSY,		/* online busy, offline suspended */
	GP_PS_LINGER,		/* online idle, waiting resume_after */
	GP_PS_BUDGET,		/* online busy, offline runs (budget) */
};

struct gp_policy_stats {
	uint64_t busy_periods;		/* idle -> busy transitions */
	uint64_t suspends, resumes;	/* actions, per process */
	uint64_t budget_resumes;	/* window budget reached (transitions) */
	uint64_t max_hold_resumes;	/* per process */
	uint64_t cancelled_resumes;	/* busy again within resume_after */
	uint64_t busy_expired;		/* busy ended by busy_max_ns */
	uint64_t failures;
	/* Measured by the caller, recorded here for "policy": */
	struct gp_hist trigger_to_suspend;	/* busy -> SUSPEND ioctl issued */
	struct gp_hist suspend_ioctl, resume_ioctl;
};

struct gp_policy {
	struct gp_policy_cfg cfg;
	enum gp_pstate state;
	uint64_t start;		/* window origin */
	uint64_t win_start;	/* current window */
	uint64_t win_susp_ns;	/* offline suspended time in this window */
	uint64_t susp_mark;	/* start of the open suspended stretch */
	uint64_t idle_since;	/* LINGER: when online went idle */
	uint64_t busy_since;
	uint64_t now;
	int n_off, n_busy;
	struct gp_poffline off[GP_POLICY_MAX_OFFLINE];
	struct gp_pbusy busy[GP_POLICY_MAX_BUSY];
	struct gp_policy_stats st;
};

void gp_policy_cfg_default(struct gp_policy_cfg *c);
/* Checks a configuration: 0, or -EINVAL with a message in err. */
int gp_policy_cfg_check(const struct gp_policy_cfg *c, char *err,
			size_t len);
void gp_policy_init(struct gp_policy *p, const struct gp_policy_cfg *c,
		    uint64_t now);

/*
 * Events. Each first advances the clock to now (acting on any deadline
 * passed on the way) and appends what to do to out (which the caller
 * empties). They return 0 or a negative errno (nothing changed then):
 * -ENOSPC tables full, -EALREADY idle without busy, -ENOENT unknown pid.
 */
int gp_policy_busy(struct gp_policy *p, uint64_t now, uint64_t src,
		   int pid, struct gp_pactions *out);
int gp_policy_idle(struct gp_policy *p, uint64_t now, uint64_t src,
		   int pid, struct gp_pactions *out);
/* pid showed work (queue progress, a launch): its busy is confirmed. */
void gp_policy_activity(struct gp_policy *p, uint64_t now, int pid,
			struct gp_pactions *out);
/* A connection or watcher went away: all of its busy ends. */
void gp_policy_source_closed(struct gp_policy *p, uint64_t now,
			     uint64_t src, struct gp_pactions *out);
/* An online process exited (or was reclassified): its busy ends. */
void gp_policy_online_gone(struct gp_policy *p, uint64_t now, int pid,
			   struct gp_pactions *out);
/* An offline process's session is attached / it is gone or detached. */
int gp_policy_offline_attached(struct gp_policy *p, uint64_t now, int pid,
			       struct gp_pactions *out);
void gp_policy_offline_gone(struct gp_policy *p, uint64_t now, int pid,
			    struct gp_pactions *out);
/*
 * An admin resumed pid outside the policy (the daemon applied it): it is
 * recorded as running, its suspension closed, with no action. It runs
 * until online's next idle -> busy edge, which suspends it again: a
 * window boundary inside the current busy period does not (its running
 * time counts toward offline's share as usual). -ENOENT when unknown.
 */
int gp_policy_offline_released(struct gp_policy *p, uint64_t now, int pid);
/* pid is attached and suspended by the policy. */
bool gp_policy_offline_suspended(const struct gp_policy *p, int pid);
/*
 * A new configuration (SIGHUP) at now, without dropping a hold: deadlines
 * up to now are acted on under the old one first. A changed window or
 * share starts a new window at now (fresh budget); a changed
 * resume_after or max_hold applies to the running linger or suspension,
 * and one already past is acted on at once.
 */
void gp_policy_reconfigure(struct gp_policy *p, uint64_t now,
			   const struct gp_policy_cfg *c,
			   struct gp_pactions *out);
/* The timer fired (or any time): act on deadlines up to now. */
void gp_policy_tick(struct gp_policy *p, uint64_t now,
		    struct gp_pactions *out);
/* An action failed; the process is recorded as running. */
void gp_policy_failed(struct gp_policy *p, uint64_t now, int pid,
		      enum gp_pop op);

/* The earliest time the policy must be ticked, or GP_POLICY_NO_DEADLINE. */
uint64_t gp_policy_next_deadline(const struct gp_policy *p);
bool gp_policy_online_busy(const struct gp_policy *p);
/* Suspended time of one offline process up to now, and its fraction of
 * its attached time (0..1). -1 when the pid is unknown. */
double gp_policy_suspended_fraction(const struct gp_policy *p, int pid,
				    uint64_t now, uint64_t *susp_ns);

const char *gp_pcause_name(enum gp_pcause c);
const char *gp_pop_name(enum gp_pop op);
const char *gp_pstate_name(enum gp_pstate s);

#endif
