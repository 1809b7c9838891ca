/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon as a module sees it: the calls down a module makes
 * (daemon_module.h is what it registers, the calls up). Holds, replies,
 * logging, limits whose causes the module registers, and accessors for
 * what a module may read of a connection or of the daemon; the structs
 * themselves stay private to user/daemon/ (daemon_int.h), and
 * tests/structure/check-layers.sh fails a module that includes that.
 * Everything runs on the loop's one thread and never blocks.
 */
#ifndef GP_DAEMON_HOST_H
#define GP_DAEMON_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>
#include <sys/types.h>

#include "daemon_module.h"

struct client;
struct daemon;
struct gp_backend;
struct gp_bk_done;
struct gp_bproc;
struct gp_err;
struct target;

/* Logging (daemon_log.c): one timestamped line on stderr, never
 * blocking (bounded buffer, lines dropped and counted when stderr is not
 * read). dlog() is LOG_INFO; dlog_at() takes a syslog priority (LOG_ERR,
 * LOG_WARNING, ... from <syslog.h>), which the journal keeps when stderr
 * is the journal. */
void dlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dlog_at(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Limits (daemon_limits.c): a full table or slot, counted by cause
 * (gpreempt_limit_hits_total{cause}) and logged, rate-limited. A
 * module's causes are its gp_module's limits[] (names, NULL-ended, at
 * most DAEMON_MAX_MOD_LIMITS); cause indexes them.
 */
#define DAEMON_MAX_MOD_LIMITS 16
void dlimit_mod(const struct gp_module *m, int cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint64_t dlimit_mod_hits(const struct gp_module *m, int cause);

/* Replies (daemon_reply.c): queue reply lines; a client past its limit
 * is closed. reply_linef: a formatted info line (up to PROTO_MAX_LINE;
 * longer closes c). */
void reply_line(struct client *c, const char *buf, int n);
void reply_linef(struct client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void reply_err(struct client *c, const struct gp_err *e);
void reply_ok(struct client *c);
/*
 * A module answers c later (its reply needs work off the loop, with a
 * deadline): client_defer() from the verb's handler, which then replies
 * nothing; client_undefer() once the reply is queued. Meanwhile c's
 * further request lines wait in its buffer (answers stay in order), the
 * idle timeout and an admin's eviction pass it by; undefer serves the
 * lines that came. client_defer_drop() ends the wait without serving
 * them (at shutdown: the next bytes of a live connection serve them).
 */
void client_defer(struct client *c);
void client_undefer(struct daemon *d, struct client *c);
void client_defer_drop(struct client *c);

/* Who a connection is (daemon_peer.c's trust model): its peer's uid and
 * pid (SO_PEERCRED), and whether it is the node's root. */
uid_t client_uid(const struct client *c);
pid_t client_pid(const struct client *c);
bool client_admin(const struct client *c);
/* May tenant c act on pid, given its namespace? 0 or -EPERM (uids are
 * the caller's check). */
int peer_may_act(const struct client *c, pid_t pid);

/* The running options a module may read. */
bool daemon_verbose(const struct daemon *d);
uint64_t daemon_max_hold_ns(const struct daemon *d);

/*
 * Holds (daemon_targets.c): the held target of pid (a detaching one is
 * not held); the warm session of pid, attaching on first use (NULL with
 * e); release t (it leaves the table now or once its detach is done).
 * hold_start after a suspend (for_ns: 0 or the requested hold), hold_end
 * after a resume. target_held_since: monotonic ns of its first suspend,
 * 0 when not held. hold_rebound: a held t's watchdog deadline becomes
 * its start plus the running --max-hold (after a reload changed it).
 */
struct target *target_find(struct daemon *d, pid_t pid);
struct target *target_get(struct daemon *d, pid_t pid, uid_t uid,
			  bool tenant, struct gp_err *e);
void target_drop(struct daemon *d, struct target *t);
void hold_start(struct daemon *d, struct target *t, uint64_t for_ns);
void hold_end(struct target *t);
uint64_t target_held_since(const struct target *t);
void hold_rebound(struct daemon *d, struct target *t);
/* A target's pid and its backend's process (backend.h: what suspends
 * and resumes it), NULL while it has none. */
pid_t target_pid(const struct target *t);
struct gp_bproc *target_proc(const struct target *t);
/*
 * A backend call of t returned GP_BK_PENDING (it runs off the loop):
 * done(d, t, dn) is called once when it finishes or is abandoned (t
 * goes), on the loop. tag: the issuer's own (its cause), and req_ns its
 * start, both read back in done with target_op_tag/_req_ns.
 */
typedef void (*target_done_fn)(struct daemon *d, struct target *t,
			       struct gp_bk_done *dn);
void target_op_pending(struct target *t, target_done_fn done, uint64_t tag,
		       uint64_t req_ns);
uint64_t target_op_tag(const struct target *t);
uint64_t target_op_req_ns(const struct target *t);

/* The daemon's backend named name ("kfd", "cuda"), NULL when off. */
struct gp_backend *daemon_backend(struct daemon *d, const char *name);

/* The daemon's hold metrics (daemon_metrics.c), for holds a module
 * makes: after a suspend or resume ioctl. */
void dm_suspend(pid_t pid, uint64_t ioctl_ns, uint64_t since_request_ns);
void dm_resume(pid_t pid, uint64_t ioctl_ns, bool watchdog);

#endif
