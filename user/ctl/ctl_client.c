// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-ctl's side of the daemon: whether to talk to it, the request,
 * and printing its reply like the direct commands print theirs. The wire
 * format is proto.c's, the connection ctl_conn.c's, the server daemon/.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arbiter.h"
#include "ctl_cmd.h"
#include "ctl_conn.h"
#include "daemon.h"
#include "exitcodes.h"
#include "json.h"
#include "proto.h"
#include "util.h"

static const char *socket_path(const struct ctl_args *a)
{
	return a->socket ? a->socket : ctl_default_socket();
}

static void print_daemon(const struct ctl_out *o, const struct proto_daemon *d)
{
	char t[32];
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "daemon");
		json_s64(&j, "pid", d->pid);
		json_u64(&j, "sessions", d->sessions);
		json_u64(&j, "detaching", d->detaching);
		json_u64(&j, "max_hold_ns", d->max_hold_ns);
		if (d->kfd) {
			char v[24];

			snprintf(v, sizeof(v), "%u.%u", d->kfd_major,
				 d->kfd_minor);
			json_str(&j, "kfd_version", v);
		}
		json_end(&j);
		return;
	}
	fmt_ns(t, sizeof(t), d->max_hold_ns);
	printf("daemon pid %d: %u session%s, max hold %s", d->pid,
	       d->sessions, d->sessions == 1 ? "" : "s", t);
	if (d->detaching)
		printf(", %u detach%s pending", d->detaching,
		       d->detaching == 1 ? "" : "es");
	printf("\n");
}

static void print_session(const struct ctl_out *o,
			  const struct proto_session *s)
{
	char t1[32], t2[32];
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "session");
		json_s64(&j, "pid", s->pid);
		json_str(&j, "runtime_state",
			 kfd_runtime_state_name(s->runtime));
		json_u64(&j, "queues", s->queues);
		json_u64(&j, "held", s->held);
		json_u64(&j, "held_ns", s->held_ns);
		json_u64(&j, "left_ns", s->left_ns);
		json_u64(&j, "resume_failures", s->resume_failures);
		if (s->backend[0]) {
			json_str(&j, "backend", s->backend);
			json_str(&j, "state", s->state);
			json_str(&j, "gpu", s->gpu[0] ? s->gpu : "all");
		}
		json_end(&j);
		return;
	}
	if (s->backend[0] && strcmp(s->backend, "kfd")) {
		fmt_ns(t1, sizeof(t1), s->held_ns);
		fmt_ns(t2, sizeof(t2), s->left_ns);
		printf("  pid %-8d %-4s %-9s gpu %s", s->pid, s->backend,
		       s->state, s->gpu[0] ? s->gpu : "all (unknown)");
		if (s->held)
			printf(", held for %s (watchdog in %s)", t1, t2);
		printf("\n");
		return;
	}
	fmt_ns(t1, sizeof(t1), s->held_ns);
	fmt_ns(t2, sizeof(t2), s->left_ns);
	if (s->held)
		printf("  pid %-8d runtime %-8s %u queue%s, %u held for %s "
		       "(watchdog in %s)\n", s->pid,
		       kfd_runtime_state_name(s->runtime), s->queues,
		       s->queues == 1 ? "" : "s", s->held, t1, t2);
	else
		printf("  pid %-8d runtime %-8s %u queue%s, none held\n",
		       s->pid, kfd_runtime_state_name(s->runtime), s->queues,
		       s->queues == 1 ? "" : "s");
}

/* The request for a->cmd; 0, or -1 if the command has no daemon verb. */
static int build_request(const struct ctl_args *a, struct proto_req *q)
{
	memset(q, 0, sizeof(*q));
	switch (a->cmd) {
	case CTL_SUSPEND:
		q->verb = PROTO_SUSPEND;
		q->grace = a->grace_period;
		q->for_ns = a->for_ns;
		q->wait_ns = a->wait_runtime_ns;
		break;
	case CTL_RESUME:
		q->verb = PROTO_RESUME;
		break;
	case CTL_STATUS:
		q->verb = PROTO_STATUS;
		break;
	default:
		return -1;
	}
	q->pid = a->pid;
	q->n_queues = a->n_queues;
	memcpy(q->queues, a->queues, a->n_queues * sizeof(q->queues[0]));
	return 0;
}

/*
 * After a suspend the daemon accepted: how long it holds the target, as
 * it applied it (its session line), which --max-hold may have cut short
 * of what was asked.
 */
