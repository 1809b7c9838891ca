// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host-only behaviour, a real datagram socket standing in for
 * systemd's notify socket): sd_notify's wire format and journal detection
 * (user/daemon/notify.c).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "tap.h"

static int bound(const char *path, bool abstract)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len;

	strcpy(sa.sun_path + abstract, path);
	len = offsetof(struct sockaddr_un, sun_path) + abstract + strlen(path) +
	      !abstract;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len))
		return -1;
	return fd;
}

TEST(no_socket_is_not_an_error)
{
	unsetenv("NOTIFY_SOCKET");
	CHECK(notify_send("READY=1") == 0);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	CHECK(notify_send("READY=1") < 0);
}

TEST(path_socket_gets_the_datagram)
{
	char dir[] = "/tmp/gp-notify.XXXXXX", path[64], got[64] = "";
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = bound(path, false);
	CHECK(fd >= 0);
	setenv("NOTIFY_SOCKET", path, 1);
	CHECK(notify_send("READY=1\nSTATUS=listening") == 1);
	CHECK(recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT) == 24);
	CHECK_STR(got, "READY=1\nSTATUS=listening");
	close(fd);
	unlink(path);
	rmdir(dir);
}

TEST(abstract_socket_gets_the_datagram)
{
	char name[64], env[72], got[32] = "";
	int fd;

	snprintf(name, sizeof(name), "gp-notify-test-%d", (int)getpid());
	fd = bound(name, true);
	CHECK(fd >= 0);
	snprintf(env, sizeof(env), "@%s", name);
	setenv("NOTIFY_SOCKET", env, 1);
	CHECK(notify_send("STOPPING=1") == 1);
	CHECK(recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT) == 10);
	CHECK_STR(got, "STOPPING=1");
	close(fd);
}

TEST(journal_stream_matches_stderr_only)
{
	struct stat st;
	char env[64];

	unsetenv("JOURNAL_STREAM");
	CHECK(!notify_stderr_is_journal());
	CHECK(fstat(2, &st) == 0);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	CHECK(notify_stderr_is_journal());
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	CHECK(!notify_stderr_is_journal());
	setenv("JOURNAL_STREAM", "garbage", 1);
	CHECK(!notify_stderr_is_journal());
	unsetenv("JOURNAL_STREAM");
}

int main(void)
{
	RUN(no_socket_is_not_an_error);
	RUN(path_socket_gets_the_datagram);
	RUN(abstract_socket_gets_the_datagram);
	RUN(journal_stream_matches_stderr_only);
	return tap_done();
}
