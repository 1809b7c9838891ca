// SPDX-License-Identifier: GPL-2.0
/* The KFD ioctl layer: typed DBG_TRAP wrappers and errno explanations. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "exitcodes.h"
#include "kfd.h"
#include "util.h"

const char *kfd_call_name(enum kfd_call call)
{
	switch (call) {
	case KFD_CALL_ENABLE: return "enable";
	case KFD_CALL_DISABLE: return "disable";
	case KFD_CALL_SEND_RUNTIME_EVENT: return "send_runtime_event";
	case KFD_CALL_SET_EXCEPTIONS: return "set_exceptions_enabled";
	case KFD_CALL_SUSPEND: return "suspend";
	case KFD_CALL_RESUME: return "resume";
	case KFD_CALL_QUERY_EVENT: return "query_debug_event";
	case KFD_CALL_QUERY_EXCEPTION: return "query_exception_info";
	case KFD_CALL_SNAPSHOT: return "queue_snapshot";
	case KFD_CALL_OPEN: return "open";
	case KFD_CALL_VERSION: return "get_version";
	case KFD_CALL_PTRACE: return "ptrace_seize";
	}
	return "?";
}

/* One row per (call, errno); call -1 matches any DBG_TRAP op. */
struct explain {
	int call;
	int err;
	int exit;
	const char *cause;
	const char *remedy;
};

#define ANY_DBG (-1)

