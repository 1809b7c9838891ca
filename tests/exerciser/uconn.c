// SPDX-License-Identifier: GPL-2.0
/*
 * uconnect:PATH - a client of the daemon's Unix socket that says one
 * thing and then never leaves: connect, send "status", read the reply up
 * to its last line ("ok" or "err ..."), print it, and keep the connection
 * open until the process ends. A tenant that holds connection slots
 * (tests/vm/67-hostile.sh); the guest has no other Unix-socket client
 * that can hold a connection it does not use.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ex.h"

/*
 * The reply's last line when it ends the reply ("ok", "err ..."), or
 * NULL; @buf ends in '\n', cut off when the reply ends.
 */
static const char *last_line(char *buf, size_t len)
{
	char *end, *start;

	buf[len - 1] = '\0';
	end = strrchr(buf, '\n');
	start = end ? end + 1 : buf;
	if (!strcmp(start, "ok") || !strncmp(start, "err ", 4))
		return start;
	buf[len - 1] = '\n';	/* an info line: more to come */
	return NULL;
}

void ex_uconnect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *reply = "closed", *line;
	char buf[4096];
	size_t len = 0;
	struct jl j;
	ssize_t n;
	int fd;

	jl_begin(&j, "uconnect");
	jl_str(&j, "path", path);
	if (strlen(path) >= sizeof(sa.sun_path)) {
		jl_str(&j, "reply", "path too long");
		jl_end(&j, false);
		return;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);	/* kept: no CLOEXEC needed */
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		jl_str(&j, "reply", strerror(errno));
		jl_end(&j, false);
		if (fd >= 0)
			close(fd);
		return;
	}
	/* a refused connection gets its err line and is closed, maybe
	 * before this send: its EPIPE is ignored, the line is still read */
	(void)!send(fd, "status\n", 7, MSG_NOSIGNAL);
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		buf[len] = '\0';
		if (buf[len - 1] == '\n' && (line = last_line(buf, len))) {
			reply = line;
			break;
		}
	}
	jl_str(&j, "reply", reply);
	jl_end(&j, false);
}
