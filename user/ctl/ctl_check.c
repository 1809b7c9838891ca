// SPDX-License-Identifier: GPL-2.0
/* `gpreempt-ctl check`: what this kernel and this user allow, and why. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "ctl_cmd.h"
#include "cuda_api.h"
#include "exitcodes.h"
#include "json.h"
#include "procfs.h"
#include "topo.h"


struct check_ctx {
	struct ctl_out o;
	int exit;		/* first blocking problem's exit code */
	const char *reason;
};

/*
 * One line of the report. exit != 0 marks a blocking problem; the first
 * one decides the command's exit code.
 */
static void item(struct check_ctx *c, const char *name, const char *value,
		 int exit, const char *detail)
{
	struct json j;

	if (exit && !c->exit) {
		c->exit = exit;
		c->reason = name;
	}
	if (c->o.json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "check");
		json_str(&j, "item", name);
		json_str(&j, "value", value);
		json_bool(&j, "ok", !exit);
		json_str(&j, "detail", detail);
		json_end(&j);
		return;
	}
	printf("%-14s %-4s %s%s%s\n", name, exit ? "NO" : "ok", value,
	       *detail ? ": " : "", detail);
}

/* Per GPU node: does its firmware support debugging (KFD topology)? */
static void check_gpus(struct check_ctx *c)
{
	char val[320], det[256];
	struct gp_topo_node *nodes;
	int gpus = 0, nodbg = 0, n, i;

	n = gp_topo_read(NULL, &nodes);
	if (n < 0) {
		item(c, "gpus", "unknown", 0,
		     "no " KFD_SYSFS_NODES " (KFD not loaded)");
		return;
	}
	for (i = 0; i < n; i++) {
		if (!nodes[i].simd_count)
			continue;	/* a CPU node */
		gpus++;
		snprintf(val, sizeof(val), "node %u gpu_id 0x%x",
			 nodes[i].node, nodes[i].gpu_id);
		if (nodes[i].debug_fw) {
			item(c, "debug_fw", val, 0,
			     "firmware supports debugging");
		} else {
			nodbg++;
			item(c, "debug_fw", val, 0,
			     "firmware lacks debug support: ROCr will not "
			     "enable its runtime for debugging, so suspend "
			     "gets EPERM for processes on this GPU");
		}
	}
	free(nodes);
	snprintf(val, sizeof(val), "%d", gpus);
	snprintf(det, sizeof(det), "%s",
		 gpus ? (nodbg ? "some GPUs lack debug firmware" : "")
		      : "no GPU node in the KFD topology: there are no "
			"queues to suspend on this machine");
	item(c, "gpus", val, 0, det);
}

/*
 * The CUDA backend (docs/cuda.md): libcuda.so.1 with the checkpoint API.
 * Not a blocking item: a machine without NVIDIA's driver is KFD's. true
 * when present.
 */
static bool check_cuda(struct check_ctx *c)
{
	struct gp_cuda_api api;
	struct gp_err e = {};
	char val[64];

	if (gp_cuda_load(&api, &e)) {
		item(c, "cuda", "absent", 0, e.msg);
		return false;
	}
	snprintf(val, sizeof(val), "libcuda.so.1, driver API %d",
		 api.version);
	item(c, "cuda", val, 0, "checkpoint lock present: CUDA processes are "
	     "suspended at kernel boundaries (kernels in flight finish)");
	gp_cuda_unload(&api);
	return true;
}

