/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What session.c (layer 2: open, events, snapshot, release, close) and
 * session_queues.c (layer 3: suspend, resume) share; layer 1 (tracee.h,
 * session_ptrace.c) needs none of it. Not an API: include session.h.
 */
#ifndef GP_SESSION_INT_H
#define GP_SESSION_INT_H

#include "session.h"
#include "tracee.h"

struct session {
	struct kfd *kfd;
	pid_t pid;
	int pipe_rd, pipe_wr;
	struct tracee tr;	/* the ptrace side; tr.alive: not exited */
	bool enabled;		/* DBG_TRAP ENABLE succeeded */
	uint32_t runtime_state;
	struct kfd_queue_snapshot_entry *snap;
	uint32_t n_snap, cap_snap;
	uint32_t *held;		/* ids this session suspended */
	uint32_t n_held, cap_held;
};

/*
 * ESRCH from KFD (r == -ESRCH): the target's KFD process is gone (it
 * exited, or exec'd). The ptrace link may outlive it until
 * session_handle_wait() reaps the exit, and session_close() still
 * detaches if it does not.
 */
void session_mark_gone_if(struct session *s, int r);

#endif
