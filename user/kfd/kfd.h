/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KFD layer: typed wrappers for the /dev/kfd ioctls gpreempt-ctl uses
 * (GET_VERSION and the DBG_TRAP operations), every one retried on EINTR
 * and timed, plus the pure decoders (per-queue status words, errno ->
 * cause/remedy/exit code) that the L0 tests cover.
 *
 * Rules the kernel imposes (kfd-reference.md section 2):
 *  - every DBG_TRAP op on another process must come from the thread that
 *    PTRACE_SEIZEd that process's thread-group leader (session.c does it);
 *  - ENABLE must succeed before any other op (else EINVAL);
 *  - SUSPEND/RESUME need the target's runtime to have called
 *    RUNTIME_ENABLE (else EPERM);
 *  - the debug session lives as long as this process's mm: when it exits
 *    (even SIGKILL) the kernel DISABLEs debug on its targets and resumes
 *    their queues.
 *
 * All wrappers return 0 (or a count for suspend/resume) on success and a
 * negative errno on failure; none prints. Turn an errno into a message
 * with kfd_explain().
 */
#ifndef GP_KFD_H
#define GP_KFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/kfd_ioctl.h>

#include "err.h"

#define KFD_DEV_PATH "/dev/kfd"
/* KFD's sysfs tree (the one home of these paths): one directory per
 * KFD process, and the topology's nodes. */
#define KFD_SYSFS "/sys/class/kfd/kfd"
#define KFD_SYSFS_PROC KFD_SYSFS "/proc"
#define KFD_SYSFS_TOPOLOGY KFD_SYSFS "/topology"
#define KFD_SYSFS_NODES KFD_SYSFS_TOPOLOGY "/nodes"
/*
 * Queue ids use bits 0..29: SUSPEND/RESUME write their per-queue status
 * into bits 30 and 31 (KFD_DBG_QUEUE_ERROR_MASK, _INVALID_MASK), so an
 * id at or above this cannot be named. The CLI and the protocol check it.
 */
#define KFD_QUEUE_ID_LIMIT 0x40000000u
#define KFD_SCHED_POLICY_PATH "/sys/module/amdgpu/parameters/sched_policy"
/* The debug-trap API arrived in KFD ioctl 1.13 (Linux 6.5). */
#define KFD_DEBUG_MAJOR 1
#define KFD_DEBUG_MINOR_MIN 13
/* amdgpu.sched_policy=2 (no HWS): every DBG_TRAP op fails EINVAL. */
#define KFD_SCHED_POLICY_NO_HWS 2

/* KFD_EC_MASK() of the exception codes gpreempt uses. */
#define GP_EC_PROCESS_RUNTIME	KFD_EC_MASK(EC_PROCESS_RUNTIME)
#define GP_EC_QUEUE_NEW		KFD_EC_MASK(EC_QUEUE_NEW)

/* An open /dev/kfd; one is enough for any number of targets. */
struct kfd {
	int fd;
	uint32_t major, minor;	/* from GET_VERSION at kfd_open() */
	uint64_t last_ns;	/* last ioctl's duration, CLOCK_MONOTONIC */
};

/*
 * The calls this layer makes, for kfd_explain(). The DBG_TRAP ones share
 * the values of enum kfd_dbg_trap_operations; the others are above them.
 */
enum kfd_call {
	KFD_CALL_ENABLE = KFD_IOC_DBG_TRAP_ENABLE,
	KFD_CALL_DISABLE = KFD_IOC_DBG_TRAP_DISABLE,
	KFD_CALL_SEND_RUNTIME_EVENT = KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT,
	KFD_CALL_SET_EXCEPTIONS = KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED,
	KFD_CALL_SUSPEND = KFD_IOC_DBG_TRAP_SUSPEND_QUEUES,
	KFD_CALL_RESUME = KFD_IOC_DBG_TRAP_RESUME_QUEUES,
	KFD_CALL_QUERY_EVENT = KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT,
	KFD_CALL_QUERY_EXCEPTION = KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO,
	KFD_CALL_SNAPSHOT = KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT,
	KFD_CALL_OPEN = 100,	/* open("/dev/kfd") */
	KFD_CALL_VERSION,	/* AMDKFD_IOC_GET_VERSION */
	KFD_CALL_PTRACE,	/* PTRACE_SEIZE of the target's leader */
};

/*
 * The one door to the driver: every ioctl of this layer (GET_VERSION and
 * each DBG_TRAP op) goes through this pointer, ioctl(2) unless a host
 * test (L1) points it at a stand-in KFD (tests/unit/kfd_standin.h) to
 * make the driver fail or grow on demand. Nothing in user/ sets it.
 */
extern int (*kfd_ioctl_fn)(int fd, unsigned long req, void *arg);

/* Name of a call for messages and JSON ("suspend", "enable", ...). */
const char *kfd_call_name(enum kfd_call call);

/*
 * Pure: the likely cause and the remedy of errno err (positive) returned
 * by call, and the exit code it maps to. cause/remedy point to static
 * strings (remedy may be ""). Never fails: unknown pairs get a generic
 * text and GP_EXIT_FAILURE.
 */
int kfd_explain(enum kfd_call call, int err, const char **cause,
		const char **remedy);
/* kfd_explain() into e: "<call> on pid N: <strerror>: <cause>. <remedy>". */
void kfd_err(struct gp_err *e, enum kfd_call call, pid_t pid, int err);

