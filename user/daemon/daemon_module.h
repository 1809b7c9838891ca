/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon as a host for modules (systemd's sd-event, one level up):
 * a module registers what it serves, and the daemon calls it back. The
 * daemon names no module; arrows run from a module to the daemon only,
 * and tests/structure/check-layers.sh keeps it so.
 *
 * Register before daemon_parse() (the composition root does it: the
 * `gpreempt-ctl daemon` command, ctl_client.c, and the tests that run
 * a daemon in a child):
 *
 *	static const struct gp_verb my_verbs[] = {
 *		{ "hello", GP_WHO_TENANT, my_hello },
 *		{ NULL },
 *	};
 *	const struct gp_module my_module = {
 *		.name = "my", .verbs = my_verbs, .start = my_start, ...
 *	};
 *	daemon_module_add(&my_module);
 *
 * What a module gets, and when (every callback runs on the loop's one
 * thread and must not block; NULL callbacks are skipped):
 *   verbs          a request whose first word is a verb's name goes to its
 *                  handler, before proto.h's verbs; the handler replies
 *                  (reply_linef/reply_ok/reply_err, daemon_host.h). `who`
 *                  says who may call it: GP_WHO_ADMIN is the node's root
 *                  (client.admin, daemon_peer.c), and the daemon refuses
 *                  others before the handler runs;
 *                  GP_WHO_TENANT is any client the socket lets in (the
 *                  handler checks which processes it may touch);
 *                  GP_WHO_TENANT_OPT the same, but served to a tenant
 *                  (either socket) only with --tenant-classify. On the tenant
 *                  socket nobody is admin (daemon_tenant.c).
 *   options        argp: a child of the daemon's parser (and so of
 *                  --config), its input a block of opts_size bytes that
 *                  the daemon allocates per parse; argp_header titles it
 *                  in --help. daemon_module_opts() is the running block.
 *   start, stop    with the daemon; start's error stops the daemon.
 *   tick, deadline the timer source: tick() runs every loop round and at
 *                  the monotonic ns deadline() returns (0: none).
 *   fds            through daemon_io_add()/daemon_io_remove(): the loop
 *                  polls the fd and calls cb when it is readable.
 *   client_closed  a connection ended (its state goes with it);
 *   keeps          keep-alive: true keeps a quiet connection open past
 *                  the idle timeout (a notify client's open busy belongs
 *                  to it); bounded by the module (the arbiter's busy
 *                  ends after --busy-max unless renewed).
 *   client_busy    true: the connection has work open (a busy), so it is
 *                  never the idle one closed to make room for an admin.
 *   target_gone    a held target left the daemon (exit, detach).
 *   holds          true: the module holds pid (suspended or attached
 *                  for its own ends); it writes who holds it and why into
 *                  why ("the X (reason)"). A tenant's resume or detach of
 *                  such a pid is refused with that text, before anything
 *                  changes.
 *   hold_released  an admin resumed (or detached) a pid the module holds:
 *                  the daemon applied it; the module accounts for it.
 *   reload         SIGHUP: validate, then swap. The daemon re-parses the
 *                  flags and --config through every module's argp (the
 *                  validation: one complaint keeps the running
 *                  configuration whole), then hands each module its new
 *                  block to apply without dropping a hold.
 *   metrics        its Prometheus families, rendered into b at a scrape.
 *   limits         the names of its limit causes (NULL-ended), counted in
 *                  gpreempt_limit_hits_total{cause} beside the daemon's
 *                  own: dlimit_mod(m, i, ...) counts and logs the i-th.
 * Holds, replies, logging and limits are calls down into the daemon
 * (daemon_host.h: target_get, hold_start, reply_linef, dlog, dlimit_mod);
 * a module never includes daemon_int.h.
 */
#ifndef GP_DAEMON_MODULE_H
#define GP_DAEMON_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct argp;
struct client;
struct daemon;
struct gp_err;
struct prom_buf;

/* Modules at once; and fds the modules may add (daemon_io_add). */
#define DAEMON_MAX_MODULES 4
#define DAEMON_MAX_IO 4

/* Who may call a verb. */
enum gp_who {
	GP_WHO_TENANT,	/* any client the socket lets in */
	GP_WHO_ADMIN,	/* the node's root only: the daemon refuses others */
	GP_WHO_TENANT_OPT, /* as TENANT, but for tenants only where the
			    * operator allows (--tenant-classify) */
};

struct gp_verb {
	const char *name;	/* the request's first word; NULL ends */
	enum gp_who who;
	/* The whole line (len bytes, '\n' included if it came). */
	void (*handler)(struct daemon *d, struct client *c, const char *line,
			size_t len);
};

struct gp_module {
	const char *name;
	const struct gp_verb *verbs;
	const struct argp *argp;
	const char *argp_header;
	size_t opts_size;
	int (*start)(struct daemon *d, struct gp_err *e);
	void (*stop)(struct daemon *d);
	void (*tick)(struct daemon *d);
	uint64_t (*deadline)(const struct daemon *d);
	void (*client_closed)(struct daemon *d, struct client *c);
	bool (*keeps)(const struct daemon *d, const struct client *c);
	bool (*client_busy)(const struct daemon *d, const struct client *c);
	void (*target_gone)(struct daemon *d, int pid);
	bool (*holds)(const struct daemon *d, int pid, char *why,
		      size_t len);
	void (*hold_released)(struct daemon *d, int pid, enum gp_who who);
	void (*reload)(struct daemon *d, const void *new_opts);
	void (*metrics)(const struct daemon *d, struct prom_buf *b);
	const char *const *limits;
};

/* Register m for the daemons this process runs. 0, or -ENOSPC (no
 * room), -E2BIG (more limits than DAEMON_MAX_MOD_LIMITS). */
int daemon_module_add(const struct gp_module *m);

/* m's running options block (NULL when parsed without m) and its own
 * state pointer (NULL until set). */
void *daemon_module_opts(const struct daemon *d, const struct gp_module *m);
void *daemon_module_data(const struct daemon *d, const struct gp_module *m);
void daemon_module_set_data(struct daemon *d, const struct gp_module *m,
			    void *data);

/* Poll fd for POLLIN and call cb(d, ud) when readable. 0 or -ENOSPC. */
int daemon_io_add(struct daemon *d, int fd,
		  void (*cb)(struct daemon *d, void *ud), void *ud);
void daemon_io_remove(struct daemon *d, int fd);

#endif
