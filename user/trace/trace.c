// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-trace: KFD queue lifecycle, eviction and debug-trap
 * suspend/resume, with a live PID -> queue map and latency histograms.
 * Arguments and wiring only: probes in bpf/, hook choice in attach.c,
 * formatting in output.c and hist.c, the queue table in queues.c.
 */
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gpreempt.h"
#include "attach.h"
#include "caps.h"
#include "exitcodes.h"
#include "hist.h"
#include "output.h"
#include "pftrace.h"
#include "pidfile.h"
#include "probe.h"
#include "queues.h"
#include "trace_metrics.h"
#include "util.h"

#define MAX_PIDS 64

static struct env {
	int pids[MAX_PIDS];
	int npids;
	uint64_t duration_ns;
	uint64_t interval_ns;
	bool timestamp;
	bool json;
	bool kprobes;
	bool reduced;
	bool check;
	bool verbose;
	bool no_pin;
	bool summary;
	bool all_dbg;
	enum gp_unit unit;
	const char *ready_file;
	const char *metrics;
	const char *perfetto;
} env = { .unit = GP_UNIT_USEC };

static volatile sig_atomic_t exiting;
static struct pft pf;	/* --perfetto: the trace, while pf.f is set */

const char *argp_program_version = "gpreempt-trace 0.1";
static const char doc[] =
"Trace AMD KFD GPU queues: create/destroy, eviction/restore, debug-trap\n"
"suspend/resume; keep a live PID -> queue map; print latency histograms.\n"
"\n"
"USAGE: gpreempt-trace [-p PID]... [-d DURATION] [-i INTERVAL] [-T] [-m|-u]\n"
"                      [-j] [-s] [--all-dbg] [-k | --reduced] [--check]\n"
"                      [--metrics ADDR] [--perfetto FILE] [-v]\n"
"\n"
"EXAMPLES:\n"
"    gpreempt-trace               # trace all KFD processes until Ctrl-C\n"
"    gpreempt-trace -p 1234 -p 99 # only these host pids (owner or target)\n"
"    gpreempt-trace -d 10s -m     # 10 seconds, histograms in ms\n"
"    gpreempt-trace -i 5s         # print the queue map every 5 seconds\n"
"    gpreempt-trace -s -i 10s     # summary: counts and histograms kept in\n"
"                                 # the kernel, printed every 10 s, no\n"
"                                 # per-event output (lowest overhead)\n"
"    gpreempt-trace -j            # NDJSON: events, map rows, histograms\n"
"    gpreempt-trace -k            # kprobes instead of fentry\n"
"    gpreempt-trace --reduced     # UAPI arguments only (no amdgpu BTF)\n"
"    gpreempt-trace --check       # what attaches on this kernel, and why\n"
"    gpreempt-trace -s --metrics 127.0.0.1:9465\n"
"                                 # Prometheus text at /metrics\n"
"    gpreempt-trace --perfetto kfd.pftrace  # a Perfetto timeline too\n"
"\n"
"Text mode prints debug-trap calls other than SUSPEND_QUEUES/RESUME_QUEUES\n"
"(the protocol around them) only with --all-dbg; -j prints every event.\n"
"\n"
"Exit: 0 ok, 2 bad usage, 3 not root/no CAP_BPF+CAP_PERFMON, 4 no /dev/kfd,\n"
"5 no BPF, 6 no KFD probe could attach, 1 other errors.\n";

