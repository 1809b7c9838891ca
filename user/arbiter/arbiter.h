/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's arbiter (issue 10): classes from selectors, online work
 * signals (notify on the socket), the policy (user/policy/policy.h) and
 * the KFD actions it decides, on warm sessions attached ahead of time.
 *
 * Offline KFD processes are found by a scan of /sys/class/kfd/kfd/proc
 * every ARB_SCAN_MS on the daemon's timer, attached at once (so a busy
 * costs a snapshot and a SUSPEND ioctl per offline process, never a
 * ptrace attach),
 * and handed to the policy. Everything runs on the daemon's one thread;
 * the only waits are the bounded KFD ioctls and session attach.
 *
 * It is a module of the daemon (daemon_module.h): the composition root
 * registers arbiter_module (arbiter_module.c) before daemon_parse(), and
 * the daemon calls the functions below through it, never by name.
 *
 * Files: arbiter_args.c (options, checked before the daemon starts),
 * arbiter.c (state, scan, actions), arbiter_req.c (socket verbs,
 * arb_proto.h), arbiter_reload.c (SIGHUP), arbiter_metrics.c (its
 * Prometheus families).
 */
#ifndef GP_ARBITER_H
#define GP_ARBITER_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon_module.h"
#include "gpolicy.h"
#include "policy.h"
#include "select.h"

#define ARB_SCAN_MS 100
#define ARB_MAX_PROCS 128

struct arbiter_opts {
	bool enabled;		/* any arbiter option given */
	struct gp_classifier cls;
	struct gp_policy_cfg pol;
	bool detect_notify, detect_queues, detect_launch;
	enum gp_scope scope;	/* --scope: gpu (default) or node */
	enum gp_gang gang;	/* --gang: cgroup (default), pgid, none */
	uint64_t poll_ns;	/* queue polling period */
	uint64_t launch_grace_ns; /* --detect launch: busy this long after
				   * the last launch with no other end */
	bool allow_spoofable;	/* start with a selector made of
				 * comm/cmdline only (select.h) */
	const char *kfd_proc_dir; /* tests: NULL is KFD_SYSFS_PROC */
	const char *proc_root;	/* tests: where new processes are described
				 * (arbiter_discover.c); NULL is /proc */
	const char *debugfs_kfd_dir; /* tests: NULL is /sys/kernel/debug/kfd */
};

struct gp_module;
/* What registers the arbiter with the daemon (arbiter_module.c). */
extern const struct gp_module arbiter_module;

/* The argp child the daemon's parser includes (input: arbiter_opts). */
extern const struct argp arbiter_argp;
void arbiter_opts_default(struct arbiter_opts *o);

struct daemon;
struct client;
struct gp_err;

/* Start/stop with the daemon (no-op when not enabled). 0 or -1 with e. */
int arbiter_start(struct daemon *d, struct gp_err *e);
void arbiter_stop(struct daemon *d);
/* The timer fired or a loop round ended: scan, act on deadlines. */
void arbiter_tick(struct daemon *d);
/* Absolute monotonic ns the timer must fire at, 0 for none. */
uint64_t arbiter_deadline(const struct daemon *d);
void arbiter_client_closed(struct daemon *d, struct client *c);
/*
 * Has connection c a busy open? Then it is kept past the idle timeout
 * (closing it would resume offline mid-request) and never closed for an
 * admin. Only while the busy lasts: one not renewed ends after
 * --busy-max, and a connection that once said busy is not kept for it
 * (a member could hold every slot with such connections; issue 24).
 */
bool arbiter_busy_open(const struct daemon *d, const struct client *c);
/* A target left the daemon (exited, detached). */
void arbiter_target_gone(struct daemon *d, int pid);
bool arbiter_holds(const struct daemon *d, int pid, char *why, size_t len);
void arbiter_hold_released(struct daemon *d, int pid, enum gp_who who);
/*
 * SIGHUP (arbiter_reload.c): n is the checked new configuration. Applies
 * classes and policy to the running arbiter without dropping a hold
 * (starts or stops it when n turns it on or off).
 */
void arbiter_reload(struct daemon *d, const void *n);
struct prom_buf;
/* Its Prometheus families (metrics.h), nothing when it does not run. */
void arbiter_metrics(const struct daemon *d, struct prom_buf *b);

#endif
