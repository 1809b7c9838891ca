/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gp_notify: tell gpreempt's arbiter that an online server has work
 * (busy) and has none (idle). Copy this header and gp_notify.c into a
 * server; they need nothing but libc.
 *
 *	int fd = gp_notify_open(NULL);		// default socket
 *	gp_notify_busy(fd);	// request arrived: offline is suspended
 *	...serve...				// when this returns 0
 *	gp_notify_idle(fd);	// done (offline resumes after a delay)
 *	gp_notify_close(fd);	// or exit: a closed connection is idle
 *
 * The busy belongs to the connection: keep it open for the server's
 * life; busy twice needs idle twice; if the server dies, its busy ends.
 * The daemon closes a connection quiet for 30 s with no busy open (and
 * ends a busy neither renewed nor confirmed after its --busy-max): the
 * next call opens it again on the same fd, transparently.
 * The daemon takes the server's pid from the socket (SO_PEERCRED) and
 * allows root and the pid's own uid (the socket must let it connect:
 * `gpreempt-ctl daemon --group`). Calls block until the daemon answers
 * (it answers busy after the suspend ioctls), at most GP_NOTIFY_TIMEOUT_MS;
 * after -ETIMEDOUT (or -EPROTO) the connection is shut down, so a late
 * reply is never taken for the next answer (the next call opens a new
 * connection on the same fd).
 * gp_notify_open refuses (-EPERM) a socket whose server is not root.
 */
#ifndef GP_NOTIFY_H
#define GP_NOTIFY_H

#ifdef __cplusplus
extern "C" {
#endif

#define GP_NOTIFY_DEFAULT_SOCKET "/run/gpreempt/ctl.sock"
/* gp_notify_open(NULL) connects here when it is set and not empty: a pod
 * names the node's tenant socket (`daemon --tenant-socket`) with it. */
#define GP_NOTIFY_SOCKET_ENV "GPREEMPT_SOCKET"
#define GP_NOTIFY_TIMEOUT_MS 5000

/* A connected socket (path NULL: $GPREEMPT_SOCKET, else the default), or
 * -errno (-EPERM: the
 * server is not root, an impostor). */
int gp_notify_open(const char *path);
/* 0 when the daemon said "ok"; -errno, or the daemon's exit code (> 0)
 * with its message in msg (may be NULL) when it refused. */
int gp_notify_busy(int fd);
int gp_notify_idle(int fd);
/*
 * The same on the GPUs gpu_ids[0..n) only (KFD gpu_ids, as
 * /sys/class/kfd/kfd/topology/nodes/N/gpu_id and `gpreempt-ctl
 * snapshot` show them; never HIP or ROCr device indices, which
 * HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES renumber per process).
 * n == 0 is gp_notify_busy/idle: every GPU the process has queues on.
 * -EINVAL for n > 64 or a zero id (nothing sent).
 */
int gp_notify_busy_gpus(int fd, const unsigned int *gpu_ids, int n);
int gp_notify_idle_gpus(int fd, const unsigned int *gpu_ids, int n);
/* Any request line ("busy pid=42 scope=pid"); reply message into msg. */
int gp_notify_send(int fd, const char *line, char *msg, unsigned long len);
void gp_notify_close(int fd);

#ifdef __cplusplus
}
#endif
#endif
