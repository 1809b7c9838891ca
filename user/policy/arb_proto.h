/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arbiter's verbs on the daemon's socket (next to proto.h's, same
 * rules: one line, single spaces, plain decimal, every key once, replies
 * are INFO lines then "ok" or "err EXIT ERRNO MESSAGE").
 *
 *   busy [pid=N] [scope=conn|pid] [gpu=ID[,ID...]]
 *   idle [pid=N] [scope=conn|pid] [gpu=ID[,ID...]]
 *       Online work starts / ends. No pid: the peer itself (SO_PEERCRED,
 *       right across pid namespaces). scope=conn (default): the busy
 *       belongs to this connection, counts (busy twice needs idle twice)
 *       and ends when the connection closes. scope=pid: it belongs to
 *       the pid and ends with idle scope=pid or the pid's exit (for
 *       one-shot clients: gpreempt-ctl notify). Allowed to root and to
 *       the online process's own uid. gpu= names the GPUs the work is
 *       on by KFD gpu_id (topology/nodes/N/gpu_id, never a HIP or ROCr
 *       device index: those are renumbered per process); up to
 *       ARB_MAX_REQ_GPUS distinct non-zero ids. Without it: every GPU
 *       the process has queues on.
 *   classify pid=N class=online|offline|none
 *       Run-time class, wins over the selectors. Root, or a --group
 *       member for its own uid's processes.
 *   watch pid=N queue=ID wptr=0xADDR rptr=0xADDR
 *       Watch an online process's AQL queue (--detect queues): the
 *       addresses of its write_dispatch_id / read_dispatch_id counters
 *       (CREATE_QUEUE's write/read_pointer_address, or the debugfs MQD
 *       dump's wptr poll / rptr report addresses). Root only.
 *   policy
 *       INFO lines:
 *       arbiter state=S online_busy=0|1 detect=notify[,queues]
 *               resume_after_ns= min_offline_share= window_ns=
 *               max_hold_ns= busy_periods= suspends= resumes=
 *               budget_resumes= max_hold_resumes= cancelled_resumes=
 *               failures= uptime_ns=
 *       proc pid= class=online uid= busy=COUNT
 *       proc pid= class=offline uid= suspended=0|1 suspended_ns=
 *               attached_ns= suspends= resumes= failures=
 *               backend=kfd|cuda|- gpus=UUID,..|0xID,..|all|-
 *       watch pid= queues= busy=0|1 polls= busy_polls= err=
 *       hist name=trigger_to_suspend|suspend_ioctl|resume_ioctl count=
 *               sum_ns= slots=C0,C1,...   (log2 ns slots, hist.h)
 *
 * Pure: parsers and formatters, no I/O.
 */
#ifndef GP_ARB_PROTO_H
#define GP_ARB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "select.h"

enum arb_verb { ARB_NONE, ARB_BUSY, ARB_IDLE, ARB_CLASSIFY, ARB_POLICY,
		ARB_WATCH };

#define ARB_MAX_REQ_GPUS 64	/* 8 cards in CPX mode */

struct arb_req {
	enum arb_verb verb;
	pid_t pid;		/* 0: the peer */
	bool pid_scope;		/* scope=pid */
	enum gp_pclass cls;	/* classify */
	uint32_t queue;		/* watch */
	uint64_t wptr, rptr;	/* watch: addresses in pid's memory */
	int ngpus;		/* busy/idle gpu=: 0 when not given */
	uint32_t gpus[ARB_MAX_REQ_GPUS];
};

/*
 * 0 when the line is not an arbiter verb (proto.h's parser takes it);
 * 1 and *q; or -1 with e (GP_EXIT_USAGE, EINVAL) for a malformed one.
 */
int arb_parse_request(const char *line, size_t len, struct arb_req *q,
		      struct gp_err *e);
/*
 * The words after verb v (args[0..len): "" or " KEY=VALUE..." with an
 * optional '\n'), for a caller that knows the verb (a handler the
 * daemon picked by it): 1 and *q, or -1 with e.
 */
int arb_parse_args(enum arb_verb v, const char *args, size_t len,
		   struct arb_req *q, struct gp_err *e);
/* "ID[,ID...]" (s[0..n)): distinct non-zero u32 gpu_ids, at most
 * ARB_MAX_REQ_GPUS, appended to q->gpus. 0, or -1 malformed. */
int arb_parse_gpus(const char *s, size_t n, struct arb_req *q);
/* The request line of q ("\n" included). Length or -ENOSPC. */
int arb_format_request(char *buf, size_t len, const struct arb_req *q);

#define ARB_MAX_KV 40

/* One INFO line as words: kind ("arbiter", "proc", "hist") and k=v. */
struct arb_kv {
	char kind[16];
	int n;
	const char *key[ARB_MAX_KV], *val[ARB_MAX_KV];
	char buf[1024];
};

/* Splits a reply line (its own copy in kv->buf). 0, or -1 malformed. */
int arb_kv_parse(const char *line, size_t len, struct arb_kv *kv);
/* The value of key, or NULL. */
const char *arb_kv_get(const struct arb_kv *kv, const char *key);

#endif
