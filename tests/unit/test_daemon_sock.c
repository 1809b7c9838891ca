// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, root, no KFD): the daemon's socket and a symlink swapped in
 * between bind and the group change. The race is made deterministic with
 * ptrace: dsock_open() runs in a traced child, stopped at the exit of
 * its bind(2); while it is stopped the socket is replaced (rename) by a
 * symlink to a victim file, as a user who can write the socket's
 * directory could; then the child goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

#include "daemon_int.h"
#include "tap.h"

#define GID 65534

/* Run the traced child to the exit of its next bind(2). 0, or -1. */
static int stop_after_bind(pid_t c)
{
	struct ptrace_syscall_info si;
	bool in_bind = false;
	int st;

	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return -1;
	ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD |
	       PTRACE_O_EXITKILL);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, c, 0, 0) ||
		    waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
			return -1;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80))
			continue;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof(si), &si) <= 0)
			return -1;
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY)
			in_bind = si.entry.nr == SYS_bind;
		else if (si.op == PTRACE_SYSCALL_INFO_EXIT && in_bind)
			return 0;
	}
}

TEST(socket_swapped_for_a_symlink_after_bind_changes_nothing)
{
	char dir[] = "/tmp/gpsock.XXXXXX", sock[64], victim[64], link[64];
	struct stat before, after;
	int fd, st = 0;
	pid_t c;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof(sock), "%s/ctl.sock", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(victim, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0 && fchown(fd, 0, 0) == 0);
	close(fd);
	CHECK(symlink(victim, link) == 0);
	CHECK(stat(victim, &before) == 0);

	c = fork();
	if (c == 0) {
		struct daemon_opts o = { .socket = sock, .group = "65534" };
		struct daemon d = { .o = &o, .path = sock };
		struct gp_err e = {};

		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		if (dsock_resolve_group(&d, &e))
			_exit(2);
		_exit(dsock_open(&d, &e) ? 1 : 0);
	}
	CHECK(c > 0);
	if (c <= 0)
		return;
	CHECK(stop_after_bind(c) == 0);
	/* the child is stopped between bind and the group change */
	CHECK(rename(link, sock) == 0);
	ptrace(PTRACE_DETACH, c, 0, 0);
	CHECK(waitpid(c, &st, 0) == c);
	/* it refused to go on with a socket that is not its own */
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	CHECK(stat(victim, &after) == 0);
	if (after.st_gid != before.st_gid ||
	    (after.st_mode & 07777) != (before.st_mode & 07777)) {
		printf("# the victim went from gid %u mode %o to gid %u "
		       "mode %o\n", before.st_gid, before.st_mode & 07777,
		       after.st_gid, after.st_mode & 07777);
		CHECK(0);
	}
	unlink(sock);
	unlink(victim);
	rmdir(dir);
}

int main(void)
{
	if (geteuid()) {
		printf("ok 1 - daemon socket test # SKIP needs root\n1..1\n");
		return 0;
	}
	RUN(socket_swapped_for_a_symlink_after_bind_changes_nothing);
	return tap_done();
}
