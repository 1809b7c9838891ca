/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KFD backend (backend.h): a process with a KFD process
 * (/sys/class/kfd/kfd/proc/PID) held through the debug-trap session
 * (user/session/, unchanged below it). Every operation is one ioctl on
 * the owner's thread: nothing is ever pending.
 */
#ifndef GP_BK_KFD_H
#define GP_BK_KFD_H

#include "backend.h"
#include "kfd.h"

/* k: the owner's /dev/kfd, opened (kfd_open_debug) on first use. */
struct gp_backend *gp_bk_kfd_new(struct kfd *k);
void gp_bk_kfd_destroy(struct gp_backend *b);
/* A session opened elsewhere (tests' stand-in sessions), as a process. */
struct gp_bproc *gp_bk_kfd_wrap(struct gp_backend *b, struct session *s);
/* The session of a KFD process, NULL for another backend's. */
struct session *gp_bk_kfd_session(const struct gp_bproc *p);

#endif
