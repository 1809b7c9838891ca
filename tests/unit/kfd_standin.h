/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "kfd-standin": a stand-in for the driver behind kfd_ioctl_fn (kfd.h),
 * for L1 host tests of what the daemon and a session do with KFD's
 * answers. It is not KFD: it knows nothing of ptrace, runtimes or the
 * hardware, only the answers a test asks for:
 *  - GET_QUEUE_SNAPSHOT reports sb.n_queues queues (ids ID_BASE + i),
 *    fills as many as the caller's buffer holds, and then adds sb.grow
 *    queues (a process creating queues as fast as we ask);
 *  - RESUME_QUEUES fails with sb.resume_errno sb.resume_fail times
 *    (ioctl error), then writes KFD_DBG_QUEUE_ERROR_MASK into every word
 *    sb.resume_map_fail times (the GPU failed to map), then succeeds;
 *  - SUSPEND_QUEUES succeeds for every queue; every other op returns 0.
 * The behaviour of the real KFD is tested in the VM (tests/vm, L2).
 *	kfd_ioctl_fn = kfd_standin_ioctl;
 *	sb.resume_fail = 3;
 */
#ifndef GP_KFD_STANDIN_H
#define GP_KFD_STANDIN_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#include "kfd.h"
#include "session_int.h"

#define STANDIN_ID_BASE 1000u

static struct {
	uint32_t n_queues, grow;
	uint32_t resume_fail, resume_map_fail;
	int resume_errno;
	uint32_t n_snapshot, n_suspend, n_resume; /* calls seen */
} sb;

static int standin_snapshot(struct kfd_ioctl_dbg_trap_args *a)
{
	struct kfd_queue_snapshot_entry *buf =
		(void *)(uintptr_t)a->queue_snapshot.snapshot_buf_ptr;
	uint32_t i, room = a->queue_snapshot.num_queues;

	sb.n_snapshot++;
	for (i = 0; buf && i < room && i < sb.n_queues; i++) {
		memset(&buf[i], 0, sizeof(buf[i]));
		buf[i].queue_id = STANDIN_ID_BASE + i;
	}
	a->queue_snapshot.num_queues = sb.n_queues;
	sb.n_queues += sb.grow;
	return 0;
}

static int standin_queues(struct kfd_ioctl_dbg_trap_args *a, bool resume)
{
	uint32_t *w = (void *)(uintptr_t)(resume ?
		a->resume_queues.queue_array_ptr :
		a->suspend_queues.queue_array_ptr);
	uint32_t i, n = resume ? a->resume_queues.num_queues :
			a->suspend_queues.num_queues;
	bool map_fail = false;

	if (resume) {
		sb.n_resume++;
		if (sb.resume_fail) {
			sb.resume_fail--;
			errno = sb.resume_errno ? sb.resume_errno : EIO;
			return -1;
		}
		if (sb.resume_map_fail) {
			sb.resume_map_fail--;
			map_fail = true;
		}
	} else {
		sb.n_suspend++;
	}
	for (i = 0; i < n; i++)
		if (map_fail)
			w[i] |= KFD_DBG_QUEUE_ERROR_MASK;
	return (int)n;
}

static int kfd_standin_ioctl(int fd, unsigned long req, void *arg)
{
	struct kfd_ioctl_dbg_trap_args *a = arg;

	if (req != AMDKFD_IOC_DBG_TRAP)
		return 0;
	switch (a->op) {
	case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
		return standin_snapshot(a);
	case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
		return standin_queues(a, false);
	case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
		return standin_queues(a, true);
	}
	return 0;
}

/*
 * A session as session_open() leaves it after ENABLE, without the ptrace
 * seize and the sysfs check (no KFD process exists on the host): alive,
 * enabled, runtime ENABLED. Queue ops reach the stand-in through k.
 */
static struct session *standin_session(struct kfd *k, pid_t pid)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	k->fd = -1;
	s->kfd = k;
	s->pid = pid;
	s->pipe_rd = s->pipe_wr = -1;
	s->tr.pid = pid;
	s->tr.pidfd = -1;
	s->tr.alive = true;
	s->enabled = true;
	s->runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
	return s;
}

#endif
