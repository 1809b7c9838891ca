// SPDX-License-Identifier: GPL-2.0
/* `gpreempt-ctl daemon`'s options and --help (daemon.h). */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "daemon_config.h"
#include "daemon_int.h"
#include "metrics_http.h"
#include "exitcodes.h"
#include "util.h"

enum { OPT_READY = 0x100, OPT_SEND, OPT_METRICS, OPT_TENANT_SOCKET,
       OPT_ADMIN_CGROUP, OPT_TENANT_CLASSIFY, OPT_CUDA_LOCK_TIMEOUT,
       OPT_CUDA_JOURNAL, OPT_NO_CUDA };

static const struct argp_option daemon_options[] = {
	{ "socket", 's', "PATH", 0,
	  "Listen here (default " PROTO_DEFAULT_SOCKET ")", 0 },
	{ "max-hold", 'm', "DURATION", 0,
	  "Resume any target held longer than this (default 10s)", 0 },
	{ "group", 'g', "NAME", 0,
	  "Also let this group use the daemon (socket 0660, group NAME; "
	  "default: root only, 0600)", 0 },
	{ "tenant-socket", OPT_TENANT_SOCKET, "PATH", 0,
	  "Also listen here for tenants (pods): every peer is a tenant, "
	  "served status, busy, idle and policy for its own processes; mode "
	  "0666 (0660 with --group); its directory apart from --socket's "
	  "(default: off)", 0 },
	{ "tenant-classify", OPT_TENANT_CLASSIFY, NULL, 0,
	  "Also serve classify (of the peer's own processes) to tenants: "
	  "--group members and the tenant socket's peers", 0 },
	{ "admin-cgroup", OPT_ADMIN_CGROUP, "PATH", 0,
	  "Also admin: a uid-0 peer in another namespace whose cgroup v2 path "
	  "(as /proc/PID/cgroup shows it to the daemon) is PATH or below it "
	  "(needs Linux 6.5's SO_PEERPIDFD; never on the tenant socket)", 0 },
	{ "ready", OPT_READY, "FILE", 0,
	  "Write the daemon's pid to FILE once it listens", 0 },
	{ "send", OPT_SEND, "REQUEST", 0,
	  "Client: send one raw request line to the daemon, print the "
	  "reply, exit with its code", 0 },
	{ "config", 'c', "FILE", 0,
	  "Read options from FILE first: one per line, as 'max-hold 10s', "
	  "'#' comments (flags given here win; SIGHUP re-reads it)", 0 },
	{ "metrics", OPT_METRICS, "ADDR", 0,
	  "Serve Prometheus metrics on ADDR (IP:PORT, e.g. 127.0.0.1:9464; "
	  "off by default)", 0 },
	{ "cuda-lock-timeout", OPT_CUDA_LOCK_TIMEOUT, "DURATION", 0,
	  "CUDA processes: how long a lock may wait for the GPU work in "
	  "flight (kernels finish; default 500ms); past it the process is "
	  "left running and the suspend fails with exit 13", 0 },
	{ "cuda-journal", OPT_CUDA_JOURNAL, "PATH", 0,
	  "CUDA processes: the durable record of locks, released at start "
	  "and by the guardian if the daemon dies (default "
	  "/run/gpreempt/cuda-holds)", 0 },
	{ "no-cuda", OPT_NO_CUDA, NULL, 0,
	  "Do not load libcuda.so.1 (default: the CUDA backend is on where "
	  "it loads)", 0 },
	{ "verbose", 'v', NULL, 0, "Log every request", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ 0 },
};

