// SPDX-License-Identifier: GPL-2.0
/* The arbiter's daemon options (arbiter.h), an argp child of daemon's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter.h"
#include "args.h"
#include "util.h"

enum {
	OPT_ONLINE = 0x200, OPT_OFFLINE, OPT_DETECT, OPT_RESUME_AFTER,
	OPT_SHARE, OPT_WINDOW, OPT_POLL, OPT_LAUNCH_GRACE,
	OPT_SCOPE, OPT_GANG, OPT_KFD_PROC, OPT_SPOOFABLE, OPT_BUSY_MAX,
	OPT_PROC_ROOT,
};

static const struct argp_option arb_options[] = {
	{ "online", OPT_ONLINE, "SEL", 0,
	  "Online (latency-critical) processes: pid=N, comm=NAME, "
	  "cmdline=SUBSTRING, cgroup=PATH or uid=N, conditions joined by "
	  "commas all holding (uid=1001,cmdline=serve.py); comm and cmdline "
	  "only with uid, cgroup or pid; repeatable", 1 },
	{ "offline", OPT_OFFLINE, "SEL", 0,
	  "Offline (best-effort) processes, suspended while online is "
	  "busy; same selectors; repeatable", 1 },
	{ "detect", OPT_DETECT, "LIST", 0,
	  "Online work signals, comma-separated: notify (busy/idle on the "
	  "socket; default), queues (AQL queue counters of online processes "
	  "given by 'watch' requests, polled every --poll), launch (uprobes "
	  "on the launch calls of the GPU runtime library (libamdhip64 or "
	  "libcuda) each online process maps; "
	  "no change to the application)", 1 },
	{ "launch-grace", OPT_LAUNCH_GRACE, "DURATION", 0,
	  "--detect launch: online stays busy this long after its last "
	  "launch unless a sync call returns first (default 50ms)", 1 },
	{ "resume-after", OPT_RESUME_AFTER, "DURATION", 0,
	  "Resume offline once online is idle this long (default 2ms)", 1 },
	{ "min-offline-share", OPT_SHARE, "PCT", 0,
	  "Give offline at least PCT% of every --window even while online "
	  "is busy (default 0)", 1 },
	{ "window", OPT_WINDOW, "DURATION", 0,
	  "The --min-offline-share window (default 1s)", 1 },
	{ "scope", OPT_SCOPE, "gpu|node", 0,
	  "gpu (default): one policy per GPU (gpu_id); busy on a GPU "
	  "suspends only the offline queues there. node: one policy for "
	  "the node, every offline queue (the single-GPU behaviour)", 1 },
	{ "gang", OPT_GANG, "cgroup|pgid|none", 0,
	  "Offline processes suspended and resumed as one job: by cgroup "
	  "(default: a container, a systemd unit, a Slurm step), by process "
	  "group, or none (each process alone)", 1 },
	{ "kfd-proc", OPT_KFD_PROC, "DIR", 0,
	  "A STAND-IN for /sys/class/kfd/kfd/proc (PID/queues/QID/{gpuid,"
	  "type,size}), for tests on machines without a GPU", 1 },
	{ "proc-root", OPT_PROC_ROOT, "DIR", OPTION_HIDDEN,
	  "A STAND-IN for /proc where new KFD processes are described, for "
	  "tests of a /proc read that never returns", 1 },
	{ "busy-max", OPT_BUSY_MAX, "DURATION", 0,
	  "A busy neither renewed (busy again) nor confirmed by queue "
	  "activity ends after this long (default 60s; 0: never)", 1 },
	{ "allow-spoofable", OPT_SPOOFABLE, NULL, 0,
	  "Accept an --online or --offline selector of comm/cmdline only "
	  "(any local user could then make a process online, any offline "
	  "job leave offline by renaming itself; warned, and 'policy' says "
	  "spoofable)", 1 },
	{ "poll", OPT_POLL, "DURATION", 0,
	  "Queue polling period for --detect queues (default 200us)", 1 },
	{ 0 },
};

void arbiter_opts_default(struct arbiter_opts *o)
{
	memset(o, 0, sizeof(*o));
	gp_policy_cfg_default(&o->pol);
	o->detect_notify = true;
	o->scope = GP_SCOPE_GPU;
	o->gang = GP_GANG_CGROUP;
	o->poll_ns = 200 * NSEC_PER_USEC;
	o->launch_grace_ns = 50 * NSEC_PER_MSEC;
}

static int detect(struct argp_state *state, struct arbiter_opts *o,
		  const char *arg)
{
	char buf[64], *w, *save = NULL;

	o->detect_notify = o->detect_queues = o->detect_launch = false;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (!strcmp(w, "notify")) {
			o->detect_notify = true;
		} else if (!strcmp(w, "queues")) {
			/* Queues are fed by 'watch' requests for now; the
			 * tracer's create-time capture is the next feed. */
			o->detect_queues = true;
		} else if (!strcmp(w, "launch")) {
			o->detect_launch = true;
		} else {
			argp_error(state, "--detect: unknown signal '%s' (use "
				   "notify, queues, launch or a list such as "
				   "launch,queues)", w);
			return EINVAL;
		}
	if (!o->detect_notify && !o->detect_queues && !o->detect_launch) {
		argp_error(state, "--detect: give at least one signal");
		return EINVAL;
	}
	return 0;
}