int ctl_cmd_check(const struct ctl_args *a)
{
	struct check_ctx c = { .o = ctl_out_of(a) };
	char val[96], det[320];
	struct kfd k = { .fd = -1 };
	const char *cause, *remedy;
	struct stat st;
	long scope = 0;
	int r, policy;
	bool ptrace_cap, admin;
	struct json j;

	/* /dev/kfd and its version */
	if (stat(KFD_DEV_PATH, &st)) {
		item(&c, "kfd_device", "absent", GP_EXIT_NO_KFD,
		     "no " KFD_DEV_PATH ": the amdgpu module is not loaded "
		     "(modprobe amdgpu) or the kernel lacks CONFIG_HSA_AMD");
	} else {
		item(&c, "kfd_device", KFD_DEV_PATH, 0, "");
		r = kfd_open(&k);
		if (r < 0) {
			int ex = kfd_explain(KFD_CALL_OPEN, -r, &cause,
					     &remedy);

			snprintf(val, sizeof(val), "open: %s",
				 strerrorname_np(-r) ? strerrorname_np(-r)
						     : "error");
			snprintf(det, sizeof(det), "%s%s%s", cause,
				 *remedy ? "; " : "", remedy);
			item(&c, "kfd_open", val, ex, det);
		} else {
			item(&c, "kfd_open", "ok", 0, "");
			snprintf(val, sizeof(val), "%u.%u", k.major, k.minor);
			if (kfd_version_check(k.major, k.minor))
				item(&c, "kfd_version", val,
				     GP_EXIT_NO_DEBUG_API,
				     "this kernel's KFD has no debug-trap API "
				     "(needs KFD 1.13, Linux 6.5 or later): "
				     "no suspend/resume");
			else
				item(&c, "kfd_version", val, 0,
				     "debug-trap API present (>= 1.13)");
			kfd_close(&k);
		}
	}

	/* sched_policy */
	policy = kfd_sched_policy();
	if (policy < 0) {
		item(&c, "sched_policy", "unknown", 0,
		     "cannot read " KFD_SCHED_POLICY_PATH);
	} else {
		snprintf(val, sizeof(val), "%d", policy);
		if (policy == KFD_SCHED_POLICY_NO_HWS)
			item(&c, "sched_policy", val, GP_EXIT_NO_DEBUG_API,
			     "no hardware scheduler: KFD refuses every "
			     "debug-trap op; boot with amdgpu.sched_policy=0");
		else
			item(&c, "sched_policy", val, 0,
			     policy == 0 ? "HWS" :
			     "HWS without oversubscription");
	}

	/* ptrace */
	ptrace_cap = caps_have(CAP_SYS_PTRACE);
	admin = caps_have(CAP_SYS_ADMIN);
	snprintf(val, sizeof(val), "euid %d, CAP_SYS_PTRACE %s, "
		 "CAP_SYS_ADMIN %s", (int)geteuid(), ptrace_cap ? "yes" : "no",
		 admin ? "yes" : "no");
	item(&c, "capabilities", val, ptrace_cap ? 0 : GP_EXIT_PRIV,
	     ptrace_cap ? "" : "suspend/resume need CAP_SYS_PTRACE (root) "
	     "and read-write access to " KFD_DEV_PATH);
	scope = procfs_yama_scope();
	if (scope < 0) {
		item(&c, "ptrace_scope", "no yama", 0,
		     "classic ptrace rules");
	} else {
		snprintf(val, sizeof(val), "%ld", scope);
		if (scope >= 3)
			item(&c, "ptrace_scope", val, GP_EXIT_PRIV,
			     "yama forbids every ptrace attach until reboot");
		else
			item(&c, "ptrace_scope", val, 0,
			     scope == 2 ? "attach needs CAP_SYS_PTRACE" :
			     "attach allowed with CAP_SYS_PTRACE");
	}
	check_gpus(&c);
	/* NVIDIA: the KFD items do not block the CUDA backend */
	if (check_cuda(&c) && c.exit) {
		if (!c.o.json)
			printf("kfd: %s (AMD GPUs only)\n", c.reason);
		c.exit = 0;
		c.reason = "cuda";
	}

	if (c.o.json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "verdict");
		json_bool(&j, "ok", !c.exit);
		json_s64(&j, "exit", c.exit);
		json_str(&j, "reason", c.reason ? c.reason : "");
		json_end(&j);
	} else if (c.exit) {
		printf("verdict: suspend/resume cannot work here (%s)\n",
		       c.reason);
	} else if (c.reason && !strcmp(c.reason, "cuda")) {
		printf("verdict: suspend/resume of CUDA processes can work here "
		       "(the CUDA backend; not of KFD processes)\n");
	} else {
		printf("verdict: suspend/resume can work here\n");
	}
	return c.exit;
}
