/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the daemon's files share (daemon.h lists them). Everything runs
 * on the one thread of the poll loop; nothing here blocks.
 */
#ifndef GP_DAEMON_INT_H
#define GP_DAEMON_INT_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <syslog.h>

#include "backend.h"
#include "daemon.h"
#include "daemon_host.h"
#include "kfd.h"
#include "metrics_http.h"
#include "proto.h"
#include "session.h"

#define DAEMON_PROG "gpreempt-ctl daemon"

/* One held target. */
struct client;
struct gp_bk_done;

struct target {
	struct gp_bproc *p;	/* its backend's process (backend.h) */
	pid_t pid;
	uid_t uid;		/* whose request attached it (quota) */
	bool tenant;		/* ... a tenant's (daemon_peer.c) */
	uint64_t held_since;	/* monotonic ns of the first suspend, 0 */
	uint64_t deadline;	/* resume at this monotonic ns, 0: none */
	uint32_t resume_failures; /* in a row; retried with backoff */
	bool detaching;		/* released, detach pending (tracee.h):
				 * kept until the target can stop */
	/* an operation off the loop (GP_BK_PENDING): its issuer's
	 * continuation, called once (target_op_done), and the deferred
	 * client it answers (NULL once that client closed) */
	target_done_fn op_done;
	struct client *op_client;
	uint64_t op_for_ns;	/* the suspend's for_ns (a module's tag:
				 * target_op_pending) */
	uint64_t op_req_ns;	/* its request's arrival */
};

/* One connection. */
struct client {
	int fd;
	uid_t uid;
	pid_t pid;
	bool admin;		/* daemon_peer.c: node root, else a tenant */
	bool tenant_sock;	/* came in on --tenant-socket: never admin */
	bool foreign;		/* in another PID or user namespace */
	uint64_t pidns, userns;	/* its namespaces' inodes, 0: unknown */
	bool closing;		/* close once out is flushed */
	uint64_t last_ns;	/* monotonic ns of its last progress */
	bool waiting;		/* wait for a runtime: no reply yet */
	bool wait_kfd;		/* ... first for the pid to open /dev/kfd */
	struct proto_req wait_req; /* the suspend to run then */
	uint64_t wait_until;	/* monotonic ns: run it anyway */
	bool deferred;		/* a module's reply comes later (its work
				 * runs off the loop): client_undefer() */
	bool answered;		/* a deferred reply of the daemon's own was
				 * queued: client_event() undefers it */
	size_t in_len, out_len, out_cap;
	char in[PROTO_MAX_REQ];
	char *out;
};

struct daemon {
	const struct daemon_opts *o;	/* = &cur */
	struct daemon_opts cur;		/* SIGHUP changes some (daemon_reload.c) */
	struct mhttp http;		/* --metrics; http.lfd -1 when off */
	uint64_t req_ns;		/* monotonic arrival of the request */
	const char *path;
	uint64_t max_hold_ns;
	uint64_t idle_ns;	/* a connection without progress is closed */
	int lfd, sfd, tfd;
	dev_t sock_dev;		/* our socket inode: unlink only it */
	ino_t sock_ino;
	/* --tenant-socket (daemon_tenant.c): tlfd -1 when off; tpath and
	 * admin_cg are the daemon's copies (a reload frees the options') */
	int tlfd;
	char *tpath;
	dev_t tsock_dev;
	ino_t tsock_ino;
	char *admin_cg;		/* --admin-cgroup, NULL: none */
	bool has_group;
	gid_t gid;
	struct kfd kfd;
	bool kfd_ok;
	struct gp_bk_set bk;	/* the backends, in claim order (kfd first) */
	struct target t[PROTO_MAX_SESSIONS];
	uint32_t n_t;		/* held and detaching */
	uint32_t n_detaching;
	struct client *c[DAEMON_MAX_CLIENTS];
	uint32_t n_c;
	void *mod_data[DAEMON_MAX_MODULES];	/* daemon_module_data() */
	struct daemon_io {
		int fd;
		void (*cb)(struct daemon *d, void *ud);
		void *ud;
	} io[DAEMON_MAX_IO];		/* daemon_io_add() */
	uint32_t n_io;
};

/*
 * daemon_log.c (dlog and dlog_at: daemon_host.h): dlog_open() once at
 * start; the loop polls dlog_fd() (-1 when nothing waits) for POLLOUT and
 * calls dlog_flush().
 */
/* "<3>" etc. when stderr is the journal, else "": for other stderr lines. */
const char *dlog_prefix(int prio);
int dlog_open(void);
void dlog_close(void);
int dlog_fd(void);
void dlog_flush(void);
uint64_t dlog_dropped(void);

/* daemon_reload.c: SIGHUP. */
void daemon_reload(struct daemon *d);

/* daemon_metrics.c: hooks (no-ops until started), the endpoint's body
 * (the daemon's own families; daemon.c adds the modules'). */
void daemon_metrics_start(void);
void dm_request(int verb);
void dm_error(int exit_code);
void dm_gone(pid_t pid);
void dm_clients_rejected(void);
void daemon_metrics_render(void *ctx, struct prom_buf *b);

/* daemon_limits.c: a full table or slot, counted by cause and logged
 * (rate-limited). The daemon's own causes; a module registers its own
 * (daemon_host.h, dlimit_mod). */