static void print_hold(const struct ctl_out *o, const struct proto_reply *r,
		       pid_t pid, uint64_t asked_ns)
{
	uint64_t left = r->n_sessions ? r->sessions[0].left_ns : 0;
	char t[32], t2[32];
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "hold");
		json_s64(&j, "pid", pid);
		json_u64(&j, "hold_ns", left);
		json_u64(&j, "requested_ns", asked_ns);
		json_end(&j);
		return;
	}
	fmt_ns(t, sizeof(t), left);
	fmt_ns(t2, sizeof(t2), asked_ns);
	if (asked_ns && left + NSEC_PER_MSEC < asked_ns)
		printf("the daemon holds pid %d for %s (its --max-hold cuts "
		       "the %s asked for), or until 'gpreempt-ctl resume "
		       "--pid %d'\n", pid, t, t2, pid);
	else
		printf("the daemon holds pid %d for %s, or until "
		       "'gpreempt-ctl resume --pid %d'\n", pid, t, pid);
}

/* Print a reply like the direct commands print their results. */
static int print_reply(const struct ctl_out *o, const struct proto_reply *r,
		       bool suspend, pid_t pid, uint64_t for_ns)
{
	struct gp_err e = {};
	uint32_t i;

	if (r->has_daemon)
		print_daemon(o, &r->daemon);
	for (i = 0; !suspend && i < r->n_sessions; i++)
		print_session(o, &r->sessions[i]);
	if (r->has_op)
		ctl_print_op(o, &r->op);
	if (suspend && r->n_sessions)
		print_hold(o, r, pid, for_ns);
	if (r->exit) {
		gp_err_set(&e, r->exit, r->err, "daemon: %s", r->msg);
		ctl_report(o, &e);
	}
	fflush(stdout);
	return r->exit;
}

static int via_daemon(const struct ctl_args *a, const char *path)
{
	struct ctl_out o = ctl_out_of(a);
	struct proto_reply *r;
	struct proto_req q;
	struct gp_err e = {};
	uint64_t timeout;
	int ret;

	if (build_request(a, &q))
		return GP_EXIT_USAGE;
	/* A reply holds up to PROTO_MAX_SESSIONS sessions: keep it off the
	 * stack. */
	r = calloc(1, sizeof(*r));
	if (!r) {
		gp_err_set(&e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		return ctl_report(&o, &e);
	}
	/* a reply that waits for the runtime comes that much later */
	timeout = PROTO_TIMEOUT_MS + q.wait_ns / NSEC_PER_MSEC;
	/* and a CUDA lock as long as the daemon lets it wait (the daemon's
	 * --cuda-lock-timeout; the client is told with the same flag) */
	timeout += a->cuda_lock_timeout_ns / NSEC_PER_MSEC;
	if (ctl_call(path, &q, r, timeout > INT_MAX ? INT_MAX : (int)timeout,
		     &e))
		ret = ctl_report(&o, &e);
	else
		ret = print_reply(&o, r, a->cmd == CTL_SUSPEND, a->pid,
				  a->for_ns);
	free(r);
	return ret;
}

int ctl_via_daemon(const struct ctl_args *a, int *exit)
{
	const char *path = socket_path(a);
	struct gp_err e = {};
	struct stat st;

	if (a->no_daemon)
		return 0;
	if (stat(path, &st) || !S_ISSOCK(st.st_mode)) {
		if (!a->socket && !ctl_socket_from_env())
			return 0;	/* no daemon: act directly */
		gp_err_set(&e, GP_EXIT_DAEMON, ENOENT,
			   "no daemon socket at %s: start 'gpreempt-ctl "
			   "daemon --socket %s', or drop --socket to act "
			   "directly", path, path);
		*exit = ctl_report(&(struct ctl_out){ .json = a->json }, &e);
		return 1;
	}
	*exit = via_daemon(a, path);
	return 1;
}

int ctl_cmd_daemon(const struct ctl_args *a)
{
	struct daemon_opts o;
	int r;

	/* Its modules first: their options are the daemon's too. */
	daemon_module_add(&arbiter_module);
	/* The daemon parses its own options (daemon_args.c). */
	r = daemon_parse(a->sub_argc, a->sub_argv, &o, stdout, stderr);
	if (r)
		return r;
	if (o.help)
		return GP_EXIT_OK;
	if (o.send && (r = ctl_arb_send_raw(o.socket ? o.socket :
					    PROTO_DEFAULT_SOCKET, o.send)) >= 0)
		return r;
	if (o.send)
		return ctl_send_raw(o.socket ? o.socket : PROTO_DEFAULT_SOCKET,
				    o.send);
	return daemon_main(&o);
}