enum {
	OPT_REDUCED = 0x100,
	OPT_CHECK,
	OPT_READY,
	OPT_NO_PIN,
	OPT_ALL_DBG,
	OPT_METRICS,
	OPT_PERFETTO,
};

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "Only this host pid (repeatable)", 0 },
	{ "duration", 'd', "DURATION", 0,
	  "Stop after DURATION (10, 500ms, 2m)", 0 },
	{ "interval", 'i', "INTERVAL", 0, "Print the queue map every INTERVAL",
	  0 },
	{ "timestamp", 'T', NULL, 0, "Include a time column", 0 },
	{ "milliseconds", 'm', NULL, 0, "Histograms in milliseconds", 0 },
	{ "microseconds", 'u', NULL, 0,
	  "Histograms in microseconds (default)", 0 },
	{ "json", 'j', NULL, 0, "NDJSON output (explicit units)", 0 },
	{ "summary", 's', NULL, 0, "No per-event output: per-op counts and "
	  "histograms aggregated in the kernel (at -i and on exit); the "
	  "default when stdout is /dev/null", 0 },
	{ "all-dbg", OPT_ALL_DBG, NULL, 0, "Text: print every debug-trap "
	  "call, not only SUSPEND_QUEUES/RESUME_QUEUES", 0 },
	{ "kprobes", 'k', NULL, 0, "Use kprobes, not fentry", 0 },
	{ "reduced", OPT_REDUCED, NULL, 0,
	  "Reduced mode: read only the ioctl arguments (no amdgpu BTF)", 0 },
	{ "check", OPT_CHECK, NULL, 0,
	  "Load and attach, report per hook, then exit", 0 },
	{ "ready-file", OPT_READY, "FILE", 0,
	  "Create FILE once every probe is attached", 0 },
	{ "no-pin", OPT_NO_PIN, NULL, 0,
	  "Do not pin the queue map and histograms under " GP_PIN_DIR, 0 },
	{ "metrics", OPT_METRICS, "ADDR", 0, "Serve Prometheus metrics at "
	  "http://ADDR/metrics (IP:PORT, [IPv6]:PORT; off by default)", 0 },
	{ "perfetto", OPT_PERFETTO, "FILE", 0, "Also write the events as a "
	  "Perfetto trace to FILE (docs/trace.md)", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		if (env.npids >= MAX_PIDS)
			argp_error(state, "at most %d -p", MAX_PIDS);
		if (parse_pid(arg, &env.pids[env.npids]))
			argp_error(state, "invalid PID: %s", arg);
		env.npids++;
		break;
	case 'd':
		if (parse_duration_ns(arg, &env.duration_ns) ||
		    !env.duration_ns)
			argp_error(state, "invalid duration: %s", arg);
		break;
	case 'i':
		if (parse_duration_ns(arg, &env.interval_ns) ||
		    !env.interval_ns)
			argp_error(state, "invalid interval: %s", arg);
		break;
	case 'T':
		env.timestamp = true;
		break;
	case 'm':
		env.unit = GP_UNIT_MSEC;
		break;
	case 'u':
		env.unit = GP_UNIT_USEC;
		break;
	case 'j':
		env.json = true;
		break;
	case 'k':
		env.kprobes = true;
		break;
	case 's':
		env.summary = true;
		break;
	case OPT_ALL_DBG:
		env.all_dbg = true;
		break;
	case OPT_REDUCED:
		env.reduced = true;
		break;
	case OPT_CHECK:
		env.check = true;
		break;
	case OPT_READY:
		env.ready_file = arg;
		break;
	case OPT_NO_PIN:
		env.no_pin = true;
		break;
	case OPT_METRICS: {
		struct sockaddr_storage ss;
		struct gp_err e;
		socklen_t len;

		if (mhttp_parse_addr(arg, &ss, &len, &e))
			argp_error(state, "%s", e.msg);
		env.metrics = arg;
		break;
	}
	case OPT_PERFETTO:
		env.perfetto = arg;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: %s", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	exiting = 1;
}

/* Root, or CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN) in the effective set. */
static bool privileged(void)
{
	if (geteuid() == 0)
		return true;
	return caps_have(CAP_SYS_ADMIN) ||
	       (caps_have(CAP_BPF) && caps_have(CAP_PERFMON));
}

static bool bpf_available(void)
{
	/* ENOSYS: no bpf(2) at all; EPERM here is a privilege problem. */
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gp_probe", 4, 4, 1,
				NULL);

	if (fd < 0)
		return errno != ENOSYS && errno != EINVAL;
	close(fd);
	return true;
}

static struct gp_out_opts out_opts(void)
{
	struct gp_out_opts o = {
		.json = env.json,
		.timestamp = env.timestamp,
		.unit = env.unit,
		.all_dbg = env.all_dbg,
	};

	return o;
}

static int on_event(void *ctx, const struct gp_event *e)
{
	struct gp_out_opts o = out_opts();

	if (gp_out_wanted(e, &o))
		gp_out_event(stdout, e, &o);
	if (pf.f)
		pft_event(&pf, e);
	return 0;
}