enum gp_limit {
	GP_LIMIT_CLIENTS,	/* the connection table */
	GP_LIMIT_CLIENTS_UID,	/* connections of one tenant uid */
	GP_LIMIT_EVICTED,	/* an idle connection closed for an admin */
	GP_LIMIT_SESSIONS,	/* the daemon's sessions */
	GP_LIMIT_HOLDS_UID,	/* sessions of one tenant uid */
	GP_LIMIT__N,
};
void dlimit(enum gp_limit cause, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t dlimit_hits(enum gp_limit cause);
/* A module's causes (its gp_module.limits), counted from its
 * registration (daemon_module_add): 0, -ENOSPC or -E2BIG (more than
 * DAEMON_MAX_MOD_LIMITS). */
int dlimit_add_module(const struct gp_module *m);
void dlimit_render(struct prom_buf *b);

/* daemon_peer.c: who a peer is (the trust model). c->tenant_sock is set
 * before the call. */
struct ucred;
void peer_identify(const struct daemon *d, int fd, const struct ucred *uc,
		   struct client *c);
/* Room for c in the connection table: 0, or -1 with e (logged). At 0,
 * *evict is the index of an idle connection to close first (an admin in
 * a full table), d->n_c for none. */
int peer_admit(struct daemon *d, const struct client *c, uint32_t *evict,
	       struct gp_err *e);

/*
 * daemon_module.c: every registered module, called in turn (see
 * daemon_module.h for when). dmod_request() is 1 when a module's verb
 * took the line (answered), else 0.
 */
struct argp_child;
const struct argp_child *dmod_argp_children(void);
int dmod_opts_alloc(void **opts);
void dmod_opts_free(void **opts);
int dmod_start(struct daemon *d, struct gp_err *e);
void dmod_stop(struct daemon *d);
void dmod_tick(struct daemon *d);
uint64_t dmod_deadline(const struct daemon *d);
void dmod_client_closed(struct daemon *d, struct client *c);
bool dmod_keeps(const struct daemon *d, const struct client *c);
bool dmod_client_busy(const struct daemon *d, const struct client *c);
void dmod_target_gone(struct daemon *d, int pid);
bool dmod_holds(const struct daemon *d, int pid, char *why, size_t len);
/* The verbs the tenant socket serves, comma-separated, into buf. */
void dmod_tenant_verbs(const struct daemon *d, char *buf, size_t len);
void dmod_hold_released(struct daemon *d, int pid, enum gp_who who);
void dmod_reload(struct daemon *d, const struct daemon_opts *n);
void dmod_metrics(const struct daemon *d, struct prom_buf *b);
int dmod_request(struct daemon *d, struct client *c, const char *line,
		 size_t len);

/* daemon_sock.c */
int dsock_resolve_group(struct daemon *d, struct gp_err *e);
int dsock_open(struct daemon *d, struct gp_err *e);
void dsock_remove(struct daemon *d);
/* Bind and listen on path (its directory made one level deep and checked
 * root's alone) with the mode umask leaves (group d->gid when
 * d->has_group); 0 with *fd and the inode, or -1 with e. */
int dsock_bind(struct daemon *d, const char *path, mode_t umask_bits,
	       int *fd, dev_t *dev, ino_t *ino, struct gp_err *e);
/* Unlink path if it is still the socket inode dev/ino. */
void dsock_unlink_ours(const char *path, dev_t dev, ino_t ino);

/* daemon_tenant.c: --tenant-socket and --admin-cgroup, at start, at
 * SIGHUP (n: the new options) and at the end. */
int dtenant_start(struct daemon *d, struct gp_err *e);
void dtenant_reload(struct daemon *d, const struct daemon_opts *n);
void dtenant_stop(struct daemon *d);

/* daemon_clients.c: accept on lfd (tenant: the tenant socket) */
void client_accept(struct daemon *d, int lfd, bool tenant);
void client_close(struct daemon *d, uint32_t i);
/* Serve what the poll said about client i; closes it when done. */
void client_event(struct daemon *d, uint32_t i, short revents);
/* Close connections that made no progress for idle_ns. */
void clients_expire(struct daemon *d, uint64_t now);

/* daemon_reply.c: replies and deferral (daemon_host.h). */

/* daemon_req.c: one request line of c. */
void daemon_request(struct daemon *d, struct client *c, const char *line,
		    size_t len);
/*
 * Clients whose suspend waits for the target's runtime (wait_ns=): run
 * it once the runtime is enabled or the wait is over. Returns the ms
 * until the next wait ends (for poll), or -1 when none waits.
 */
int daemon_waiting(struct daemon *d, uint64_t now);

/* daemon_targets.c */
/* target_find, target_get, target_drop, hold_start, hold_end:
 * daemon_host.h. */
void target_info(const struct target *t, struct proto_session *ps);
/*
 * Resume everything t holds (watchdog, detach, shutdown); why: for the
 * log. 0, or -1 when queues stay suspended: the hold goes on with a
 * retry deadline (backoff) and status reports resume_failures.
 */
void target_retry_resume(struct target *t, const char *why,
			 const char *cause);
int target_resume_all(struct target *t, const char *why);
void targets_service(struct daemon *d, const struct pollfd *ev, uint32_t n,
		     bool all);
void targets_watchdog(struct daemon *d);
void targets_arm_watchdog(struct daemon *d);
void targets_shutdown(struct daemon *d, int sig);
/* A pending operation of t finished, or is abandoned (t goes). */
void target_op_done(struct daemon *d, struct target *t,
		    struct gp_bk_done *dn);
void target_op_abandon(struct daemon *d, struct target *t, const char *why);

#endif