/*
 * Pure: PTRACE_SEIZE of pid failed EPERM; which of its causes, into e.
 * has_cap: CAP_SYS_PTRACE in our effective set; tracer: the target's
 * TracerPid (0 none); yama_scope: /proc/sys/kernel/yama/ptrace_scope, or
 * -1 without Yama. Only a missing capability is exit 3 (GP_EXIT_PRIV);
 * another tracer is 9, Yama 3, a non-dumpable target or an LSM are 8.
 */
void kfd_ptrace_denied(struct gp_err *e, pid_t pid, bool has_cap,
		       pid_t tracer, long yama_scope);

/*
 * Pure: does KFD ioctl version major.minor have the debug-trap API?
 * Returns GP_EXIT_OK or GP_EXIT_NO_DEBUG_API.
 */
int kfd_version_check(uint32_t major, uint32_t minor);

/*
 * Open /dev/kfd and read its version. Does not check it (check does so
 * with kfd_version_check() to report it). 0 or -errno (ENOENT: no amdgpu;
 * EINVAL on 7.x without a GPU node: KFD refuses to create a process).
 */
int kfd_open(struct kfd *k);
void kfd_close(struct kfd *k);
int kfd_get_version(struct kfd *k, uint32_t *major, uint32_t *minor);

/*
 * amdgpu.sched_policy from sysfs, or -errno if unreadable (module not
 * loaded). 0 HWS, 1 HWS without oversubscription, 2 no HWS.
 */
int kfd_sched_policy(void);

/*
 * kfd_open() plus what every debug-trap user needs first: KFD >= 1.13
 * and a hardware scheduler (sched_policy 2 makes KFD refuse every op).
 * 0, or -1 with e filled (exit 4 or 7) and k closed.
 */
int kfd_open_debug(struct kfd *k, struct gp_err *e);

/*
 * DBG_TRAP ENABLE on pid. dbg_fd is the write end of a non-blocking pipe
 * (KFD writes one byte per raised exception; an eventfd would reject the
 * 1-byte write). mask: exceptions to report, GP_EC_PROCESS_RUNTIME at
 * least. rinfo (may be NULL) receives the runtime state at the time of
 * the call: DISABLED means the target has not enabled its runtime yet and
 * will block in RUNTIME_ENABLE until we answer (see session.c).
 */
int kfd_dbg_enable(struct kfd *k, pid_t pid, int dbg_fd, uint64_t mask,
		   struct kfd_runtime_info *rinfo);
int kfd_dbg_disable(struct kfd *k, pid_t pid);
int kfd_dbg_set_exceptions(struct kfd *k, pid_t pid, uint64_t mask);
/*
 * One pending event: *raised gets the raised exception mask, clear_mask
 * is cleared from it in the kernel. -EAGAIN when nothing is pending.
 */
int kfd_dbg_query_event(struct kfd *k, pid_t pid, uint64_t clear_mask,
			uint64_t *raised, uint32_t *gpu_id,
			uint32_t *queue_id);
/* The target's kfd_runtime_info (QUERY_EXCEPTION_INFO EC_PROCESS_RUNTIME). */
int kfd_dbg_runtime_info(struct kfd *k, pid_t pid,
			 struct kfd_runtime_info *rinfo);
/* Unblocks a target waiting in RUNTIME_ENABLE/DISABLE (mask RUNTIME). */
int kfd_dbg_send_runtime_event(struct kfd *k, pid_t pid, uint64_t mask,
			       uint32_t gpu_id, uint32_t queue_id);
/*
 * GET_QUEUE_SNAPSHOT clearing EC_QUEUE_NEW, so the queues listed can be
 * suspended (a new queue is refused until a snapshot saw it). *num: in,
 * the capacity of buf (entries); out, the total number of queues (may be
 * more than the capacity: call again with a bigger buffer).
 */
int kfd_dbg_queue_snapshot(struct kfd *k, pid_t pid,
			   struct kfd_queue_snapshot_entry *buf,
			   uint32_t *num);
/*
 * SUSPEND_QUEUES / RESUME_QUEUES of ids[0..n). The kernel rewrites every
 * entry of ids: the queue id with KFD_DBG_QUEUE_INVALID_MASK and/or
 * KFD_DBG_QUEUE_ERROR_MASK or'ed in; decode with kfd_queue_word_*().
 * grace_period: in units of 1K GPU cycles (0 is turned into 1 by KFD).
 * Suspend clears KFD_EC_MASK_QUEUE's wave exceptions as ROCdbgapi does.
 * Returns the number of queues acted on, or -errno.
 */
int kfd_dbg_suspend(struct kfd *k, pid_t pid, uint32_t *ids, uint32_t n,
		    uint32_t grace_period);
int kfd_dbg_resume(struct kfd *k, pid_t pid, uint32_t *ids, uint32_t n);

/* Per-queue result of suspend/resume, decoded from the status word. */
enum kfd_qstatus {
	KFD_Q_OK = 0,		/* done (or already in that state) */
	KFD_Q_INVALID,		/* no such queue, new (not snapshotted) or
				 * being destroyed */
	KFD_Q_ERROR,		/* the hardware failed to (un)map it */
	KFD_Q_NOT_DONE,		/* the ioctl itself failed: not acted on */
};

/* Pure decoders of one word written back by SUSPEND/RESUME. */
uint32_t kfd_queue_word_id(uint32_t word);
enum kfd_qstatus kfd_queue_word_status(uint32_t word);
/* "ok", "invalid", "error", "not_done" */
const char *kfd_qstatus_name(enum kfd_qstatus st);
/* "DISABLED", "ENABLED", "ENABLED_BUSY", "ENABLED_ERROR", "UNKNOWN" */
const char *kfd_runtime_state_name(uint32_t state);

#endif
