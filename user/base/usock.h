/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unix stream sockets by path: the address rule and a connect, shared by
 * the daemon (is a live daemon on this path?) and its clients. No
 * protocol here (proto.h is pure); no messages (callers word them).
 */
#ifndef GP_USOCK_H
#define GP_USOCK_H

#include <sys/un.h>

/* Fill sa for path. 0, or -ENAMETOOLONG / -EINVAL (empty). */
int usock_addr(const char *path, struct sockaddr_un *sa);
/*
 * A connected SOCK_STREAM | SOCK_CLOEXEC fd, or -errno. nonblock: the fd
 * is O_NONBLOCK and a listener whose backlog is full (a server that does
 * not accept) gives -EAGAIN at once instead of blocking.
 */
int usock_connect(const char *path);
int usock_connect_nb(const char *path);
/*
 * Who listens on a connected fd (SO_PEERCRED: the credentials the server
 * had when it called listen()). 0 and *uid, or -errno. Clients refuse a
 * server that is not root before trusting any reply: anyone who can
 * replace the socket file could otherwise answer "ok" to a suspend.
 */
int usock_peer_uid(int fd, unsigned int *uid);

#endif
