// SPDX-License-Identifier: GPL-2.0
/*
 * kfd-exerciser: drive the real KFD ioctls the way ROCr and ROCdbgapi do,
 * as a workload for gpreempt-trace and a target for gpreempt-ctl. The
 * command line is a list of steps run in order; every step prints one
 * JSON object per line on stdout so tests can assert with jq.
 *
 *   kfd-exerciser [-d DEV] [-n N] [-q] STEP [STEP...]
 *
 * Steps (NAME[:KEY=VAL,...]; see usage() for the full list and the JSON
 * every step prints): open, close, version, runtime-enable,
 * runtime-disable, create, destroy, sleep, ready, wait, seize, dbg,
 * poll-event, debug-target, events,
 * uconnect.
 *
 * ioctl failures are results, not errors: exit 0 when every step ran,
 * 1 when /dev/kfd could not be opened (after printing the open line with
 * its errno), 2 on bad usage (nothing was run). Compiled against the
 * KFD 1.17 UAPI header; an older kernel (6.1 = KFD 1.11) answers the
 * debug ioctls (nr 0x25, 0x26) with ENOTTY, reported like any other error.
 *
 * Files: parse.c (command line), steps.c (the simple steps), dbg.c (one
 * DBG_TRAP call), debug_target.c (the debugger scenario), uconn.c (a
 * Unix-socket client that stays), out.c (JSON
 * lines, the EINTR-retrying ioctl wrapper, signals).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: kfd-exerciser [-d DEV] [-n N] [-q] STEP [STEP...]\n"
"\n"
"Drive the real KFD ioctls (/dev/kfd) the way ROCr and ROCdbgapi do, one\n"
"step after the other, printing one JSON object per line on stdout.\n"
"\n"
"Options:\n"
"  -d, --device DEV   KFD device (default /dev/kfd)\n"
"  -n, --repeat N     run the whole step list N times (lines get \"iter\")\n"
"  -q, --quiet        no per-step lines; signal, open-failure and summary\n"
"                     lines are still printed\n"
"  -h, --help         this text\n"
"\n"
"Steps (NAME[:KEY=VAL,...]; numbers are decimal or 0x hex):\n"
"  open               open DEV (the first step that needs KFD does it too)\n"
"  close              close DEV (the KFD process lives on with the mm)\n"
"  version            GET_VERSION\n"
"  runtime-enable[:r_debug=X,mode=M]\n"
"                     RUNTIME_ENABLE, mode ENABLE (1) by default as ROCr\n"
"                     (3, ENABLE|TTMP_SAVE, is ROCr under HSA_ENABLE_DEBUG=1),\n"
"                     r_debug an address in this process; may block until a\n"
"                     debugger answers (ROCdbgapi attach handshake)\n"
"  runtime-disable    RUNTIME_ENABLE with mode_mask 0\n"
"  create[:gpu=ID,type=T,prio=P,pct=Q,ring=R,sdma=E]\n"
"                     CREATE_QUEUE with exactly these values (defaults gpu=0\n"
"                     type=aql prio=7 pct=100 ring=4096 sdma=0; T: compute,\n"
"                     sdma, aql, sdma-xgmi, sdma-eng or a number); ring, rptr\n"
"                     and wptr point into page-aligned malloc'd memory\n"
"  destroy[:qid=N]    DESTROY_QUEUE (default: last created queue, else 0)\n"
"  sleep:MS\n"
"  ready[:FILE]       print the ready line, then write our pid to FILE\n"
"                     (atomically), so tests never sleep-and-hope\n"
"  uconnect:PATH      connect to the Unix socket PATH, send \"status\", print\n"
"                     the reply's last line as \"reply\", keep the connection\n"
"                     open until exit (a client holding a daemon's slot)\n"
"  wait[:MS]          block until SIGTERM/SIGINT, EOF on a pipe stdin, or MS\n"
"                     ms; SIGTERM/SIGINT also end the step list (exit 0)\n"
"  seize:pid=P        PTRACE_SEIZE P (a tracer must issue DBG_TRAP itself)\n"
"  dbg:op=OP[,pid=P,qids=A+B+..,grace=N,mask=X,gpu=ID,qid=N,mode=M,n=N,fd=F]\n"
"                     one raw DBG_TRAP on P (default: ourselves). OP: enable,\n"
"                     disable, send-runtime, set-exceptions, launch-override,\n"
"                     launch-mode, suspend, resume, set-watch, clear-watch,\n"
"                     set-flags, query, exception-info, snapshot,\n"
"                     device-snapshot, or a number. Masks default to what\n"
"                     ROCdbgapi passes; enable's dbg_fd defaults to the write\n"
"                     end of our O_NONBLOCK event pipe (fd=F overrides)\n"
"  poll-event[:MS]    wait (default 1000 ms) for KFD's byte on that pipe\n"
"  events[:set=0|1,ms=MS]\n"
"                     CREATE_EVENT (signal), SET_EVENT (set=1, the default),\n"
"                     WAIT_EVENTS on it (timeout MS, default 0), DESTROY_EVENT\n"
"  debug-target[:qids=A+B,grace=N,order=after|before,eperm=0|1,hold=MS,\n"
"               timeout=MS,r_debug=X,dbgfd=pipe|eventfd]\n"
"                     the whole debugger scenario: fork a child that opens\n"
"                     DEV and calls RUNTIME_ENABLE, PTRACE_SEIZE it, DBG_TRAP\n"
"                     ENABLE (dbg_fd = pipe), SET_EXCEPTIONS_ENABLED,\n"
"                     GET_QUEUE_SNAPSHOT, SUSPEND(qids, grace), [hold],\n"
"                     RESUME(qids), DISABLE, then kill and reap the child.\n"
"                     order=before is ROCdbgapi's: ENABLE first, the child's\n"
"                     RUNTIME_ENABLE blocks until we poll the pipe, QUERY the\n"
"                     event and SEND_RUNTIME_EVENT(EC_PROCESS_RUNTIME).\n"
"                     eperm=1 first tries ENABLE before PTRACE_SEIZE.\n"
"                     dbgfd=eventfd shows why dbg_fd must be a pipe.\n"
"                     Defaults: qids=7+1234 grace=0 order=after timeout=5000\n"
"\n"
"Output: one JSON object per line. Every ioctl line has \"ret\" (the ioctl's\n"
"return value), \"errno\" (0 on success), \"err\" (errno name, only when\n"
"errno != 0) and \"duration_ns\"; ids, masks and addresses are \"0x..\"\n"
"strings, queue-id arrays are read back after the call. Examples:\n"
"  {\"step\":\"open\",\"path\":\"/dev/kfd\",\"ret\":3,\"errno\":0,\"duration_ns\":1200}\n"
"  {\"step\":\"version\",\"ret\":0,\"errno\":0,\"duration_ns\":800,\"major\":1,\"minor\":17}\n"
"  {\"step\":\"create\",\"ret\":-1,\"errno\":22,\"err\":\"EINVAL\",\"duration_ns\":9000,\n"
"   \"gpu_id\":\"0xdeadbeef\",\"type\":2,\"prio\":7,\"pct\":100,\"ring_size\":4096,\n"
"   \"sdma\":0,\"queue_id\":0,\"doorbell_offset\":\"0x0\",\"ring_base\":\"0x4c1000\"}\n"
"  {\"step\":\"dbg\",\"op\":\"suspend\",\"op_nr\":6,\"pid\":240,\"ret\":0,\"errno\":0,\n"
"   \"duration_ns\":70000,\"grace\":0,\"num_queues\":2,\n"
"   \"qids\":[\"0x80000007\",\"0x800004d2\"]}\n"
"  {\"step\":\"ready\",\"pid\":239}   {\"step\":\"signal\",\"sig\":10,\"name\":\"SIGUSR1\"}\n"
"  {\"step\":\"summary\",\"iterations\":1,\"steps\":2,\"ioctls\":1,\"errors\":0,\n"
"   \"ioctl_ns\":900,\"duration_ns\":50000,\"ops\":{\"version\":{\"n\":1,\n"
"   \"errors\":0,\"ns\":900,\"min_ns\":900,\"max_ns\":900}}}   (last line\n"
"   on exit 0; \"ops\": per-call totals: version, create, destroy, runtime-enable,\n"
"   runtime-disable, dbg-OP)\n"
"debug-target prints fork, target-open, target-runtime-enable (from the\n"
"child), [dbg enable (eperm)], seize, dbg enable, [poll-event, dbg query,\n"
"dbg send-runtime], dbg set-exceptions/snapshot/suspend/resume/disable,\n"
"target-exit and a debug-target line with \"errors\" (failed ioctls, the\n"
"eperm probe not counted). --repeat adds \"iter\":I to every line.\n"
"\n"
"Exit: 0 every step ran (ioctl failures are results), 1 DEV could not be\n"
"opened (the open line with errno is printed first), 2 bad usage.\n"
"Kernels: KFD 1.11 (6.1) answers RUNTIME_ENABLE and DBG_TRAP with ENOTTY;\n"
"7.x without a GPU node refuses open(/dev/kfd) with EINVAL.\n"
"\n"
"Examples:\n"
"  kfd-exerciser version\n"
"  kfd-exerciser create:gpu=0xdeadbeef,type=aql,prio=15 destroy:qid=3\n"
"  kfd-exerciser runtime-enable ready:/tmp/r wait:30000\n"
"  kfd-exerciser debug-target:order=before,qids=7+1234,eperm=1\n"
"  kfd-exerciser -q -n 10000 version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	unsigned long long repeat = 1, it;
	struct step *steps;
	int c, i, nsteps;
	uint64_t t0, v;
	struct jl j;

	while ((c = getopt_long(argc, argv, "+d:n:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			ex_kfd_path = optarg;
			break;
		case 'n':
			if (parse_num(optarg, UINT32_MAX, &v) || !v) {
				fprintf(stderr, "kfd-exerciser: bad --repeat "
					"'%s': want a count >= 1\n", optarg);
				return EX_USAGE;
			}
			repeat = v;
			break;
		case 'q':
			ex_quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			fprintf(stderr, "Try 'kfd-exerciser --help'.\n");
			return EX_USAGE;
		}
	}
	nsteps = argc - optind;
	if (nsteps <= 0) {
		fprintf(stderr, "kfd-exerciser: no step given; try "
			"'kfd-exerciser --help'.\n");
		return EX_USAGE;
	}
	steps = calloc(nsteps, sizeof(*steps));
	if (!steps)
		return EX_NO_KFD;
	/* Parse everything first: bad usage runs nothing. */
	for (i = 0; i < nsteps; i++)
		if (parse_step(argv[optind + i], &steps[i]))
			return EX_USAGE;

	sig_setup();
	t0 = now_ns();
	for (it = 0; it < repeat && !ex_stop; it++) {
		if (repeat > 1)
			ex_iter = it;
		for (i = 0; i < nsteps && !ex_stop; i++) {
			run_step(&steps[i]);
			sig_drain();
		}
	}
	ex_iter = -1;
	jl_begin(&j, "summary");
	jl_int(&j, "iterations", it);
	jl_int(&j, "steps", ex_stats.steps);
	jl_int(&j, "ioctls", ex_stats.ioctls);
	jl_int(&j, "errors", ex_stats.errors);
	jl_int(&j, "ioctl_ns", ex_stats.ioctl_ns);
	jl_int(&j, "duration_ns", now_ns() - t0);
	jl_ops(&j);
	jl_end(&j, true);
	free(steps);
	return EX_OK;
}

