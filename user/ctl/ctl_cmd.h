/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-ctl's sub-commands. Each returns an exit code (exitcodes.h)
 * and prints text, or NDJSON with -j (errors go to stderr in both modes
 * and, with -j, also as {"type":"error",...} on stdout).
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
/* `daemon`: hands a->sub_argv to the daemon's own parser and loop. */
int ctl_cmd_daemon(const struct ctl_args *a);

/* Print e ("gpreempt-ctl: <msg>" on stderr, plus JSON); returns e->exit. */
int ctl_report(const struct ctl_args *a, const struct gp_err *e);
/* Print one suspend/resume result (text table or one JSON object). */
void ctl_print_op(const struct ctl_args *a, pid_t pid,
		  const struct session_op *op);

/*
 * list: copy the live state (gpreempt-trace's pinned map rows) onto the
 * sysfs rows with the same (pid, gpu_id, queue_id); sysfs decides which
 * queues exist. Returns how many rows got live state.
 */
struct gp_queue_row;
int ctl_queues_overlay(struct gp_queue_row *rows, size_t n,
		       const struct gp_queue_row *live, size_t m);

/* "12.345 ms", or "1.500 s" from one second on. */
void ctl_fmt_ns(char *buf, size_t len, uint64_t ns);

/* Is capability cap (CAP_*) in this process's effective set? */
bool ctl_has_cap(int cap);
/*
 * The steps every acting command takes before touching a target, in the
 * documented order: pid sanity (8), privilege (3), /dev/kfd (4), KFD
 * version and sched_policy (7). Opens k on success. 0 or an exit code
 * (already reported).
 */
int ctl_prepare(const struct ctl_args *a, struct kfd *k);

/*
 * Daemon hook. When a daemon socket exists (a->socket, or the default
 * path) and --no-daemon is not given, send the request to the daemon:
 * returns 1 with *exit set. Returns 0 when the command should act
 * directly. An explicit --socket that cannot be reached gives exit 11.
 */
int ctl_via_daemon(const struct ctl_args *a, int *exit);

#endif