static const struct explain explain_tab[] = {
	{ KFD_CALL_OPEN, ENOENT, GP_EXIT_NO_KFD,
	  "no " KFD_DEV_PATH ": the amdgpu module is not loaded or this "
	  "kernel has no KFD (CONFIG_HSA_AMD)",
	  "load it with 'modprobe amdgpu' on a machine with an AMD GPU" },
	{ KFD_CALL_OPEN, ENODEV, GP_EXIT_NO_KFD,
	  "KFD is not initialised (no supported GPU)",
	  "check 'dmesg | grep kfd'" },
	{ KFD_CALL_OPEN, EINVAL, GP_EXIT_NO_KFD,
	  "KFD refuses to create a process: its topology has no GPU node "
	  "(Linux 7.x refuses processes without a GPU)",
	  "run on a machine whose amdgpu driver bound a GPU" },
	{ KFD_CALL_OPEN, EACCES, GP_EXIT_PRIV,
	  "no permission to open " KFD_DEV_PATH,
	  "run as root (gpreempt-ctl also needs CAP_SYS_PTRACE)" },
	{ KFD_CALL_OPEN, EPERM, GP_EXIT_PRIV,
	  "no permission to open " KFD_DEV_PATH,
	  "run as root (gpreempt-ctl also needs CAP_SYS_PTRACE)" },
	/* session.c tells the four causes apart (kfd_ptrace_denied) */
	{ KFD_CALL_PTRACE, EPERM, GP_EXIT_TARGET,
	  "the kernel refused to ptrace the target: it is already traced, "
	  "Yama's ptrace_scope forbids it, it is not dumpable in a user "
	  "namespace where gpreempt-ctl lacks CAP_SYS_PTRACE, an LSM "
	  "refused it, or gpreempt-ctl lacks CAP_SYS_PTRACE",
	  "check TracerPid in /proc/PID/status, "
	  "/proc/sys/kernel/yama/ptrace_scope and the audit log" },
	{ KFD_CALL_PTRACE, ESRCH, GP_EXIT_TARGET,
	  "the target has exited", "" },
	{ KFD_CALL_ENABLE, EPERM, GP_EXIT_TARGET,
	  "KFD says the target is not ptraced by the calling thread",
	  "this is a gpreempt bug if PTRACE_SEIZE succeeded; report it" },
	{ KFD_CALL_ENABLE, EINVAL, GP_EXIT_NO_DEBUG_API,
	  "KFD refuses debugging: amdgpu.sched_policy=2 (no hardware "
	  "scheduler) does not support the debug-trap API",
	  "boot without amdgpu.sched_policy=2 (0, the default, or 1)" },
	{ KFD_CALL_ENABLE, EALREADY, GP_EXIT_BUSY,
	  "another debugger (rocgdb, or another gpreempt-ctl) already has "
	  "debug enabled on the target; KFD allows one per process",
	  "stop that debugger, or send requests to the gpreempt-ctl daemon "
	  "that holds it" },
	{ KFD_CALL_ENABLE, EBUSY, GP_EXIT_BUSY,
	  "the GPU is already debugging another process (GPUs without "
	  "per-VMID debug, i.e. before gfx9.4.2 and gfx11, allow one "
	  "debugged process per device), or GWS is in use",
	  "stop the other debugger (rocgdb or gpreempt-ctl) on that GPU" },
	{ KFD_CALL_ENABLE, ENODEV, GP_EXIT_NO_DEBUG_API,
	  "a GPU of the target does not support debugging (not SOC15)",
	  "" },
	{ ANY_DBG, EPERM, GP_EXIT_TARGET,
	  "the target's runtime never enabled debug support "
	  "(RUNTIME_ENABLE: ROCr skips it when KFD < 1.13 or the GPU "
	  "firmware lacks debug support), or the target is not ptraced by "
	  "the calling thread",
	  "suspend only processes started with a ROCm runtime on a GPU "
	  "whose firmware supports debugging (see 'gpreempt-ctl check')" },
	{ ANY_DBG, EACCES, GP_EXIT_TARGET,
	  "the target's runtime never enabled debug support "
	  "(RUNTIME_ENABLE)",
	  "suspend only processes started with a ROCm runtime" },
	{ ANY_DBG, EINVAL, GP_EXIT_NO_DEBUG_API,
	  "KFD refused the debug op: amdgpu.sched_policy=2 (no hardware "
	  "scheduler), or debug is not enabled on the target",
	  "boot without amdgpu.sched_policy=2; if it is not set, report "
	  "this as a gpreempt bug" },
	{ ANY_DBG, EALREADY, GP_EXIT_BUSY,
	  "another debugger already holds the target", "" },
	{ ANY_DBG, EBUSY, GP_EXIT_BUSY,
	  "the GPU or the target is busy with another debugger", "" },
	{ ANY_DBG, ESRCH, GP_EXIT_TARGET,
	  "the target has exited (or has no KFD process)", "" },
	{ ANY_DBG, ENODEV, GP_EXIT_NO_DEBUG_API,
	  "a GPU of the target does not support this debug operation", "" },
	{ ANY_DBG, ENOTTY, GP_EXIT_NO_DEBUG_API,
	  "this kernel's KFD has no debug-trap API (needs KFD 1.13, "
	  "Linux 6.5 or later)", "use a newer kernel" },
	{ ANY_DBG, ETIME, GP_EXIT_FAILURE,
	  "the GPU scheduler (HWS or MES) did not confirm the preemption in "
	  "time; KFD may reset the GPU",
	  "check 'dmesg | grep -i amdgpu'; amdgpu.queue_preemption_timeout_ms "
	  "bounds the wait" },
	{ ANY_DBG, EIO, GP_EXIT_FAILURE,
	  "the GPU failed the operation (hardware or firmware error)",
	  "check 'dmesg | grep -i amdgpu'" },
	{ ANY_DBG, ENOMEM, GP_EXIT_FAILURE,
	  "the kernel ran out of memory", "" },
	{ ANY_DBG, EFAULT, GP_EXIT_FAILURE,
	  "KFD could not read or write gpreempt's buffers",
	  "this is a gpreempt bug; report it" },
	{ KFD_CALL_VERSION, ENOTTY, GP_EXIT_NO_KFD,
	  KFD_DEV_PATH " does not answer GET_VERSION", "" },
};

static bool is_dbg_call(int call)
{
	return call >= 0 && call < KFD_CALL_OPEN;
}

int kfd_explain(enum kfd_call call, int err, const char **cause,
		const char **remedy)
{
	size_t i;

	for (i = 0; i < sizeof(explain_tab) / sizeof(explain_tab[0]); i++) {
		const struct explain *x = &explain_tab[i];

		if (x->err != err)
			continue;
		if (x->call != (int)call &&
		    !(x->call == ANY_DBG && is_dbg_call(call)))
			continue;
		*cause = x->cause;
		*remedy = x->remedy;
		return x->exit;
	}
	*cause = "unexpected error";
	*remedy = "";
	if (call == KFD_CALL_OPEN || call == KFD_CALL_VERSION)
		return GP_EXIT_NO_KFD;
	return GP_EXIT_FAILURE;
}

