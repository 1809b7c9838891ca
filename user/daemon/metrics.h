/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's Prometheus metrics: what it counts (pure, no I/O) and how
 * that renders (metrics/prom.h). The daemon calls the metrics_on_*() hooks
 * from its loop; metrics_http.h serves metrics_render() on --metrics.
 *
 * Names (gpreempt_ prefix, base units in the name, _total on counters):
 *   gpreempt_sessions_held                   gauge   targets attached
 *   gpreempt_processes_suspended             gauge   targets with queues suspended now
 *   gpreempt_suspends_total{pid,comm}        counter suspend requests that suspended queues
 *   gpreempt_resumes_total{pid,comm}         counter resumes (requests, watchdog, policy)
 *   gpreempt_suspended_seconds_total{pid,comm} counter time held suspended (current hold included)
 *   gpreempt_requests_total{op}              counter socket requests by op
 *   gpreempt_errors_total{cause}             counter failed requests by cause (exit code names)
 *   gpreempt_watchdog_resumes_total          counter holds ended by --max-hold
 *   gpreempt_suspend_duration_seconds        histogram SUSPEND_QUEUES ioctl
 *   gpreempt_resume_duration_seconds         histogram RESUME_QUEUES ioctl
 *   gpreempt_trigger_to_suspend_seconds      histogram request received -> queues suspended
 *   gpreempt_clients_rejected_total          counter  socket clients over the limit
 *   gpreempt_start_time_seconds              gauge   process start, Unix time
 * The arbiter's (metrics_policy.h; only while it runs; its suspends and
 * resumes also count in the families above):
 *   gpreempt_policy_online_busy              gauge   1 while online is busy
 *   gpreempt_policy_offline_processes        gauge   offline processes arbitrated
 *   gpreempt_policy_offline_suspended        gauge   of them, suspended now
 *   gpreempt_policy_{busy_periods,suspends,resumes,budget_resumes,
 *     max_hold_resumes,cancelled_resumes,failures}_total   counters
 *   gpreempt_policy_offline_suspended_seconds_total{pid,comm} counter
 *   gpreempt_policy_offline_suspended_ratio{pid,comm} gauge  of its time
 *   gpreempt_policy_trigger_to_suspend_seconds histogram busy -> SUSPEND issued
 *   gpreempt_policy_{suspend,resume}_duration_seconds histogram its ioctls
 * Per-pid series are bounded (METRICS_MAX_PIDS): the oldest process that
 * is no longer held makes room. `gpu_id` is the label AMD's device
 * metrics exporter uses for the same GPU; gpreempt adds it where a value
 * is per GPU (none of the daemon's are yet: a hold is per process).
 */
#ifndef GP_METRICS_H
#define GP_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hist.h"
#include "prom.h"

#define METRICS_MAX_PIDS 256
/* Histogram bounds: 2^k microseconds, k = 0..METRICS_SLOTS-1 (1 us ..
 * ~33.6 s), then +Inf. */
#define METRICS_SLOTS 26

enum metrics_op { MOP_SUSPEND, MOP_RESUME, MOP_ATTACH, MOP_DETACH,
		  MOP_STATUS, MOP_OTHER, MOP__N };

struct metrics_hist {
	uint64_t counts[METRICS_SLOTS + 1];
	uint64_t sum_ns;
};

struct metrics_pid {
	pid_t pid;
	char comm[16];
	uint64_t suspends, resumes;
	uint64_t suspended_ns;	/* finished holds */
	uint64_t since_ns;	/* monotonic start of the current hold, 0 */
	uint64_t last_ns;	/* last activity, for eviction */
};

struct gp_metrics {
	double start_unix;
	uint32_t sessions_held;		/* gauges the daemon sets */
	uint64_t requests[MOP__N];
	uint64_t errors[16];		/* by GP_EXIT_* code */
	uint64_t watchdog_resumes, clients_rejected;
	struct metrics_hist suspend, resume, trigger;
	struct metrics_pid pid[METRICS_MAX_PIDS];
	int npid;
};

void metrics_init(struct gp_metrics *m, double start_unix);
void metrics_hist_add(struct metrics_hist *h, uint64_t ns);

void metrics_on_request(struct gp_metrics *m, enum metrics_op op);
/* A failed request, by its exit code (GP_EXIT_*). */
void metrics_on_error(struct gp_metrics *m, int exit_code);
/* Queues of pid suspended: ioctl took ioctl_ns, trigger_ns since the
 * request arrived; now is monotonic ns. A repeat suspend of a process
 * already held counts, but does not restart its hold. */
void metrics_on_suspend(struct gp_metrics *m, pid_t pid, const char *comm,
			uint64_t ioctl_ns, uint64_t trigger_ns, uint64_t now);
/* pid resumed (by request, watchdog or policy); ioctl_ns 0 if no ioctl
 * was made (the kernel resumed on detach or exit). */
void metrics_on_resume(struct gp_metrics *m, pid_t pid, uint64_t ioctl_ns,
		       bool watchdog, uint64_t now);
/* pid is no longer held (exited, detached): its hold time stops without
 * counting a resume (the kernel resumes an exited or detached target). */
void metrics_on_gone(struct gp_metrics *m, pid_t pid, uint64_t now);

/* The whole exposition at monotonic now. */
void metrics_render(const struct gp_metrics *m, uint64_t now,
		    struct prom_buf *b);

#endif
