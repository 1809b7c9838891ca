// SPDX-License-Identifier: GPL-2.0
/* gpreempt-ctl's argument parsing (argp per sub-command). */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ctl_args.h"
#include "exitcodes.h"
#include "util.h"

#define PROG "gpreempt-ctl"

enum {
	OPT_NO_DAEMON = 0x100,
	OPT_WAIT_RUNTIME,
	OPT_USAGE,
	OPT_GPU,
	OPT_KFD_PROC,
	OPT_KFD_TOPO,
	OPT_CUDA_LOCK_TIMEOUT,
	OPT_CUDA_JOURNAL,
};

static const struct argp_option opt_pid = {
	"pid", 'p', "PID", 0, "Target process (host pid)", 0 };
static const struct argp_option opt_queue = {
	"queue", 'q', "ID", 0,
	"Queue id (repeatable; default: every queue of the target)", 0 };
static const struct argp_option opt_gpu = {
	"gpu", OPT_GPU, "GPU_ID", 0,
	"Only the target's queues on this GPU (repeatable): the topology's "
	"gpu_id (gpreempt-ctl snapshot, amd-smi's kfd_id), never a HIP or "
	"ROCr index; found in the KFD sysfs queue directories", 0 };
static const struct argp_option opt_kfd_proc = {
	"kfd-proc", OPT_KFD_PROC, "DIR", 0,
	"With --gpu: read queue placement from DIR/<pid>/queues instead of "
	"/sys/class/kfd/kfd/proc (a stand-in tree for tests)", 0 };
static const struct argp_option opt_list_proc = {
	"kfd-proc", OPT_KFD_PROC, "DIR", 0,
	"Read the KFD processes and queues from DIR instead of "
	"/sys/class/kfd/kfd/proc (a stand-in tree for tests)", 0 };
static const struct argp_option opt_topology = {
	"kfd-topology", OPT_KFD_TOPO, "DIR", 0,
	"Read the KFD nodes from DIR/nodes instead of "
	"/sys/class/kfd/kfd/topology (a stand-in tree for tests)", 0 };
static const struct argp_option opt_grace = {
	"grace-period", 'g', "N", 0,
	"Wave time allowed before preemption, in 1K GPU cycles "
	"(default 0: KFD uses its minimum, 1)", 0 };
static const struct argp_option opt_for = {
	"for", 'f', "DURATION", 0,
	"Hold the suspension this long (250ms, 10s, 2m; default: until "
	"SIGINT/SIGTERM)", 0 };
static const struct argp_option opt_wait_runtime = {
	"wait-runtime", OPT_WAIT_RUNTIME, "DURATION", 0,
	"If the target has not opened /dev/kfd or its runtime has not "
	"enabled debug support yet (a ROCm process still starting), wait "
	"this long for both (default: fail at once)", 0 };
static const struct argp_option opt_cuda_timeout = {
	"cuda-lock-timeout", OPT_CUDA_LOCK_TIMEOUT, "DURATION", 0,
	"CUDA process: how long the lock may wait for its GPU work in "
	"flight (kernels finish; default 500ms); past it the process is "
	"left running and the exit is 13", 0 };
static const struct argp_option opt_cuda_journal = {
	"cuda-journal", OPT_CUDA_JOURNAL, "PATH", 0,
	"CUDA process: record the lock here before taking it (default "
	"/run/gpreempt/cuda-holds; docs/reliability.md)", 0 };
static const struct argp_option opt_usage = {
	"usage", OPT_USAGE, NULL, OPTION_HIDDEN, "Short usage", 0 };
static const struct argp_option opt_socket = {
	"socket", 's', "PATH", 0,
	"Daemon socket (default " PROTO_DEFAULT_SOCKET ")", 0 };
static const struct argp_option opt_no_daemon = {
	"no-daemon", OPT_NO_DAEMON, NULL, 0,
	"Act directly even if a daemon is running", 0 };
static const struct argp_option opt_json = {
	"json", 'j', NULL, 0, "One JSON object per line on stdout", 0 };
static const struct argp_option opt_verbose = {
	"verbose", 'v', NULL, 0, "More detail (the queue snapshot)", 0 };
static const struct argp_option opt_help = {
	"help", 'h', NULL, 0, "Show this help", 0 };

struct cmd_desc {
	enum ctl_cmd cmd;
	const char *name;
	const char *args_doc;
	const char *doc;
	const struct argp_option *opts[16];
};

