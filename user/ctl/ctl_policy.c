// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl notify busy|idle [--pid N]` and `gpreempt-ctl policy [-j]
 * [--replay FILE ...]`: the arbiter's client side (arb_proto.h) and the
 * replay (replay.h). Each parses its own options, like `daemon`.
 */
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arb_proto.h"
#include "gp_notify.h"
#include "ctl_cmd.h"
#include "ctl_conn.h"
#include "ctl_policy.h"
#include "exitcodes.h"
#include "greplay.h"
#include "replay.h"
#include "util.h"

struct pol_args {
	const char *socket, *replay;
	bool json, busy, verb_set, help, hold;
	int pid;
	struct arb_req gq;	/* notify --gpu */
	struct gp_replay_cfg rc;
	bool per_gpu;		/* --scope or --gang given: greplay.h */
	bool gang_set;
	enum gp_scope scope;
	enum gp_gang gang;
};

enum { O_PID = 'p', O_SOCK = 's', O_JSON = 'j', O_HOLD_CONN = 0x2ff,
       O_REPLAY = 0x300,
       O_SCOST, O_RCOST, O_NOFF, O_RA, O_SHARE, O_WIN, O_HOLD, O_SCOPE,
       O_GANG, O_GPU };

static const struct argp_option notify_opts[] = {
	{ "pid", O_PID, "PID", 0, "The online process (default: the caller, "
	  "gpreempt-ctl's parent)", 0 },
	{ "socket", O_SOCK, "PATH", 0, "The daemon's socket", 0 },
	{ "gpu", O_GPU, "GPU_ID[,GPU_ID]", 0, "The GPUs the work is on, by "
	  "KFD gpu_id (gpreempt-ctl snapshot; never a HIP/ROCr device index). "
	  "Default: every GPU the process has queues on", 0 },
	{ "json", O_JSON, NULL, 0, "Errors also as JSON on stdout", 0 },
	{ "hold", O_HOLD_CONN, NULL, 0, "busy: keep the connection and the "
	  "busy until stdin ends or this process is killed (a job that is "
	  "online while it runs)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ 0 },
};

static const struct argp_option policy_opts[] = {
	{ "socket", O_SOCK, "PATH", 0, "The daemon's socket", 0 },
	{ "json", O_JSON, NULL, 0, "NDJSON output", 0 },
	{ "replay", O_REPLAY, "FILE", 0, "Run the policy over a recorded "
	  "busy/idle trace (NDJSON, docs/arbiter.md; '-' is stdin) instead "
	  "of asking the daemon", 0 },
	{ "suspend-cost", O_SCOST, "DURATION", 0, "Replay: one suspend ioctl "
	  "(default 100us)", 0 },
	{ "resume-cost", O_RCOST, "DURATION", 0, "Replay: one resume ioctl "
	  "(default 100us)", 0 },
	{ "offline-procs", O_NOFF, "N", 0, "Replay: offline processes "
	  "(default 1)", 0 },
	{ "resume-after", O_RA, "DURATION", 0, "Replay: as the daemon's", 0 },
	{ "min-offline-share", O_SHARE, "PCT", 0, "Replay: as the daemon's",
	  0 },
	{ "window", O_WIN, "DURATION", 0, "Replay: as the daemon's", 0 },
	{ "max-hold", O_HOLD, "DURATION", 0, "Replay: as the daemon's "
	  "(default none)", 0 },
	{ "scope", O_SCOPE, "gpu|node", 0, "Replay per GPU: a trace with "
	  "\"gpu\" on busy/idle and \"queue\" lines placing offline "
	  "queues; gpu = one policy per gpu_id, node = one for the node", 0 },
	{ "gang", O_GANG, "none|pgid|cgroup", 0, "Replay per GPU: group "
	  "offline processes by the queue lines' \"gang\" key (default "
	  "cgroup; none ignores the keys)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ 0 },
};

static error_t pol_opt(int key, char *arg, struct argp_state *st)
{
	struct pol_args *p = st->input;
	uint64_t *dur = NULL;
	uint32_t u;

	switch (key) {
	case O_PID:
		if (parse_pid(arg, &p->pid)) {
			argp_error(st, "--pid: '%s' is not a pid", arg);
			return EINVAL;
		}
		return 0;
	case O_SOCK:
		p->socket = arg;
		return 0;
	case O_GPU:
		if (p->gq.ngpus || arb_parse_gpus(arg, strlen(arg), &p->gq)) {
			argp_error(st, "--gpu: '%s' is not one or more "
				   "distinct non-zero gpu_ids, comma-separated "
				   "(given once)", arg);
			return EINVAL;
		}
		return 0;
	case 'h':
		argp_state_help(st, stdout, ARGP_HELP_STD_HELP);
		p->help = true;
		return 0;
	case O_JSON:
		p->json = true;
		return 0;
	case O_HOLD_CONN:
		p->hold = true;
		return 0;
	case O_REPLAY:
		p->replay = arg;
		return 0;
	case O_SCOPE:
		if (gp_scope_parse(arg, &p->scope)) {
			argp_error(st, "--scope: '%s' is not gpu or node", arg);
			return EINVAL;
		}
		p->per_gpu = true;
		return 0;
	case O_GANG:
		if (gp_gang_parse(arg, &p->gang)) {
			argp_error(st, "--gang: '%s' is not none, pgid or "
				   "cgroup", arg);
			return EINVAL;
		}
		p->per_gpu = p->gang_set = true;
		return 0;
	case O_SCOST: dur = &p->rc.suspend_cost_ns; break;
	case O_RCOST: dur = &p->rc.resume_cost_ns; break;
	case O_RA: dur = &p->rc.pol.resume_after_ns; break;
	case O_WIN: dur = &p->rc.pol.window_ns; break;
	case O_HOLD: dur = &p->rc.pol.max_hold_ns; break;
	case O_NOFF:
	case O_SHARE:
		if (parse_u32(arg, &u) || (key == O_SHARE && u > 100) ||
		    (key == O_NOFF && (!u || u > GP_POLICY_MAX_OFFLINE))) {
			argp_error(st, "--%s: '%s' is out of range (%s)",
				   key == O_SHARE ? "min-offline-share" :
				   "offline-procs", arg, key == O_SHARE ?
				   "0..100" : "1..64");
			return EINVAL;
		}
		if (key == O_SHARE)
			p->rc.pol.min_offline_share = u;
		else
			p->rc.n_offline = u;
		return 0;
	case ARGP_KEY_ARG:
		if (!p->verb_set && (!strcmp(arg, "busy") ||
				     !strcmp(arg, "idle"))) {
			p->busy = !strcmp(arg, "busy");
			p->verb_set = true;
			return 0;
		}
		argp_error(st, "unexpected argument '%s'", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	if (parse_duration_ns(arg, dur)) {
		argp_error(st, "invalid duration '%s' (e.g. 2ms, 150us)", arg);
		return EINVAL;
	}
	return 0;
}

static int parse_sub(const struct ctl_args *a, const struct argp_option *o,
		     const char *args_doc, const char *doc,
		     struct pol_args *p)
{
	struct argp ap = { .options = o, .parser = pol_opt,
			   .args_doc = args_doc, .doc = doc };
	char name[32], **sub;
	int i, r;

	memset(p, 0, sizeof(*p));
	p->json = a->json;
	gp_policy_cfg_default(&p->rc.pol);
	p->rc.suspend_cost_ns = p->rc.resume_cost_ns = 100 * NSEC_PER_USEC;
	p->rc.n_offline = 1;
	/* argp names the program after argv[0]: "gpreempt-ctl policy" */
	sub = calloc(a->sub_argc + 1, sizeof(*sub));
	if (!sub)
		return GP_EXIT_FAILURE;
	snprintf(name, sizeof(name), "gpreempt-ctl %s", a->sub_argv[0]);
	sub[0] = name;
	for (i = 1; i < a->sub_argc; i++)
		sub[i] = a->sub_argv[i];
	r = argp_parse(&ap, a->sub_argc, sub, ARGP_NO_EXIT | ARGP_NO_HELP,
		       NULL, p);
	free(sub);
	return r ? GP_EXIT_USAGE : 0;
}

/* One request, its INFO lines to on_line, the final line's verdict: 0
 * "ok", 1 the daemon's "err" (in e), -1 no answer (e says why). */
static int roundtrip(const char *path, const char *req, struct gp_err *e,
		     void (*on_line)(void *, const char *), void *ctx)
{
	static char buf[PROTO_MAX_REPLY];
	uint64_t deadline = monotonic_ns() + PROTO_TIMEOUT_MS * NSEC_PER_MSEC;
	size_t len = 0;
	char *l, *nl;
	int fd = ctl_connect(path, PROTO_TIMEOUT_MS, CTL_HINT_ARBITER, e);
	int r = -1;

	if (fd < 0)
		return -1;
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		gp_err_set(e, GP_EXIT_DAEMON, errno, "cannot send to the "
			   "daemon: %s", strerror(errno));
		goto out;
	}
	for (l = buf;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t now = monotonic_ns();
		ssize_t n;

		while ((nl = memchr(l, '\n', buf + len - l))) {
			*nl = 0;
			if (!strcmp(l, "ok")) {
				r = 0;
				goto out;
			}
			if (!strncmp(l, "err ", 4)) {
				int ex = 1, er = 0, off = 0;

				sscanf(l + 4, "%d %d %n", &ex, &er, &off);
				gp_err_set(e, ex ? ex : 1, er, "%s",
					   off ? l + 4 + off : l);
				r = 1;
				goto out;
			}
			on_line(ctx, l);
			l = nl + 1;
		}
		if (now >= deadline || poll(&p, 1, (deadline - now) / 1000000
					    + 1) <= 0 ||
		    len == sizeof(buf) - 1 ||
		    (n = read(fd, buf + len, sizeof(buf) - 1 - len)) <= 0) {
			gp_err_set(e, GP_EXIT_DAEMON, ETIMEDOUT, "no complete "
				   "reply from the daemon at %s", path);
			goto out;
		}
		len += n;
		buf[len] = 0;
	}
out:
	close(fd);
	return r;
}

int ctl_cmd_notify(const struct ctl_args *a)
{
	struct pol_args p;
	struct arb_req q = { 0 };
	struct gp_err e = {};
	struct ctl_out o;
	char req[1024], msg[400] = "", c;
	const char *path;
	int fd, r = parse_sub(a, notify_opts, "busy|idle",
			  "Tell the daemon's arbiter that online work starts "
			  "(busy) or ends (idle). The busy belongs to the pid "
			  "(scope=pid) and ends with 'notify idle' or the "
			  "pid's exit; with --hold it belongs to this "
			  "connection and ends when gpreempt-ctl ends. "
			  "Servers keep a connection open and send "
			  "'busy'/'idle' lines instead (gp_notify.h, README)."
			  "\vEXAMPLES:\n"
			  "    gpreempt-ctl notify busy --pid 4242\n"
			  "    gpreempt-ctl notify busy --pid 4242 --gpu 10001\n"
			  "    gpreempt-ctl notify idle --pid 4242\n"
			  "    gpreempt-ctl notify busy --pid 4242 --hold "
			  "< fifo   # busy until the fifo closes\n", &p);

	if (r || p.help)
		return r;
	o = (struct ctl_out){ .json = p.json };
	if (!p.verb_set || (p.hold && !p.busy)) {
		gp_err_set(&e, GP_EXIT_USAGE, EINVAL, "notify: say busy or "
			   "idle (--hold only with busy)");
		return ctl_report(&o, &e);
	}
	q.verb = p.busy ? ARB_BUSY : ARB_IDLE;
	q.pid = p.pid ? p.pid : getppid();
	q.pid_scope = !p.hold;
	q.ngpus = p.gq.ngpus;
	memcpy(q.gpus, p.gq.gpus, sizeof(q.gpus));
	arb_format_request(req, sizeof(req), &q);
	/* The same client servers embed (gp_notify.h). */
	path = p.socket ? p.socket : ctl_default_socket();
	fd = gp_notify_open(path);
	if (fd == -EPERM)
		gp_err_set(&e, GP_EXIT_DAEMON, EPERM, "%s is not served by "
			   "root: not a gpreempt daemon, or the socket was "
			   "replaced; nothing was sent", path);
	else if (fd < 0)
		ctl_connect_err(path, -fd, PROTO_TIMEOUT_MS, CTL_HINT_ARBITER,
				&e);
	if (fd < 0)
		return ctl_report(&o, &e);
	r = gp_notify_send(fd, req, msg, sizeof(msg));
	if (r) {
		if (r < 0)
			gp_err_set(&e, GP_EXIT_DAEMON, -r, "no reply from the "
				   "daemon: %s", strerror(-r));
		else
			gp_err_set(&e, r, 0, "%s", msg);
		gp_notify_close(fd);
		return ctl_report(&o, &e);
	}
	if (p.hold) {
		printf("busy for pid %d until this ends\n", q.pid);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
	}
	gp_notify_close(fd);
	return GP_EXIT_OK;
}

static int replay_gpus(const struct pol_args *p, FILE *in, const char *name,
		       const struct ctl_out *o)
{
	struct gp_greplay_cfg c = { .pol = p->rc.pol, .scope = p->scope,
				    .gang = p->gang };
	struct gp_greplay_result *r = malloc(sizeof(*r));
	struct gp_err e = {};
	char err[512];
	int ret;

	if (!r) {
		gp_err_set(&e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		return ctl_report(o, &e);
	}
	ret = gp_greplay_run(in, name, &c, r, err, sizeof(err));
	if (ret) {
		gp_err_set(&e, GP_EXIT_USAGE, -ret, "%s", err);
		ret = ctl_report(o, &e);
	} else {
		gp_greplay_print(stdout, name, &c, r, o->json);
	}
	free(r);
	return ret;
}

static int do_replay(const struct pol_args *p, const struct ctl_out *o)
{
	struct gp_replay_result r;
	struct gp_err e = {};
	char err[512];
	FILE *in = strcmp(p->replay, "-") ? fopen(p->replay, "r") : stdin;
	const char *name = strrchr(p->replay, '/') ? strrchr(p->replay, '/')
		+ 1 : p->replay;
	int ret;

	if (!in) {
		gp_err_set(&e, GP_EXIT_USAGE, errno, "cannot open %s: %s",
			   p->replay, strerror(errno));
		return ctl_report(o, &e);
	}
	if (gp_policy_cfg_check(&p->rc.pol, err, sizeof(err))) {
		gp_err_set(&e, GP_EXIT_USAGE, EINVAL, "%s", err);
		ret = ctl_report(o, &e);
		goto out;
	}
	if (p->per_gpu) {
		ret = replay_gpus(p, in, name, o);
		goto out;
	}
	ret = gp_replay_run(in, name, &p->rc, &r, err, sizeof(err));
	if (ret) {
		gp_err_set(&e, GP_EXIT_USAGE, -ret, "%s", err);
		ret = ctl_report(o, &e);
		goto out;
	}
	gp_replay_print(stdout, name, &p->rc, &r, o->json);
out:
	if (in != stdin)
		fclose(in);
	return ret;
}

int ctl_cmd_policy(const struct ctl_args *a)
{
	struct pol_args p;
	struct pol_print pp = { .f = stdout };
	struct gp_err e = {};
	struct ctl_out o;
	int r = parse_sub(a, policy_opts, NULL,
			  "Show the daemon's arbiter: state, classes, each "
			  "process, counters and latency histograms; or, with "
			  "--replay, run the same policy over a recorded "
			  "busy/idle trace to tune it without a GPU.\v"
			  "EXAMPLES:\n"
			  "    gpreempt-ctl policy\n"
			  "    gpreempt-ctl policy -j\n"
			  "    gpreempt-ctl policy --replay trace.ndjson "
			  "--suspend-cost 150us --resume-cost 150us\n"
			  "    gpreempt-ctl policy --replay trace.ndjson "
			  "--min-offline-share 20 --window 100ms -j\n"
			  "    gpreempt-ctl policy --replay gpus.ndjson "
			  "--scope gpu --gang pgid\n", &p);

	if (r || p.help)
		return r;
	o = (struct ctl_out){ .json = p.json };
	if (!p.gang_set)
		p.gang = GP_GANG_CGROUP;	/* docs/arbiter.md: why */
	if (p.replay)
		return do_replay(&p, &o);
	pp.json = p.json;
	if (roundtrip(p.socket ? p.socket : ctl_default_socket(), "policy\n",
		      &e, pol_line, &pp))
		return ctl_report(&o, &e);
	return GP_EXIT_OK;
}

/* An INFO line printed as it came; ctx counts the malformed ones. */
static void raw_line(void *ctx, const char *l)
{
	static struct arb_kv kv;

	if (arb_kv_parse(l, strlen(l), &kv))
		++*(int *)ctx;
	puts(l);
}

int ctl_arb_send_raw(const char *path, const char *request)
{
	char line[PROTO_MAX_REQ];
	struct arb_req q;
	struct gp_err e = {};
	int r, bad = 0;

	/* a malformed arbiter line goes as any other: the daemon judges */
	if (arb_parse_request(request, strlen(request), &q, &e) != 1)
		return -1;
	if (snprintf(line, sizeof(line), "%s\n", request) >= (int)sizeof(line))
		return -1;
	r = roundtrip(path, line, &e, raw_line, &bad);
	if (!r && bad) {
		r = -1;
		gp_err_set(&e, GP_EXIT_DAEMON, EPROTO, "malformed reply from "
			   "the daemon: %d line(s) are not 'KIND key=value "
			   "...' (is it the same gpreempt version?)", bad);
	}
	if (!r)
		puts("ok");
	else if (r > 0)
		printf("err %d %d %s\n", e.exit, e.err, e.msg);
	fflush(stdout);
	if (r)
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);
	return r ? e.exit : GP_EXIT_OK;
}
