// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-ctl's output shared by its commands: errors, op results, and
 * the holding commands' signal set-up (kept here, beside the report of
 * its failure, so that the KFD and the CUDA suspend share it without a
 * call circle between ctl_suspend.c and ctl_suspend_bk.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ctl_cmd.h"
#include "exitcodes.h"
#include "json.h"
#include "util.h"

int ctl_report(const struct ctl_out *o, const struct gp_err *e)
{
	struct json j;

	fprintf(stderr, "gpreempt-ctl: %s\n", e->msg);
	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "error");
		json_s64(&j, "exit", e->exit);
		if (e->err) {
			json_s64(&j, "errno", e->err);
			json_str(&j, "errno_name", strerrorname_np(e->err) ?
				 strerrorname_np(e->err) : "?");
		}
		json_str(&j, "message", e->msg);
		json_end(&j);
	}
	return e->exit;
}

static const char *qstatus_why(enum kfd_qstatus st)
{
	switch (st) {
	case KFD_Q_OK:
		return "";
	case KFD_Q_INVALID:
		return " (no such queue, or being destroyed)";
	case KFD_Q_ERROR:
		return " (the GPU failed to preempt or map it)";
	case KFD_Q_NOT_DONE:
		return " (the call failed: nothing was done)";
	}
	return "";
}

void ctl_print_op(const struct ctl_out *o, const struct session_op *op)
{
	char t1[32], t2[32];
	struct json j;
	uint32_t i;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", kfd_call_name(op->call));
		json_s64(&j, "pid", op->pid);
		json_s64(&j, "ret", op->ret);
		json_u64(&j, "ioctl_ns", op->ns);
		json_u64(&j, "snapshot_ns", op->snapshot_ns);
		json_u64(&j, "requested", op->n);
		json_u64(&j, "ok", op->n_ok);
		json_u64(&j, "invalid", op->n_invalid);
		json_u64(&j, "error", op->n_error);
		json_arr_open(&j, "queues");
		for (i = 0; i < op->nq; i++) {
			json_obj_open(&j, NULL);
			json_u64(&j, "id", op->q[i].id);
			json_str(&j, "status",
				 kfd_qstatus_name(op->q[i].status));
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_end(&j);
		return;
	}
	fmt_ns(t1, sizeof(t1), op->ns);
	fmt_ns(t2, sizeof(t2), op->snapshot_ns);
	if (op->ret < 0)
		return;	/* the error message says it all */
	printf("%s pid %d: %u queue%s: %u ok, %u invalid, %u error "
	       "(ioctl %s, snapshot %s)\n", kfd_call_name(op->call), op->pid,
	       op->n, op->n == 1 ? "" : "s", op->n_ok, op->n_invalid,
	       op->n_error, t1, t2);
	for (i = 0; i < op->nq; i++)
		printf("  queue %-6u %s%s\n", op->q[i].id,
		       kfd_qstatus_name(op->q[i].status),
		       qstatus_why(op->q[i].status));
	fflush(stdout);
}


void ctl_print_step(const struct ctl_out *o, const char *type, pid_t pid,
		    const char *key, const char *val, const char *text)
{
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", type);
		json_s64(&j, "pid", pid);
		if (key)
			json_str(&j, key, val);
		json_end(&j);
		return;
	}
	printf("%s\n", text);
	fflush(stdout);
}

int ctl_signals(const struct ctl_out *o, sigset_t *old, int *ret)
{
	struct gp_err e = {};
	int sfd;

	/* A closed stdout must not kill us before the teardown. */
	signal(SIGPIPE, SIG_IGN);
	sfd = session_signalfd(old);
	if (sfd < 0) {
		gp_err_set(&e, GP_EXIT_FAILURE, -sfd, "signalfd: %s",
			   strerror(-sfd));
		*ret = ctl_report(o, &e);
	}
	return sfd;
}