static const struct cmd_desc cmds[] = {
	{ CTL_LIST, "list", NULL,
	  "List processes using KFD and their queues (from "
	  "/sys/class/kfd/kfd/proc, plus live state from gpreempt-trace's "
	  "pinned map when it runs). Needs no privilege.\v"
	  "EXAMPLES:\n"
	  "    gpreempt-ctl list              # every KFD process\n"
	  "    gpreempt-ctl list --pid 4242   # one process\n"
	  "    gpreempt-ctl list -j           # NDJSON, one line per queue\n"
	  "Each queue row gives its gpu_id; a GPUs table (JSON type \"gpu\") "
	  "names each GPU with queues the way the topology does (gpu_id, "
	  "node, PCI address, partition, render node) and counts its queues "
	  "and processes.\n",
	  { &opt_pid, &opt_list_proc, &opt_topology, &opt_json, &opt_verbose,
	    &opt_help, &opt_usage } },
	{ CTL_SUSPEND, "suspend", NULL,
	  "Suspend a process's GPU queues (KFD debug-trap SUSPEND_QUEUES), "
	  "hold them until --for elapses or SIGINT/SIGTERM/SIGHUP, then "
	  "resume and detach. Needs root (CAP_SYS_PTRACE): gpreempt-ctl "
	  "becomes the target's ptrace tracer for the whole hold. With a "
	  "running daemon the request goes to it instead.\v"
	  "EXAMPLES:\n"
	  "    gpreempt-ctl suspend --pid 4242            # until Ctrl-C\n"
	  "    gpreempt-ctl suspend -p 4242 --for 500ms   # half a second\n"
	  "    gpreempt-ctl suspend -p 4242 -q 1 -q 3     # queues 1 and 3\n"
	  "    gpreempt-ctl suspend -p 4242 --gpu 51157   # its queues on "
	  "one GPU\n"
	  "    gpreempt-ctl suspend -p 4242 -g 100 -f 2s  # grace 100K cycles\n"
	  "    gpreempt-ctl suspend -p 4242 --socket /tmp/gp.sock\n"
	  "    gpreempt-ctl suspend -p 4242 --no-daemon -j -f 1s\n"
	  "    gpreempt-ctl suspend -p 4242 --wait-runtime 5s -f 1s\n"
	  "\nWith -j, one object per step: [wait_kfd,] attach, [wait_runtime,\n"
	  "runtime,] suspend, hold, [signal | target_exit,] resume, detach;\n"
	  "errors as {\"type\":\"error\",\"exit\":N,\"errno\":N,\"message\":..}.\n"
	  "Exit 10 if some queue ids were invalid or failed.\n",
	  { &opt_pid, &opt_queue, &opt_gpu, &opt_kfd_proc, &opt_grace,
	    &opt_for, &opt_wait_runtime, &opt_cuda_timeout, &opt_cuda_journal,
	    &opt_socket, &opt_no_daemon, &opt_json, &opt_verbose,
	    &opt_help, &opt_usage } },
	{ CTL_RESUME, "resume", NULL,
	  "Resume a process's GPU queues. A suspension lives only as long "
	  "as its holder (a running 'gpreempt-ctl suspend' or the daemon): "
	  "with the daemon this asks it to resume; without, it attaches, "
	  "resumes every (or the named) queue and detaches.\v"
	  "EXAMPLES:\n"
	  "    gpreempt-ctl resume --pid 4242\n"
	  "    gpreempt-ctl resume -p 4242 -q 1\n"
	  "    gpreempt-ctl resume -p 4242 --socket /tmp/gp.sock -j\n"
	  "    gpreempt-ctl resume -p 4242 --no-daemon\n",
	  { &opt_pid, &opt_queue, &opt_gpu, &opt_kfd_proc, &opt_socket,
	    &opt_no_daemon, &opt_cuda_journal, &opt_json,
	    &opt_verbose, &opt_help, &opt_usage } },
	{ CTL_STATUS, "status", NULL,
	  "Show who holds which process: the daemon's sessions when it "
	  "runs, otherwise each KFD process's ptrace tracer.\v"
	  "EXAMPLES:\n"
	  "    gpreempt-ctl status\n"
	  "    gpreempt-ctl status --pid 4242 -j\n"
	  "    gpreempt-ctl status --socket /tmp/gp.sock\n"
	  "    gpreempt-ctl status --no-daemon\n",
	  { &opt_pid, &opt_socket, &opt_no_daemon, &opt_json, &opt_verbose,
	    &opt_help, &opt_usage } },
	{ CTL_CHECK, "check", NULL,
	  "Report what this kernel and this user allow: /dev/kfd, the KFD "
	  "version (debug-trap API needs >= 1.13), amdgpu.sched_policy, "
	  "yama ptrace_scope, capabilities, GPU debug firmware support; "
	  "and why not. Exit 0 when suspend can work.\v"
	  "EXAMPLES:\n"
	  "    gpreempt-ctl check\n"
	  "    gpreempt-ctl check -j\n",
	  { &opt_json, &opt_verbose, &opt_help, &opt_usage } },
};

