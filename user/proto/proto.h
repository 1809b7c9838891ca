/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Unix-socket protocol between gpreempt-ctl (or any client: socat
 * works) and `gpreempt-ctl daemon`. Line-oriented ASCII, strict, small.
 *
 * A client sends one request per line and reads one reply per request;
 * a connection may carry any number of requests (a policy keeps one
 * open so a suspend costs one round trip).
 *
 *   request = VERB *(" " KEY "=" VALUE) "\n"       at most PROTO_MAX_REQ
 *     suspend pid=N [queues=ID,ID...] [grace=N] [for_ns=N] [wait_ns=N]
 *     resume  pid=N [queues=ID,ID...]
 *     attach  pid=N            warm a session, suspend nothing
 *     detach  pid=N            resume what it holds, DISABLE, detach
 *     status  [pid=N]
 *   Numbers are plain decimal (no sign, no leading zero, no 0x). Every
 *   key at most once, only the keys listed for the verb, single spaces,
 *   no trailing space, no CR. Queue ids are below 0x40000000 (KFD's
 *   status bits), distinct, at most PROTO_MAX_QUEUES. for_ns (at most
 *   INT64_MAX, GP_DURATION_MAX_NS): resume
 *   after this long (the daemon's --max-hold caps it). wait_ns: if the
 *   target's runtime has not enabled debug support yet, the reply waits
 *   up to this long for it (the daemon serves others meanwhile).
 *
 *   reply   = *INFO "\n" FINAL "\n"
 *     INFO  = "daemon" kv...   pid sessions detaching max_hold_ns
 *                              kfd=M.m|none
 *           | "session" kv...  pid runtime queues held held_ns left_ns
 *                              resume_failures
 *           | "op" kv...       call pid ret ns snapshot_ns requested ok
 *                              invalid error [queues=ID:STATUS,...]
 *     FINAL = "ok"
 *           | "err" " " EXIT " " ERRNO " " MESSAGE
 *   A suspend the kernel accepted replies "op ..." then the target's
 *   "session ..." line: the hold as applied (left_ns: --max-hold may
 *   have cut for_ns short).
 *   EXIT is the gpreempt exit code the client should exit with
 *   (exitcodes.h; "ok" means 0), ERRNO the positive errno or 0, MESSAGE
 *   printable ASCII saying what happened and what to do. A suspend where
 *   some queues were invalid replies "op ..." then "err 10 0 ...".
 *
 * A malformed request gets "err 2 EINVAL-or-E2BIG <why>" and changes
 * nothing. This module is pure: parsers and formatters only (no I/O, no
 * allocation, no sockets) so the L0 tests and the fuzzer cover them. The
 * server is user/daemon/, the client user/ctl/ctl_conn.c.
 */
#ifndef GP_PROTO_H
#define GP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kfd.h"
#include "session.h"

/* One request line, "\n" included. */
#define PROTO_MAX_REQ 4096
/* One reply line, "\n" included; a whole reply. */
#define PROTO_MAX_LINE 8192
#define PROTO_MAX_REPLY (256 * 1024)
#define PROTO_MAX_QUEUES 256
/* Targets one daemon holds (and session lines in a status reply). */
#define PROTO_MAX_SESSIONS 64
/* Queue ids use bits 0..29: KFD or's its status into bits 30, 31. */
#define PROTO_QUEUE_ID_LIMIT KFD_QUEUE_ID_LIMIT
/* How long gpreempt-ctl waits for the daemon's reply. */
#define PROTO_TIMEOUT_MS 5000
/* Where the daemon listens unless told otherwise (both sides use it). */
#define PROTO_DEFAULT_SOCKET "/run/gpreempt/ctl.sock"

enum proto_verb {
	PROTO_NONE = 0,
	PROTO_SUSPEND,
	PROTO_RESUME,
	PROTO_ATTACH,
	PROTO_DETACH,
	PROTO_STATUS,
};

struct proto_req {
	enum proto_verb verb;
	pid_t pid;		/* 0: not given (status only) */
	uint32_t n_queues;	/* 0: every queue */
	uint32_t queues[PROTO_MAX_QUEUES];
	uint32_t grace;		/* 1K-GPU-cycle units */
	uint64_t for_ns;	/* 0: hold until resume or --max-hold */
	uint64_t wait_ns;	/* suspend: wait for the runtime, 0: no */
};

/* The daemon's self-description, first line of every status reply. */
struct proto_daemon {
	pid_t pid;
	uint32_t sessions;	/* held targets */
	uint32_t detaching;	/* released, detach still pending */
	uint64_t max_hold_ns;
	bool kfd;		/* /dev/kfd open; then the version: */
	uint32_t kfd_major, kfd_minor;
};

/* One held target in a status reply. */
#define PROTO_NAME_LEN 12
#define PROTO_GPU_LEN 96

struct proto_session {
	pid_t pid;
	uint32_t runtime;	/* DEBUG_RUNTIME_STATE_* */
	uint32_t queues;	/* in the last snapshot */
	uint32_t held;		/* suspended by the daemon */
	uint64_t held_ns;	/* since the suspend, 0 if none held */
	uint64_t left_ns;	/* until the watchdog resumes, 0 if none */
	uint32_t resume_failures; /* failed resumes in a row (retried) */
	/* Which backend holds it and where it runs; on the wire only for a
	 * backend other than KFD ("" read back: kfd), so KFD's line stays
	 * as it was. [A-Za-z0-9._,-] only. */
	char backend[PROTO_NAME_LEN];	/* "cuda" */
	char state[PROTO_NAME_LEN];	/* gp_bk_state_name(): "locking" */
	char gpu[PROTO_GPU_LEN];	/* NVIDIA GPU UUIDs, ","; "": all */
};

struct proto_reply {
	int exit;		/* GP_EXIT_*: what the client exits with */
	int err;		/* errno, or 0 */
	char msg[sizeof(((struct gp_err *)0)->msg)];
	bool has_daemon, has_op;
	struct proto_daemon daemon;
	/* op.q points to q below (proto_reply_init() sets it): do not
	 * copy a reply by value, nor session_op_free() its op */
	struct session_op op;
	struct session_qres q[PROTO_MAX_QUEUES];
	uint32_t n_sessions;
	struct proto_session sessions[PROTO_MAX_SESSIONS];
};

/* "suspend", ..., or NULL for PROTO_NONE and unknown values. */
const char *proto_verb_name(enum proto_verb v);

/*
 * Parse one request line of len bytes (with or without its final "\n";
 * no other "\n" or NUL allowed). 0 and *q filled, or -1 with e filled:
 * exit GP_EXIT_USAGE, err EINVAL (E2BIG when over a limit), msg naming
 * the offending part. Nothing is read beyond len.
 */
int proto_parse_request(const char *line, size_t len, struct proto_req *q,
			struct gp_err *e);

/*
 * The formatters write one or more full lines ("\n"-terminated, NUL
 * after) into buf and return their length, or -ENOSPC if len is too
 * small (buf then holds a truncated string). Strings from outside are
 * sanitized so the output always parses.
 */
int proto_format_request(char *buf, size_t len, const struct proto_req *q);
int proto_format_daemon(char *buf, size_t len, const struct proto_daemon *d);
int proto_format_session(char *buf, size_t len,
			 const struct proto_session *s);
/* op->q's first min(op->nq, PROTO_MAX_QUEUES) entries are listed. */
int proto_format_op(char *buf, size_t len, const struct session_op *op);
int proto_format_ok(char *buf, size_t len);
/* "err EXIT ERRNO MSG": e->exit must not be 0 (then 1 is sent). */
int proto_format_err(char *buf, size_t len, const struct gp_err *e);

/* Start a reply: zero r (exit 0), point r->op.q at r->q. */
void proto_reply_init(struct proto_reply *r);
/*
 * Parse one reply line into r. 1 if it was the final line (ok/err), 0 if
 * more lines follow, -1 if malformed (e filled, GP_EXIT_DAEMON).
 */
int proto_parse_reply_line(const char *line, size_t len,
			   struct proto_reply *r, struct gp_err *e);
/* A whole reply: 0, or -1 (malformed, incomplete or trailing bytes). */
int proto_parse_reply(const char *buf, size_t len, struct proto_reply *r,
		      struct gp_err *e);

#endif
