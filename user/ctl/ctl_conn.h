/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's client: connect to its socket, send one request line,
 * read the whole reply within a deadline (proto.h parses it). Used by
 * gpreempt-ctl's commands when a daemon runs, and by `daemon --send`.
 */
#ifndef GP_CTL_CONN_H
#define GP_CTL_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

/*
 * What to do when no daemon listens, by verb: suspend, resume and status
 * can act without one; the arbiter's verbs need a daemon with an arbiter.
 */
#define CTL_HINT_ONESHOT "start 'gpreempt-ctl daemon', or use --no-daemon"
#define CTL_HINT_ARBITER "start one with an arbiter, e.g. " \
			 "'gpreempt-ctl daemon --offline uid=0,comm=train'"

/*
 * The socket a client uses without --socket: $GPREEMPT_SOCKET
 * (GP_NOTIFY_SOCKET_ENV, as gp_notify_open's) when set
 * and not empty (a pod names its tenant socket there), else
 * PROTO_DEFAULT_SOCKET. ctl_socket_from_env() says which.
 */
const char *ctl_default_socket(void);
bool ctl_socket_from_env(void);

/*
 * A connected non-blocking socket to path within timeout_ms, or -1 with
 * e (GP_EXIT_DAEMON, ETIMEDOUT when the daemon accepts nothing, hint when
 * none listens; EACCES and EPERM: GP_EXIT_PRIV; a path too long:
 * GP_EXIT_USAGE; a server that is not root: GP_EXIT_DAEMON, EPERM).
 */
int ctl_connect(const char *path, int timeout_ms, const char *hint,
		struct gp_err *e);
/* 0 when root serves fd (SO_PEERCRED), else -1 with e: a reply from
 * anyone else is never trusted. */
int ctl_peer_root(int fd, const char *path, struct gp_err *e);
/* What a failed connect to path (errno err) means, in e; returns -1. */
int ctl_connect_err(const char *path, int err, int timeout_ms,
		    const char *hint, struct gp_err *e);
/*
 * Send one request line, read the whole reply into r within timeout_ms.
 * 0 when a well-formed reply arrived (r->exit says how the request
 * went), -1 with e otherwise.
 */
int ctl_roundtrip(int fd, const char *line, size_t len,
		  struct proto_reply *r, int timeout_ms, struct gp_err *e);
/* connect + format q + roundtrip + close. */
int ctl_call(const char *path, const struct proto_req *q,
	     struct proto_reply *r, int timeout_ms, struct gp_err *e);
/*
 * `daemon --send REQUEST`: the raw line (unchecked: the daemon judges
 * it), the reply printed in wire format on stdout, its message on
 * stderr; returns the reply's exit code (11 if unreachable).
 */
int ctl_send_raw(const char *path, const char *request);
/* The same for an arbiter verb (arb_proto.h: its INFO lines are not
 * proto.h's), in ctl_policy.c; -1 when request is not one. */
int ctl_arb_send_raw(const char *path, const char *request);

#endif