static const char top_help[] =
"Usage: " PROG " [-j] [-v] COMMAND [OPTIONS]\n"
"Suspend and resume another process's AMD GPU queues through the KFD\n"
"debug-trap API (ptrace + AMDKFD_IOC_DBG_TRAP).\n"
"\n"
"Commands:\n"
"  list      processes using KFD and their queues\n"
"  suspend   suspend a process's queues and hold them\n"
"  resume    resume a process's queues\n"
"  status    who holds which process\n"
"  check     what this kernel and user allow, and why not\n"
"  daemon    hold sessions for many targets, serve a Unix socket\n"
"  snapshot  every GPU, KFD process and queue (MQDs with debugfs)\n"
"  notify    tell the daemon's arbiter: online busy / idle\n"
"  policy    the arbiter's state and counters; --replay a trace\n"
"  bugreport one archive of this machine's state for a bug report\n"
"\n"
"  -j, --json      one JSON object per line on stdout\n"
"  -v, --verbose   more detail\n"
"  -h, --help      this help; '" PROG " COMMAND --help' for a command\n"
"\n"
"EXAMPLES:\n"
"    " PROG " check                        # can this machine do it?\n"
"    " PROG " list                         # KFD processes and queues\n"
"    " PROG " suspend --pid 4242 --for 2s  # suspend, hold 2 s, resume\n"
"    " PROG " resume --pid 4242            # resume (via the daemon)\n"
"    " PROG " daemon &                     # keep sessions warm\n"
"    " PROG " status -j                    # what the daemon holds\n"
"\n"
"Exit codes: 0 ok, 1 failure, 2 bad usage, 3 not privileged, 4 no KFD,\n"
"7 no debug-trap API, 8 target refused, 9 another debugger holds it,\n"
"10 some queues invalid or failed, 11 daemon unreachable.\n";

const char *ctl_cmd_name(enum ctl_cmd cmd)
{
	size_t i;

	if (cmd == CTL_DAEMON)
		return "daemon";
	if (cmd == CTL_SNAPSHOT)
		return "snapshot";
	if (cmd == CTL_BUGREPORT)
		return "bugreport";
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].cmd == cmd)
			return cmds[i].name;
	return "?";
}

struct parse_ctx {
	struct ctl_args *a;
	FILE *out, *err;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct parse_ctx *c = state->input;
	struct ctl_args *a = c->a;
	uint32_t v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->out_stream = c->out;
		state->err_stream = c->err;
		break;
	case 'p':
		if (parse_pid(arg, &a->pid)) {
			argp_error(state, "invalid pid '%s' (want decimal "
				   "1..%d)",
				   arg, INT32_MAX);
			return EINVAL;
		}
		break;
	case 'q':
		if (parse_u32(arg, &v) || v >= KFD_QUEUE_ID_LIMIT) {
			argp_error(state, "invalid queue id '%s' (want a "
				   "decimal number below %u)", arg,
				   KFD_QUEUE_ID_LIMIT);
			return EINVAL;
		}
		if (a->n_queues == CTL_MAX_QUEUES) {
			argp_error(state, "at most %d --queue options",
				   CTL_MAX_QUEUES);
			return EINVAL;
		}
		a->queues[a->n_queues++] = v;
		break;
	case OPT_GPU:
		if (parse_u32(arg, &v) || !v) {
			argp_error(state, "invalid gpu_id '%s' (want the "
				   "topology's nonzero gpu_id)", arg);
			return EINVAL;
		}
		if (a->n_gpus == CTL_MAX_GPUS) {
			argp_error(state, "at most %d --gpu options",
				   CTL_MAX_GPUS);
			return EINVAL;
		}
		a->gpus[a->n_gpus++] = v;
		break;
	case OPT_KFD_PROC:
		a->kfd_proc = arg;
		break;
	case OPT_KFD_TOPO:
		a->kfd_topology = arg;
		break;
	case 'g':
		if (parse_u32(arg, &a->grace_period)) {
			argp_error(state, "invalid grace period '%s' (want a "
				   "decimal number of 1K-cycle units)", arg);
			return EINVAL;
		}
		a->grace_set = true;
		break;
	case 'f':
		if (gp_args_duration(state, "for", arg, &a->for_ns, false))
			return EINVAL;
		break;
	case 's':
		if (!*arg) {
			argp_error(state, "empty socket path");
			return EINVAL;
		}
		a->socket = arg;
		break;
	case OPT_WAIT_RUNTIME:
		if (gp_args_duration(state, "wait-runtime", arg,
				     &a->wait_runtime_ns, true))
			return EINVAL;
		break;
	case OPT_NO_DAEMON:
		a->no_daemon = true;
		break;
	case OPT_CUDA_LOCK_TIMEOUT:
		if (gp_args_cuda_lock_timeout(state, arg,
					      &a->cuda_lock_timeout_ns))
			return EINVAL;
		break;
	case OPT_CUDA_JOURNAL:
		if (gp_args_abs_path(state, "cuda-journal", arg))
			return EINVAL;
		a->cuda_journal = arg;
		break;
	case 'j':
		a->json = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case ARGP_KEY_END:
		if (a->help)
			break;
		if ((a->cmd == CTL_SUSPEND || a->cmd == CTL_RESUME) &&
		    !a->pid) {
			argp_error(state, "--pid is required");
			return EINVAL;
		}
		if (a->n_gpus && a->n_queues) {
			argp_error(state, "--gpu and --queue exclude each "
				   "other");
			return EINVAL;
		}
		if (a->kfd_proc && !a->n_gpus && a->cmd != CTL_LIST) {
			argp_error(state, "--kfd-proc needs --gpu");
			return EINVAL;
		}
		if (a->socket && a->no_daemon) {
			argp_error(state, "--socket and --no-daemon exclude "
				   "each other");
			return EINVAL;
		}
		break;
	default:
		return gp_args_common(key, arg, state, c->out, OPT_USAGE,
				      &a->help);
	}
	return 0;
}

