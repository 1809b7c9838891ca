/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-ctl's sub-commands. Each returns an exit code (exitcodes.h)
 * and prints text, or NDJSON with -j (errors go to stderr in both modes
 * and, with -j, also as {"type":"error",...} on stdout).
 *
 * Printers take a result and an output mode (struct ctl_out), never the
 * argument struct: only the commands read their arguments.
 */
#ifndef GP_CTL_CMD_H
#define GP_CTL_CMD_H

#include "ctl_args.h"
#include "kfd.h"
#include "session.h"

int ctl_cmd_list(const struct ctl_args *a);
int ctl_cmd_suspend(const struct ctl_args *a);
int ctl_cmd_resume(const struct ctl_args *a);
int ctl_cmd_status(const struct ctl_args *a);
int ctl_cmd_check(const struct ctl_args *a);
/* `daemon`: the daemon's own parser, then its loop or --send. */
int ctl_cmd_daemon(const struct ctl_args *a);
/* `notify`, `policy`: the arbiter's client and replay (ctl_policy.c). */
int ctl_cmd_notify(const struct ctl_args *a);
int ctl_cmd_policy(const struct ctl_args *a);

/* How results are printed. */
struct ctl_out {
	bool json;		/* NDJSON on stdout instead of text */
	bool verbose;		/* more detail (the queue snapshot) */
};

static inline struct ctl_out ctl_out_of(const struct ctl_args *a)
{
	return (struct ctl_out){ .json = a->json, .verbose = a->verbose };
}

/* Print e ("gpreempt-ctl: <msg>" on stderr, plus JSON); returns e->exit. */
struct gp_queue_row;
/* list's per-GPU rows for rows[0..n) (ctl_list_gpus.c); topology NULL:
 * the real KFD topology. */
void ctl_list_gpus(const struct ctl_out *o, const struct gp_queue_row *rows,
		   int n, const char *topology);
int ctl_report(const struct ctl_out *o, const struct gp_err *e);
/*
 * --gpu: turns a->gpus into a->queues, the target's queue ids on those
 * GPUs from the KFD sysfs queue directories (ctl_gpus.c). 0, or the
 * exit code after reporting (no queue there: 2, nothing changed).
 */
struct ctl_args;
int ctl_resolve_gpus(struct ctl_args *a);
/* Print one suspend/resume result (text table or one JSON object). */
void ctl_print_op(const struct ctl_out *o, const struct session_op *op);
/*
 * One step of a command as one line: text, or with -j
 * {"type":TYPE,"pid":PID[,KEY:VAL]}.
 */
void ctl_print_step(const struct ctl_out *o, const char *type, pid_t pid,
		    const char *key, const char *val, const char *text);

/*
 * list: copy the live state (gpreempt-trace's pinned map rows) onto the
 * sysfs rows with the same (pid, gpu_id, queue_id); sysfs decides which
 * queues exist. Returns how many rows got live state.
 */
struct gp_queue_row;
int ctl_queues_overlay(struct gp_queue_row *rows, size_t n,
		       const struct gp_queue_row *live, size_t m);

/*
 * The steps every acting command takes before touching a target, in the
 * documented order: pid sanity (8), privilege (3), /dev/kfd (4), KFD
 * version and sched_policy (7). Opens k on success. 0 or an exit code
 * (already reported). cmd names the command in the messages.
 */
int ctl_prepare(const struct ctl_out *o, const char *cmd, pid_t pid,
		struct kfd *k);

/*
 * Daemon hook. When a daemon socket exists (a->socket, or the default
 * path) and --no-daemon is not given, send the request to the daemon:
 * returns 1 with *exit set. Returns 0 when the command should act
 * directly. An explicit --socket that cannot be reached gives exit 11.
 */
int ctl_via_daemon(const struct ctl_args *a, int *exit);

/*
 * suspend's signals (ctl_out.c), for the KFD and the CUDA path alike:
 * SIGPIPE ignored (a closed stdout must not kill us before the teardown)
 * and a signalfd for the rest, with *old the mask to restore. On failure
 * the error is reported, *ret is its exit code and the result negative.
 */
int ctl_signals(const struct ctl_out *o, sigset_t *old, int *ret);

/*
 * A CUDA process (ctl_suspend_bk.c): the CUDA backend, opened, when pid
 * has no KFD process and libcuda.so.1 loads, else NULL (the KFD path).
 * The commands below take it over (and free it).
 */
struct gp_backend;
struct gp_backend *ctl_cuda_backend(const struct ctl_args *a);
int ctl_cmd_suspend_cuda(const struct ctl_args *a, struct gp_backend *b);
int ctl_cmd_resume_cuda(const struct ctl_args *a, struct gp_backend *b);
/* list's CUDA processes (ctl_list_cuda.c), want 0: all; *listed: how many
 * were printed (none where libcuda.so.1 does not load). */
void ctl_list_cuda(const struct ctl_out *o, pid_t want, int *listed);

#endif
