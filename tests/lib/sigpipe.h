/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals through a self-pipe, for the programs that stand in for a GPU
 * job in the VM tests (tests/exerciser, tests/rocr): each prints one
 * {"step":"signal",...} line per signal, which is how the tests see that
 * a ptrace holder passed a signal on rather than swallowing it.
 *
 * Handlers, not signalfd, so a signal a tracer re-injects into a traced
 * process is seen exactly like a normal delivery. No SA_RESTART: blocking
 * calls come back with EINTR and the program prints the signal at once.
 * With ROCr, set up before hsa_init(): the threads it starts inherit the
 * mask, so the handler may run on any of them; the pipe brings the
 * signal to the main loop either way. SIGTERM and SIGINT also set the
 * caller's stop flag.
 */
#ifndef GP_TESTS_SIGPIPE_H
#define GP_TESTS_SIGPIPE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int sigpipe_fds[2] = { -1, -1 };
static volatile sig_atomic_t *sigpipe_stop;

static void sigpipe_on_signal(int sig)
{
	unsigned char b = sig;
	int saved = errno;

	if ((sig == SIGTERM || sig == SIGINT) && sigpipe_stop)
		*sigpipe_stop = 1;
	if (write(sigpipe_fds[1], &b, 1) < 0) {
		/* pipe full: the line is lost, the stop flag is not */
	}
	errno = saved;
}

static inline void sigpipe_setup(volatile sig_atomic_t *stop)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGUSR1, SIGUSR2,
				    SIGCONT };
	struct sigaction sa;
	size_t i;

	sigpipe_stop = stop;
	if (pipe2(sigpipe_fds, O_NONBLOCK | O_CLOEXEC))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigpipe_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* The pipe's read end, to poll; -1 before sigpipe_setup(). */
static inline int sigpipe_fd(void)
{
	return sigpipe_fds[0];
}

/* The next signal received, or 0 when none is waiting. */
static inline int sigpipe_next(void)
{
	unsigned char b;

	if (sigpipe_fds[0] < 0)
		return 0;
	return read(sigpipe_fds[0], &b, 1) == 1 ? b : 0;
}

#endif
