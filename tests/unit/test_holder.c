// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, no KFD): what a holder (the one-shot `gpreempt-ctl suspend`
 * or the daemon) does with signals, and the ptrace side of a session:
 * the real kernel's ptrace and signals, no stand-in. KFD itself is not
 * needed for any of it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session.h"
#include "tap.h"

/*
 * Ctrl-Z on a holder in a terminal must not stop it: a stopped holder
 * cannot end its hold, so --for would be stretched until SIGCONT. The
 * child is its own process group with us, its parent, in another one of
 * the same session, so the kernel does not drop SIGTSTP as it does for
 * orphaned groups.
 */
TEST(holder_ignores_job_control_stops)
{
	static const int sigs[] = { SIGTSTP, SIGTTIN, SIGTTOU };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct signalfd_siginfo si;
		sigset_t old;
		pid_t c;
		int st = 0, fd;

		c = fork();
		if (c == 0) {
			setpgid(0, 0);
			fd = session_signalfd(&old);
			if (fd < 0)
				_exit(3);
			raise(sigs[i]);
			/* seen on the signalfd, so the loop can say so */
			if (read(fd, &si, sizeof(si)) != sizeof(si) ||
			    (int)si.ssi_signo != sigs[i])
				_exit(4);
			_exit(session_signal_ends_hold(sigs[i]) ? 5 : 0);
		}
		CHECK(c > 0);
		if (c <= 0)
			return;
		CHECK(waitpid(c, &st, WUNTRACED) == c);
		if (WIFSTOPPED(st)) {
			printf("# %s stopped the holder\n", strsignal(sigs[i]));
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
			CHECK(0);
			continue;
		}
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			printf("# %s: child status 0x%x\n", strsignal(sigs[i]),
			       st);
	}
	CHECK(session_signal_ends_hold(SIGINT));
	CHECK(session_signal_ends_hold(SIGTERM));
	CHECK(session_signal_ends_hold(SIGHUP));
	CHECK(!session_signal_ends_hold(SIGCHLD));
}

int main(void)
{
	RUN(holder_ignores_job_control_stops);
	return tap_done();
}