void kfd_err(struct gp_err *e, enum kfd_call call, pid_t pid, int err)
{
	const char *cause, *remedy;
	int exit = kfd_explain(call, err, &cause, &remedy);

	if (pid > 0)
		gp_err_set(e, exit, err, "%s on pid %d failed: %s: %s%s%s",
			   kfd_call_name(call), (int)pid, strerror(err), cause,
			   *remedy ? "; " : "", remedy);
	else
		gp_err_set(e, exit, err, "%s failed: %s: %s%s%s",
			   kfd_call_name(call), strerror(err), cause,
			   *remedy ? "; " : "", remedy);
}

void kfd_ptrace_denied(struct gp_err *e, pid_t pid, bool has_cap,
		       pid_t tracer, long yama_scope)
{
	if (!has_cap)
		gp_err_set(e, GP_EXIT_PRIV, EPERM, "ptrace_seize on pid %d "
			   "failed: gpreempt-ctl lacks CAP_SYS_PTRACE; run it "
			   "as root", (int)pid);
	else if (tracer > 0)
		gp_err_set(e, GP_EXIT_BUSY, EPERM, "ptrace_seize on pid %d "
			   "failed: it is traced by pid %d already (a debugger "
			   "or strace); one tracer per process: stop it first",
			   (int)pid, (int)tracer);
	else if (yama_scope >= 3)
		gp_err_set(e, GP_EXIT_TARGET, EPERM, "ptrace_seize on pid %d "
			   "failed although gpreempt-ctl has CAP_SYS_PTRACE: "
			   "Yama's ptrace_scope is 3, which forbids every "
			   "attach until reboot", (int)pid);
	else
		gp_err_set(e, GP_EXIT_TARGET, EPERM, "ptrace_seize on pid %d "
			   "failed although gpreempt-ctl has CAP_SYS_PTRACE: "
			   "the target is not dumpable in a user namespace "
			   "where that capability does not reach (a "
			   "container's process: run gpreempt there), or an "
			   "LSM (SELinux, AppArmor) refused it: see the audit "
			   "log", (int)pid);
}

int kfd_version_check(uint32_t major, uint32_t minor)
{
	if (major == KFD_DEBUG_MAJOR && minor >= KFD_DEBUG_MINOR_MIN)
		return GP_EXIT_OK;
	/* A future major version may change the ABI: refuse, as
	 * ROCdbgapi does ([1.13, 2.0)). */
	return GP_EXIT_NO_DEBUG_API;
}

static int sys_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg);
}

int (*kfd_ioctl_fn)(int fd, unsigned long req, void *arg) = sys_ioctl;

static int timed_ioctl(struct kfd *k, unsigned long req, void *arg)
{
	uint64_t t0 = monotonic_ns();
	int r;

	do {
		r = kfd_ioctl_fn(k->fd, req, arg);
	} while (r < 0 && errno == EINTR);
	k->last_ns = monotonic_ns() - t0;
	return r < 0 ? -errno : r;
}

int kfd_get_version(struct kfd *k, uint32_t *major, uint32_t *minor)
{
	struct kfd_ioctl_get_version_args a = {};
	int r = timed_ioctl(k, AMDKFD_IOC_GET_VERSION, &a);

	if (r < 0)
		return r;
	*major = a.major_version;
	*minor = a.minor_version;
	return 0;
}