static int usage_err(FILE *err, const char *fmt, const char *arg)
{
	fprintf(err, PROG ": ");
	fprintf(err, fmt, arg);
	fprintf(err, "\nTry '" PROG " --help' for more information.\n");
	return GP_EXIT_USAGE;
}

int ctl_parse(int argc, char **argv, struct ctl_args *a, FILE *out,
	      FILE *err)
{
	struct argp_option opts[17];
	const struct cmd_desc *d = NULL;
	struct parse_ctx c = { a, out, err };
	struct argp ap = {};
	char name[64], **sub;
	size_t i, n;
	int k, r;

	memset(a, 0, sizeof(*a));
	for (k = 1; k < argc && argv[k][0] == '-'; k++) {
		const char *o = argv[k];

		if (!strcmp(o, "-j") || !strcmp(o, "--json")) {
			a->json = true;
		} else if (!strcmp(o, "-v") || !strcmp(o, "--verbose")) {
			a->verbose = true;
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help") ||
			   !strcmp(o, "-?")) {
			fputs(top_help, out);
			a->help = true;
			return 0;
		} else {
			return usage_err(err, "unknown option '%s' (options "
					 "of a command go after it)", o);
		}
	}
	if (k == argc)
		return usage_err(err, "missing COMMAND%s", "");
	/* Sub-commands with their own argp parser get the rest of argv. */
	static const struct { const char *name; enum ctl_cmd cmd; } own[] = {
		{ "daemon", CTL_DAEMON }, { "notify", CTL_NOTIFY },
		{ "policy", CTL_POLICY }, { "snapshot", CTL_SNAPSHOT },
		{ "bugreport", CTL_BUGREPORT },
	};
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (strcmp(argv[k], own[i].name))
			continue;
		a->cmd = own[i].cmd;
		a->sub_argc = argc - k;
		a->sub_argv = argv + k;
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[k], cmds[i].name))
			d = &cmds[i];
	if (!d)
		return usage_err(err, "unknown command '%s'", argv[k]);
	a->cmd = d->cmd;

	memset(opts, 0, sizeof(opts));
	for (n = 0; n < 16 && d->opts[n]; n++)
		opts[n] = *d->opts[n];
	ap.options = opts;
	ap.parser = parse_opt;
	ap.args_doc = d->args_doc;
	ap.doc = d->doc;

	/* argp names the program after argv[0]: make it "gpreempt-ctl
	 * suspend" in usage and error lines. */
	sub = calloc(argc - k + 1, sizeof(*sub));
	if (!sub)
		return GP_EXIT_FAILURE;
	snprintf(name, sizeof(name), PROG " %s", d->name);
	sub[0] = name;
	for (r = 1; r < argc - k; r++)
		sub[r] = argv[k + r];
	r = argp_parse(&ap, argc - k, sub, ARGP_NO_EXIT | ARGP_NO_HELP |
		       ARGP_IN_ORDER, NULL, &c);
	free(sub);
	if (r)
		return GP_EXIT_USAGE;
	return 0;
}