static const char daemon_doc[] =
"Hold debug sessions for many targets and serve suspend, resume, attach, "
"detach and status on a Unix socket. Sessions are attached once and kept "
"warm, so a suspend costs one ioctl. A watchdog resumes any target held "
"longer than --max-hold. SIGHUP re-reads --config and the flags "
"(max-hold, verbose and the Arbitration options below) and keeps every "
"hold; SIGINT/SIGTERM resume and "
"detach everything, remove the socket and exit 0. Needs root (CAP_SYS_PTRACE); "
"starts without /dev/kfd (suspend then answers exit 4). Where libcuda.so.1 "
"loads, CUDA processes (NVIDIA) are suspended with the CUDA driver's "
"checkpoint lock: kernels in flight finish first (docs/cuda.md).\v"
"Protocol (one line per request, one reply per request; see user/proto/proto.h):\n"
"  suspend pid=N [queues=ID,ID] [grace=N] [for_ns=N]\n"
"  resume pid=N [queues=ID,ID]   attach pid=N   detach pid=N   "
"status [pid=N]\n"
"Replies: info lines, then 'ok' or 'err EXIT ERRNO MESSAGE'.\n"
"\n"
"EXAMPLES:\n"
"    gpreempt-ctl daemon &                       # root-only socket\n"
"    gpreempt-ctl daemon --group gpreempt        # let a group in\n"
"    gpreempt-ctl daemon -s /tmp/gp.sock -m 2s   # private, 2 s watchdog\n"
"    gpreempt-ctl daemon --config /etc/gpreempt/gpreempt.conf\n"
"    gpreempt-ctl daemon --metrics 127.0.0.1:9464 # Prometheus endpoint\n"
"    gpreempt-ctl daemon --tenant-socket /run/gpreempt-tenant/ctl.sock\n"
"    gpreempt-ctl suspend -p 4242 -f 1s          # goes to the daemon\n"
"    gpreempt-ctl status -j                      # what it holds\n"
"    gpreempt-ctl daemon --send 'attach pid=4242' # raw request\n"
"    echo 'suspend pid=4242' | socat - UNIX:" PROTO_DEFAULT_SOCKET "\n";

struct dparse {
	struct daemon_opts *o;
	FILE *out, *err;
};

static error_t daemon_opt(int key, char *arg, struct argp_state *state)
{
	struct dparse *p = state->input;
	struct daemon_opts *o = p->o;
	int i;

	switch (key) {
	case ARGP_KEY_INIT:
		state->out_stream = p->out;
		state->err_stream = p->err;
		/* each module's block, in dmod_argp_children()'s order */
		for (i = 0; state->root_argp->children &&
			    state->root_argp->children[i].argp; i++)
			state->child_inputs[i] = o->mod_opts[i];
		break;
	case 's':
		if (!*arg) {
			argp_error(state, "empty socket path");
			return EINVAL;
		}
		o->socket = arg;
		break;
	case 'm':
		if (gp_args_duration(state, "max-hold", arg, &o->max_hold_ns,
				     false))
			return EINVAL;
		break;
	case 'g':
		if (!*arg) {
			argp_error(state, "empty group name");
			return EINVAL;
		}
		o->group = arg;
		break;
	case OPT_TENANT_SOCKET:
		if (gp_args_abs_path(state, "tenant-socket", arg))
			return EINVAL;
		o->tenant_socket = arg;
		break;
	case OPT_TENANT_CLASSIFY:
		o->tenant_classify = true;
		break;
	case OPT_CUDA_LOCK_TIMEOUT:
		if (gp_args_cuda_lock_timeout(state, arg,
					      &o->cuda_lock_timeout_ns))
			return EINVAL;
		break;
	case OPT_CUDA_JOURNAL:
		if (gp_args_abs_path(state, "cuda-journal", arg))
			return EINVAL;
		o->cuda_journal = arg;
		break;
	case OPT_NO_CUDA:
		o->no_cuda = true;
		break;
	case OPT_ADMIN_CGROUP: {
		size_t n = strlen(arg);

		/* "/a/b/" and "/a/b" name the same cgroup */
		while (n > 1 && arg[n - 1] == '/')
			arg[--n] = 0;
		if (*arg != '/' || strstr(arg, "/..") || !strcmp(arg, "/")) {
			argp_error(state, "--admin-cgroup: '%s' is not a "
				   "cgroup below the root, as in "
				   "/proc/PID/cgroup (e.g. /kubepods.slice/"
				   "...-podUID.slice)", arg);
			return EINVAL;
		}
		o->admin_cgroup = arg;
		break;
	}
	case OPT_READY:
		o->ready = arg;
		break;
	case OPT_SEND:
		o->send = arg;
		break;
	case 'c':
		o->config = arg;	/* read by dconfig_expand() */
		break;
	case OPT_METRICS: {
		struct sockaddr_storage ss;
		socklen_t len;
		struct gp_err e = {};

		if (mhttp_parse_addr(arg, &ss, &len, &e)) {
			argp_error(state, "%s", e.msg);
			return EINVAL;
		}
		o->metrics = arg;
		break;
	}
	case 'v':
		o->verbose = true;
		break;
	default:
		return gp_args_common(key, arg, state, p->out,
				      GP_ARGS_NO_USAGE, &o->help);
	}
	return 0;
}

