/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes shared by gpreempt-trace and gpreempt-ctl. They are part of
 * the user interface (scripts test them), documented in README.md; never
 * renumber one, only add.
 */
#ifndef GP_EXITCODES_H
#define GP_EXITCODES_H

enum gp_exit {
	GP_EXIT_OK = 0,
	GP_EXIT_FAILURE = 1,	/* runtime error not covered below */
	GP_EXIT_USAGE = 2,	/* bad flag or argument; nothing was changed */
	GP_EXIT_PRIV = 3,	/* not root / missing CAP_BPF, CAP_PERFMON,
				 * CAP_SYS_PTRACE */
	GP_EXIT_NO_KFD = 4,	/* no /dev/kfd: amdgpu not loaded, or KFD
				 * refuses to create a process */
	GP_EXIT_NO_BPF = 5,	/* the kernel cannot load BPF programs */
	GP_EXIT_NO_ATTACH = 6,	/* no KFD probe could attach */
	GP_EXIT_NO_DEBUG_API = 7, /* KFD < 1.13 or sched_policy=2: no
				   * debug-trap suspend/resume */
	GP_EXIT_TARGET = 8,	/* target refused: gone, pid 1, self, kernel
				 * thread, no KFD process, not ptrace-able,
				 * runtime not debug-enabled */
	GP_EXIT_BUSY = 9,	/* another debugger (rocgdb) holds the target,
				 * or the device allows one debugged process */
	GP_EXIT_PARTIAL = 10,	/* some queues were invalid or failed */
	GP_EXIT_DAEMON = 11,	/* daemon unreachable or protocol error */
	GP_EXIT_NO_CUDA = 12,	/* libcuda.so.1 absent, or without the
				 * checkpoint API (cuCheckpointProcessLock) */
	GP_EXIT_LOCK_TIMEOUT = 13, /* CUDA: the target's GPU work in flight
				    * outlasted --cuda-lock-timeout; it was
				    * left running */
};

#endif