int kfd_open(struct kfd *k)
{
	int r;

	memset(k, 0, sizeof(*k));
	k->fd = open(KFD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	r = kfd_get_version(k, &k->major, &k->minor);
	if (r < 0) {
		close(k->fd);
		k->fd = -1;
	}
	return r;
}

void kfd_close(struct kfd *k)
{
	if (k && k->fd >= 0) {
		close(k->fd);
		k->fd = -1;
	}
}

int kfd_sched_policy(void)
{
	char buf[32];
	ssize_t n;
	int fd = open(KFD_SCHED_POLICY_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return atoi(buf);
}

int kfd_open_debug(struct kfd *k, struct gp_err *e)
{
	int r = kfd_open(k);

	if (r < 0) {
		kfd_err(e, KFD_CALL_OPEN, 0, -r);
		return -1;
	}
	if (kfd_version_check(k->major, k->minor)) {
		gp_err_set(e, GP_EXIT_NO_DEBUG_API, 0,
			   "this kernel's KFD (ioctl version %u.%u) has no "
			   "debug-trap API: suspend/resume needs KFD %d.%d "
			   "(Linux 6.5) or later; 'gpreempt-ctl check' "
			   "explains", k->major, k->minor, KFD_DEBUG_MAJOR,
			   KFD_DEBUG_MINOR_MIN);
		kfd_close(k);
		return -1;
	}
	if (kfd_sched_policy() == KFD_SCHED_POLICY_NO_HWS) {
		gp_err_set(e, GP_EXIT_NO_DEBUG_API, 0,
			   "amdgpu.sched_policy=2 (no hardware scheduler): "
			   "KFD refuses every debug-trap op; boot with "
			   "sched_policy 0 (the default) or 1");
		kfd_close(k);
		return -1;
	}
	return 0;
}

static int dbg_trap(struct kfd *k, pid_t pid, uint32_t op,
		    struct kfd_ioctl_dbg_trap_args *a)
{
	a->pid = pid;
	a->op = op;
	return timed_ioctl(k, AMDKFD_IOC_DBG_TRAP, a);
}

int kfd_dbg_enable(struct kfd *k, pid_t pid, int dbg_fd, uint64_t mask,
		   struct kfd_runtime_info *rinfo)
{
	struct kfd_ioctl_dbg_trap_args a = {};
	struct kfd_runtime_info tmp;

	if (!rinfo)
		rinfo = &tmp;
	memset(rinfo, 0, sizeof(*rinfo));
	a.enable.exception_mask = mask;
	a.enable.rinfo_ptr = (uintptr_t)rinfo;
	a.enable.rinfo_size = sizeof(*rinfo);
	a.enable.dbg_fd = dbg_fd;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_ENABLE, &a);
}

int kfd_dbg_disable(struct kfd *k, pid_t pid)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_DISABLE, &a);
}

int kfd_dbg_set_exceptions(struct kfd *k, pid_t pid, uint64_t mask)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	a.set_exceptions_enabled.exception_mask = mask;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED, &a);
}

int kfd_dbg_query_event(struct kfd *k, pid_t pid, uint64_t clear_mask,
			uint64_t *raised, uint32_t *gpu_id,
			uint32_t *queue_id)
{
	struct kfd_ioctl_dbg_trap_args a = {};
	int r;

	a.query_debug_event.exception_mask = clear_mask;
	r = dbg_trap(k, pid, KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT, &a);
	if (r < 0)
		return r;
	*raised = a.query_debug_event.exception_mask;
	if (gpu_id)
		*gpu_id = a.query_debug_event.gpu_id;
	if (queue_id)
		*queue_id = a.query_debug_event.queue_id;
	return 0;
}

int kfd_dbg_runtime_info(struct kfd *k, pid_t pid,
			 struct kfd_runtime_info *rinfo)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	/* Reading it also clears EC_PROCESS_RUNTIME, as ROCdbgapi does;
	 * it fails ENODATA when that exception is not raised. */
	memset(rinfo, 0, sizeof(*rinfo));
	a.query_exception_info.info_ptr = (uintptr_t)rinfo;
	a.query_exception_info.info_size = sizeof(*rinfo);
	a.query_exception_info.exception_code = EC_PROCESS_RUNTIME;
	a.query_exception_info.clear_exception = 1;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO, &a);
}

int kfd_dbg_send_runtime_event(struct kfd *k, pid_t pid, uint64_t mask,
			       uint32_t gpu_id, uint32_t queue_id)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	a.send_runtime_event.exception_mask = mask;
	a.send_runtime_event.gpu_id = gpu_id;
	a.send_runtime_event.queue_id = queue_id;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT, &a);
}