/* Its children are the registered modules' parsers (daemon_module.h),
 * set before each parse. */
static struct argp daemon_argp = {
	.options = daemon_options, .parser = daemon_opt, .doc = daemon_doc,
};

/* One option of the config file, judged by the same parser; argp's
 * complaint (first line, without the program name) goes to msg. */
static int check_one(void *ctx, char *opt, char *msg, size_t len)
{
	char name[] = DAEMON_PROG, *argv[] = { name, opt, NULL }, *buf = NULL;
	struct daemon_opts scratch = {};
	size_t blen = 0;
	FILE *err = open_memstream(&buf, &blen);
	struct dparse p = { &scratch, err, err };
	int r;

	if (!err)
		return 0;	/* the full parse below still judges it */
	if (dmod_opts_alloc(scratch.mod_opts)) {
		fclose(err);
		free(buf);
		return 0;	/* likewise */
	}
	r = argp_parse(&daemon_argp, 2, argv, ARGP_NO_EXIT | ARGP_NO_HELP,
		       NULL, &p);
	dmod_opts_free(scratch.mod_opts);
	fclose(err);
	if (r) {
		const char *m = buf;

		if (!strncmp(m, DAEMON_PROG ": ", sizeof(DAEMON_PROG ": ") - 1))
			m += sizeof(DAEMON_PROG ": ") - 1;
		snprintf(msg, len, "%.*s", (int)strcspn(m, "\n"), m);
	}
	free(buf);
	return r ? -1 : 0;
}

int daemon_parse(int argc, char **argv, struct daemon_opts *o, FILE *out,
		 FILE *err)
{
	struct dparse p = { o, out, err };
	char name[] = DAEMON_PROG;
	char **sub, **full = NULL;
	struct config *cfg;
	const char *file = NULL;
	int i, r, n;

	memset(o, 0, sizeof(*o));
	daemon_argp.children = dmod_argp_children();
	sub = calloc(argc + 1, sizeof(*sub));
	cfg = calloc(1, sizeof(*cfg));
	if (!sub || !cfg || dmod_opts_alloc(o->mod_opts)) {
		free(sub);
		free(cfg);
		return GP_EXIT_FAILURE;
	}
	sub[0] = name;	/* argp names the program after argv[0] */
	for (i = 1; i < argc; i++)
		sub[i] = argv[i];
	n = argc;
	r = dconfig_expand(argc, sub, &daemon_argp, check_one, NULL, cfg,
			   &n, &full, &file, err);
	if (r) {
		free(sub);
		free(cfg);
		dmod_opts_free(o->mod_opts);
		return r;
	}
	r = argp_parse(&daemon_argp, n, full ? full : sub,
		       ARGP_NO_EXIT | ARGP_NO_HELP, NULL, &p);
	free(full);
	free(sub);
	/* the options' strings point into cfg: it lives with o */
	o->cfg = cfg;
	o->config = file;
	o->argc = argc;
	o->argv = argv;
	if (r) {
		daemon_opts_free(o);
		return GP_EXIT_USAGE;
	}
	return 0;
}

void daemon_opts_free(struct daemon_opts *o)
{
	dmod_opts_free(o->mod_opts);
	if (o->cfg) {
		config_free(o->cfg);
		free(o->cfg);
		o->cfg = NULL;
	}
}
