// SPDX-License-Identifier: GPL-2.0
/* Unix stream sockets by path (usock.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "usock.h"

int usock_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!*path)
		return -EINVAL;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

static int do_connect(const char *path, int flags)
{
	struct sockaddr_un sa;
	int fd, r;

	r = usock_addr(path, &sa);
	if (r)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	r = -errno;
	close(fd);
	return r;
}

int usock_connect(const char *path)
{
	return do_connect(path, 0);
}

int usock_connect_nb(const char *path)
{
	return do_connect(path, SOCK_NONBLOCK);
}

int usock_peer_uid(int fd, unsigned int *uid)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return -errno;
	*uid = uc.uid;
	return 0;
}