static void print_map(struct gp_probe *p)
{
	struct gp_out_opts o = out_opts();

	gp_queues_print(stdout, gp_probe_queues_fd(p), &o);
}

/* Summary mode's report: counts and histograms, all read from BPF maps. */
static void print_summary(struct gp_probe *p)
{
	struct gp_out_opts o = out_opts();
	struct gp_count c[GP_OP_MAX];

	if (!gp_probe_counts(p, c))
		gp_out_counts(stdout, c, &o);
	gp_hists_print_pids(stdout, gp_probe_hists_fd(p), &o, env.pids,
			    env.npids);
}

static void print_final(struct gp_probe *p)
{
	struct gp_out_opts o = out_opts();

	print_map(p);
	if (env.summary) {
		struct gp_count c[GP_OP_MAX];

		if (!gp_probe_counts(p, c))
			gp_out_counts(stdout, c, &o);
	}
	gp_hists_print_pids(stdout, gp_probe_hists_fd(p), &o, env.pids,
			    env.npids);
	gp_out_lost(stdout, gp_probe_lost(p), &o);
	gp_out_full(stdout, gp_probe_stat(p, GP_STAT_HIST_FULL),
		    gp_probe_stat(p, GP_STAT_QUEUES_FULL), &o);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct gp_probe_opts po = {};
	struct gp_probe_err perr;
	const struct gp_attach *a;
	struct gp_probe *p = NULL;
	struct tm_server tm = {};
	struct gp_err pe;
	uint64_t start, next_print;
	int err, ret = GP_EXIT_FAILURE;

	argp_err_exit_status = GP_EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return GP_EXIT_USAGE;
	if (env.kprobes && env.reduced) {
		fprintf(stderr, "gpreempt-trace: --reduced always uses kprobes;"
			" drop -k\n");
		return GP_EXIT_USAGE;
	}
	/*
	 * Events written to /dev/null are wanted by nobody (a service whose
	 * output is discarded, scraped through --metrics): keep only the
	 * in-kernel summary, the cheapest mode (docs/benchmarks-history.md, 7).
	 */
	if (env.perfetto && (env.summary || env.check)) {
		fprintf(stderr, "gpreempt-trace: --perfetto needs the events: "
			"drop %s\n", env.summary ? "-s" : "--check");
		return GP_EXIT_USAGE;
	}
	if (!env.summary && !env.check && !env.perfetto &&
	    gp_fd_is_null(STDOUT_FILENO)) {
		env.summary = true;
		fprintf(stderr, "gpreempt-trace: standard output is /dev/null: "
			"summary mode (-s), nothing per event\n");
	}
	if (!privileged()) {
		fprintf(stderr, "gpreempt-trace: needs root, or CAP_BPF and "
			"CAP_PERFMON (try sudo)\n");
		return GP_EXIT_PRIV;
	}
	if (access("/dev/kfd", F_OK)) {
		fprintf(stderr, "gpreempt-trace: no /dev/kfd: is the amdgpu "
			"module loaded? (modprobe amdgpu)\n");
		return GP_EXIT_NO_KFD;
	}
	if (!bpf_available()) {
		fprintf(stderr, "gpreempt-trace: this kernel cannot load BPF "
			"programs (CONFIG_BPF_SYSCALL?)\n");
		return GP_EXIT_NO_BPF;
	}
	libbpf_set_print(libbpf_print);
	/*
	 * Every way a terminal session or pipeline ends us exits through
	 * cleanup (links, pin): a closed terminal (SIGHUP), a reader that
	 * went away (SIGPIPE ignored: the write fails, the loop ends).
	 * SIGKILL cannot be caught: its pin is detected as stale instead.
	 */
	if (signal(SIGINT, on_signal) == SIG_ERR ||
	    signal(SIGTERM, on_signal) == SIG_ERR ||
	    signal(SIGHUP, on_signal) == SIG_ERR ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		fprintf(stderr, "gpreempt-trace: cannot set signal handlers\n");
		return GP_EXIT_FAILURE;
	}

	po.kprobes = env.kprobes;
	po.reduced = env.reduced;
	po.pids = env.pids;
	po.npids = env.npids;
	po.hist_unit_ns = gp_unit_ns(env.unit);
	po.emit = env.summary ? GP_EMIT_NONE : GP_EMIT_ALL;
	po.no_seed = env.check;
	po.pin_path = env.check || env.no_pin ? NULL : GP_PIN_QUEUES;
	po.on_event = env.check || env.summary ? NULL : on_event;
	ret = gp_probe_open(&po, &p, &perr);
	if (ret) {
		fprintf(stderr, "gpreempt-trace: %s\n", perr.msg);
		return ret;
	}
	a = gp_probe_attach_info(p);
	if (a->fentry_load_err)
		fprintf(stderr, "gpreempt-trace: loading with fentry failed "
			"(%s); using kprobes\n", strerror(-a->fentry_load_err));
	if (env.check) {
		gp_attach_report(a, stdout, env.json, true);
		ret = a->attached ? GP_EXIT_OK : GP_EXIT_NO_ATTACH;
		goto cleanup;
	}
	ret = GP_EXIT_FAILURE;
	if (!env.json)
		gp_attach_say_skipped(a, stderr);
	if (!a->attached) {
		gp_attach_report(a, stderr, false, true);
		fprintf(stderr, "gpreempt-trace: no KFD probe could attach "
			"(see above; --check explains)\n");
		ret = GP_EXIT_NO_ATTACH;
		goto cleanup;
	}
	if (perr.msg[0])
		fprintf(stderr, "gpreempt-trace: %s\n", perr.msg);
	if (a->reduced && !env.json)
		fprintf(stderr, "gpreempt-trace: reduced mode (%s): ioctl "
			"arguments only; no eviction, queue or suspend "
			"internals\n", a->reduced_forced ? "--reduced" :
			"amdgpu has no module BTF");
	if (!env.json)
		fprintf(stderr, "Tracing KFD queues (%d hooks, %s). Hit Ctrl-C"
			" to end.\n", a->attached, a->reduced ? "reduced" :
			env.kprobes ? "kprobes" : "fentry where possible");
	{
		struct gp_out_opts o = out_opts();

		if (!env.summary)
			gp_out_header(stdout, &o);
		fflush(stdout);
	}
	if (env.metrics) {
		struct gp_err e;

		if (tm_listen(&tm, env.metrics, p, gp_unit_ns(env.unit), &e)) {
			fprintf(stderr, "gpreempt-trace: %s\n", e.msg);
			ret = e.exit;
			goto cleanup;
		}
	}
	if (env.perfetto && pft_start(&pf, env.perfetto,
				      gp_probe_queues_fd(p), &pe)) {
		fprintf(stderr, "gpreempt-trace: %s\n", pe.msg);
		ret = pe.exit;
		goto cleanup;
	}
	if (env.ready_file && pidfile_write(env.ready_file))
		fprintf(stderr, "gpreempt-trace: cannot create %s: %s\n",
			env.ready_file, strerror(errno));

	start = monotonic_ns();
	next_print = start + env.interval_ns;
	while (!exiting) {
		uint64_t now;

		/* Batched events show within the 100 ms timeout. */
		err = env.metrics ? tm_wait(&tm, 100) : env.summary ?
		      poll(NULL, 0, 100) : gp_probe_poll(p, 100);
		if (err < 0 && env.summary && !env.metrics)
			err = errno == EINTR ? 0 : -errno;
		if (err < 0) {
			fprintf(stderr, "gpreempt-trace: polling the ring "
				"buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		fflush(stdout);
		now = monotonic_ns();
		if (env.interval_ns && now >= next_print) {
			print_map(p);
			if (env.summary)
				print_summary(p);
			fflush(stdout);
			next_print += env.interval_ns;
		}
		if (ferror(stdout)) {	/* EPIPE: nobody reads us any more */
			ret = GP_EXIT_OK;
			goto cleanup;
		}
		if (env.duration_ns && now - start >= env.duration_ns)
			break;
	}
	if (!env.summary)
		gp_probe_poll(p, 0);
	print_final(p);
	ret = GP_EXIT_OK;

cleanup:
	/* every way out ends the timeline's open slices and closes it */
	if (pf.f && pft_finish(&pf, env.perfetto, &pe)) {
		fprintf(stderr, "gpreempt-trace: %s\n", pe.msg);
		ret = ret ? ret : pe.exit;
	}
	tm_close(&tm);
	gp_probe_close(p);
	return ret;
}