int kfd_dbg_queue_snapshot(struct kfd *k, pid_t pid,
			   struct kfd_queue_snapshot_entry *buf,
			   uint32_t *num)
{
	struct kfd_ioctl_dbg_trap_args a = {};
	int r;

	a.queue_snapshot.exception_mask = GP_EC_QUEUE_NEW;
	a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)buf;
	a.queue_snapshot.num_queues = buf ? *num : 0;
	a.queue_snapshot.entry_size = sizeof(*buf);
	r = dbg_trap(k, pid, KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT, &a);
	if (r < 0)
		return r;
	*num = a.queue_snapshot.num_queues;
	return 0;
}

/* The wave exceptions ROCdbgapi clears when it suspends. */
#define SUSPEND_CLEAR_MASK						\
	(KFD_EC_MASK(EC_QUEUE_WAVE_ABORT) |				\
	 KFD_EC_MASK(EC_QUEUE_WAVE_TRAP) |				\
	 KFD_EC_MASK(EC_QUEUE_WAVE_MATH_ERROR) |			\
	 KFD_EC_MASK(EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION) |		\
	 KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION) |			\
	 KFD_EC_MASK(EC_QUEUE_WAVE_APERTURE_VIOLATION))

int kfd_dbg_suspend(struct kfd *k, pid_t pid, uint32_t *ids, uint32_t n,
		    uint32_t grace_period)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	a.suspend_queues.exception_mask = SUSPEND_CLEAR_MASK;
	a.suspend_queues.queue_array_ptr = (uintptr_t)ids;
	a.suspend_queues.num_queues = n;
	a.suspend_queues.grace_period = grace_period;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_SUSPEND_QUEUES, &a);
}

int kfd_dbg_resume(struct kfd *k, pid_t pid, uint32_t *ids, uint32_t n)
{
	struct kfd_ioctl_dbg_trap_args a = {};

	a.resume_queues.queue_array_ptr = (uintptr_t)ids;
	a.resume_queues.num_queues = n;
	return dbg_trap(k, pid, KFD_IOC_DBG_TRAP_RESUME_QUEUES, &a);
}

uint32_t kfd_queue_word_id(uint32_t word)
{
	return word & ~(uint32_t)(KFD_DBG_QUEUE_INVALID_MASK |
				  KFD_DBG_QUEUE_ERROR_MASK);
}

enum kfd_qstatus kfd_queue_word_status(uint32_t word)
{
	/* ERROR wins: the queue exists but the hardware failed it. */
	if (word & KFD_DBG_QUEUE_ERROR_MASK)
		return KFD_Q_ERROR;
	if (word & (uint32_t)KFD_DBG_QUEUE_INVALID_MASK)
		return KFD_Q_INVALID;
	return KFD_Q_OK;
}

const char *kfd_qstatus_name(enum kfd_qstatus st)
{
	switch (st) {
	case KFD_Q_OK: return "ok";
	case KFD_Q_INVALID: return "invalid";
	case KFD_Q_ERROR: return "error";
	case KFD_Q_NOT_DONE: return "not_done";
	}
	return "?";
}

const char *kfd_runtime_state_name(uint32_t state)
{
	switch (state) {
	case DEBUG_RUNTIME_STATE_DISABLED: return "DISABLED";
	case DEBUG_RUNTIME_STATE_ENABLED: return "ENABLED";
	case DEBUG_RUNTIME_STATE_ENABLED_BUSY: return "ENABLED_BUSY";
	case DEBUG_RUNTIME_STATE_ENABLED_ERROR: return "ENABLED_ERROR";
	}
	return "UNKNOWN";
}

/* The id limit is the lowest status bit the kernel writes back. */
_Static_assert(KFD_QUEUE_ID_LIMIT == (1u << KFD_DBG_QUEUE_ERROR_BIT) &&
	       KFD_DBG_QUEUE_INVALID_BIT == KFD_DBG_QUEUE_ERROR_BIT + 1,
	       "queue id limit out of step with kfd_ioctl.h");
