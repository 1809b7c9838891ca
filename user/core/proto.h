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
 *     suspend pid=N [queues=ID,ID...] [grace=N] [for_ns=N]
 *     resume  pid=N [queues=ID,ID...]
 *     attach  pid=N            warm a session, suspend nothing
 *     detach  pid=N            resume what it holds, DISABLE, detach
 *     status  [pid=N]
 *   Numbers are plain decimal (no sign, no leading zero, no 0x). Every
 *   key at most once, only the keys listed for the verb, single spaces,
 *   no trailing space, no CR. Queue ids are below 0x40000000 (KFD's
 *   status bits), distinct, at most PROTO_MAX_QUEUES. for_ns: resume
 *   after this long (the daemon's --max-hold caps it).
 *
 *   reply   = *INFO "\n" FINAL "\n"
 *     INFO  = "daemon" kv...   pid sessions max_hold_ns kfd=M.m|none
 *           | "session" kv...  pid runtime queues held held_ns left_ns
 *           | "op" kv...       call pid ret ns snapshot_ns requested ok
 *                              invalid error [queues=ID:STATUS,...]
 *     FINAL = "ok"
 *           | "err" " " EXIT " " ERRNO " " MESSAGE
 *   EXIT is the gpreempt exit code the client should exit with
 *   (exitcodes.h; "ok" means 0), ERRNO the positive errno or 0, MESSAGE
 *   printable ASCII saying what happened and what to do. A suspend where
 *   some queues were invalid replies "op ..." then "err 10 0 ...".
 *
 * A malformed request gets "err 2 EINVAL-or-E2BIG <why>" and changes
 * nothing. Parsers and formatters here are pure (no I/O, no allocation)
 * so the L0 tests and the fuzzer cover them; proto_call() is the client.
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
#define PROTO_QUEUE_ID_LIMIT 0x40000000u
/* How long gpreempt-ctl waits for the daemon's reply. */
#define PROTO_TIMEOUT_MS 5000

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
};

/* The daemon's self-description, first line of every status reply. */
struct proto_daemon {
	pid_t pid;
	uint32_t sessions;
	uint64_t max_hold_ns;
	bool kfd;		/* /dev/kfd open; then the version: */
	uint32_t kfd_major, kfd_minor;
};

/* One held target in a status reply. */
struct proto_session {
	pid_t pid;
	uint32_t runtime;	/* DEBUG_RUNTIME_STATE_* */
	uint32_t queues;	/* in the last snapshot */
	uint32_t held;		/* suspended by the daemon */
	uint64_t held_ns;	/* since the suspend, 0 if none held */
	uint64_t left_ns;	/* until the watchdog resumes, 0 if none */
};

/* One suspend or resume result: session_op's content, flat. */
struct proto_op {
	enum kfd_call call;	/* KFD_CALL_SUSPEND or KFD_CALL_RESUME */
	pid_t pid;
	int ret;
	uint64_t ns, snapshot_ns;
	uint32_t n, n_ok, n_invalid, n_error;
	uint32_t nq;		/* entries in q: min(n, PROTO_MAX_QUEUES) */
	struct session_qres q[PROTO_MAX_QUEUES];
};

struct proto_reply {
	int exit;		/* GP_EXIT_*: what the client exits with */
	int err;		/* errno, or 0 */
	char msg[sizeof(((struct gp_err *)0)->msg)];
	bool has_daemon, has_op;
	struct proto_daemon daemon;
	struct proto_op op;
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
int proto_format_op(char *buf, size_t len, const struct proto_op *op);
int proto_format_ok(char *buf, size_t len);
/* "err EXIT ERRNO MSG": e->exit must not be 0 (then 1 is sent). */
int proto_format_err(char *buf, size_t len, const struct gp_err *e);

/* session_op -> proto_op (queue results beyond PROTO_MAX_QUEUES cut). */
void proto_op_from_session(struct proto_op *p, pid_t pid,
			   const struct session_op *op);
/*
 * proto_op -> session_op for printing with ctl_print_op(): op->q points
 * into p, so never session_op_free() it.
 */
void proto_op_to_session(struct proto_op *p, struct session_op *op);

/* Start a reply: zero r (exit 0). */
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

/*
 * Client side. proto_connect(): a connected SOCK_STREAM socket to path,
 * or -1 with e (GP_EXIT_DAEMON; EACCES: GP_EXIT_PRIV). proto_roundtrip():
 * send one request line, read the whole reply into r within timeout_ms.
 * 0 when a well-formed reply arrived (r->exit says how the request
 * went), -1 with e otherwise.
 */
int proto_connect(const char *path, struct gp_err *e);
int proto_roundtrip(int fd, const char *line, size_t len,
		    struct proto_reply *r, int timeout_ms, struct gp_err *e);
/* connect + format q + roundtrip + close. */
int proto_call(const char *path, const struct proto_req *q,
	       struct proto_reply *r, int timeout_ms, struct gp_err *e);

#endif
