// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (real Unix sockets on the host, no daemon): gp_notify, the client
 * servers embed (user/notify/gp_notify.c). A socketpair stands in for the
 * daemon's connection, named as such: the peer is this test.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gp_notify.h"
#include "tap.h"

/*
 * A reply that comes after the timeout is never taken for the answer to
 * the next request (issue 24, item 12): the connection is shut down at
 * the timeout, so the next call fails instead of reading the stale "ok".
 * Takes GP_NOTIFY_TIMEOUT_MS (5 s) of wall time by design.
 */
TEST(timeout_ends_the_connection)
{
	char buf[64];
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(gp_notify_busy(sv[0]) == -ETIMEDOUT);
	CHECK(read(sv[1], buf, sizeof(buf)) == 5);	/* "busy\n" came */
	/* the late answer to busy */
	(void)!send(sv[1], "ok\n", 3, MSG_NOSIGNAL);
	CHECK(gp_notify_idle(sv[0]) < 0);
	gp_notify_close(sv[0]);
	close(sv[1]);
}

TEST(answers_are_read_in_order)
{
	char msg[64] = "";
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(write(sv[1], "INFO x\nok\n", 10) == 10);
	CHECK(gp_notify_busy(sv[0]) == 0);
	CHECK(write(sv[1], "err 3 1 not yours\n", 18) == 18);
	CHECK(gp_notify_send(sv[0], "busy pid=1\n", msg, sizeof(msg)) == 3);
	CHECK(!strcmp(msg, "not yours"));
	gp_notify_close(sv[0]);
	close(sv[1]);
}

/* The GPU field: the line the daemon's parser (arb_proto.c) takes. */
TEST(gpu_field_sent_as_gpu_ids)
{
	const unsigned int ids[] = { 10001, 10002 }, zero[] = { 0 };
	char buf[128] = "";
	int sv[2];
	ssize_t n;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(write(sv[1], "ok\n", 3) == 3);
	CHECK(gp_notify_busy_gpus(sv[0], ids, 2) == 0);
	CHECK(write(sv[1], "ok\n", 3) == 3);
	CHECK(gp_notify_idle_gpus(sv[0], ids, 0) == 0);
	n = read(sv[1], buf, sizeof(buf) - 1);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = 0;
	CHECK(!strcmp(buf, "busy gpu=10001,10002\nidle\n"));
	/* refused before anything is sent */
	CHECK(gp_notify_busy_gpus(sv[0], zero, 1) == -EINVAL);
	CHECK(gp_notify_busy_gpus(sv[0], ids, 65) == -EINVAL);
	gp_notify_close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	RUN(timeout_ends_the_connection);
	RUN(answers_are_read_in_order);
	RUN(gpu_field_sent_as_gpu_ids);
	return tap_done();
}