/*
 * A selector made only of what the process chooses itself (comm, argv)
 * is refused without --allow-spoofable: online, any local user could
 * claim it; offline, a job leaves it by renaming itself (issue 24).
 */
static int spoofable_refused(struct argp_state *state,
			     const struct arbiter_opts *o, enum gp_pclass cls)
{
	const struct gp_sel *sp = gp_classifier_spoofable(&o->cls, cls);

	if (!sp || o->allow_spoofable)
		return 0;
	argp_error(state, "--%s %s: comm and cmdline are the process's own "
		   "to choose, so %s; add a condition it does not control "
		   "(uid=N,%s or cgroup=PATH,%s), or give --allow-spoofable",
		   gp_pclass_name(cls), sp->spec, cls == GP_CLASS_ONLINE ?
		   "any local user could become online" :
		   "an offline job could leave offline by renaming itself",
		   sp->spec, sp->spec);
	return EINVAL;
}

static error_t arb_opt(int key, char *arg, struct argp_state *state)
{
	struct arbiter_opts *o = state->input;
	char err[512];
	uint32_t pct;

	switch (key) {
	case ARGP_KEY_INIT:
		arbiter_opts_default(o);
		return 0;
	case OPT_ONLINE:
	case OPT_OFFLINE:
		if (gp_classifier_add(&o->cls, key == OPT_ONLINE ?
				      GP_CLASS_ONLINE : GP_CLASS_OFFLINE, arg,
				      err, sizeof(err))) {
			argp_error(state, "--%s: %s", key == OPT_ONLINE ?
				   "online" : "offline", err);
			return EINVAL;
		}
		break;
	case OPT_DETECT:
		if (detect(state, o, arg))
			return EINVAL;
		break;
	case OPT_LAUNCH_GRACE:
		if (gp_args_duration(state, "launch-grace", arg,
				     &o->launch_grace_ns, false))
			return EINVAL;
		break;
	case OPT_RESUME_AFTER:
		if (gp_args_duration(state, "resume-after", arg,
				     &o->pol.resume_after_ns, true))
			return EINVAL;
		break;
	case OPT_SHARE:
		if (parse_u32(arg, &pct) || pct > 100) {
			argp_error(state, "--min-offline-share: '%s' is not a "
				   "percentage 0..100", arg);
			return EINVAL;
		}
		o->pol.min_offline_share = pct;
		break;
	case OPT_WINDOW:
		if (gp_args_duration(state, "window", arg, &o->pol.window_ns,
				     false))
			return EINVAL;
		break;
	case OPT_SCOPE:
		if (gp_scope_parse(arg, &o->scope)) {
			argp_error(state, "--scope: '%s' is not gpu or node",
				   arg);
			return EINVAL;
		}
		break;
	case OPT_GANG:
		if (gp_gang_parse(arg, &o->gang)) {
			argp_error(state, "--gang: '%s' is not cgroup, pgid or "
				   "none", arg);
			return EINVAL;
		}
		break;
	case OPT_KFD_PROC:
		o->kfd_proc_dir = arg;
		break;
	case OPT_PROC_ROOT:
		o->proc_root = arg;
		break;
	case OPT_POLL:
		if (gp_args_duration(state, "poll", arg, &o->poll_ns, false))
			return EINVAL;
		break;
	case OPT_BUSY_MAX:
		if (gp_args_duration(state, "busy-max", arg,
				     &o->pol.busy_max_ns, true))
			return EINVAL;
		break;
	case OPT_SPOOFABLE:
		o->allow_spoofable = true;
		return 0;
	case ARGP_KEY_END:
		if (spoofable_refused(state, o, GP_CLASS_ONLINE) ||
		    spoofable_refused(state, o, GP_CLASS_OFFLINE))
			return EINVAL;
		if (o->enabled && gp_policy_cfg_check(&o->pol, err,
						      sizeof(err))) {
			argp_error(state, "%s", err);
			return EINVAL;
		}
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	o->enabled = true;
	return 0;
}

/* After the daemon's own text (argp prints children's docs last). */
static const char arb_doc[] =
"\vArbitration: online processes take the GPU from offline ones while "
"they have work (busy/idle on the socket, or their AQL queues with "
"--detect queues); offline resumes once online has been idle "
"--resume-after. Verbs: busy|idle [pid=N] [scope=conn|pid], classify "
"pid=N class=online|offline|none, watch pid=N queue=ID wptr=0x.. "
"rptr=0x.., policy (user/policy/arb_proto.h).\n"
"    gpreempt-ctl daemon --group gpreempt --online uid=1001,cmdline=serve.py \\\n"
"        --offline uid=1002,cmdline=train.py --min-offline-share 20\n"
"    gpreempt-ctl notify busy --pid 4242; gpreempt-ctl policy\n";

const struct argp arbiter_argp = {
	.options = arb_options,
	.parser = arb_opt,
	.doc = arb_doc,
};
