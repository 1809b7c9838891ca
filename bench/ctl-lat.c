// SPDX-License-Identifier: GPL-2.0
/*
 * ctl-lat: issue suspend requests and stamp each with CLOCK_BOOTTIME, the
 * clock of gpreempt-trace's events, so the request-to-ioctl latency can be
 * read off the tracer's kfd_ioctl_set_debug_trap entry times.
 *
 *   ctl-lat exec N -- CMD [ARG...]
 *	Runs CMD N times, one after the other (a one-shot gpreempt-ctl
 *	suspend: exec, ptrace attach, enable, snapshot, suspend, ...).
 *   ctl-lat sock PATH PID N [QID]
 *	One connection to a gpreempt-ctl daemon: "attach pid=PID", then N
 *	times "suspend pid=PID queues=QID" (default 7) and
 *	"resume pid=PID queues=QID", then "detach pid=PID".
 *   ctl-lat rtt PATH N
 *	N "status" round trips on one connection: the daemon's socket, parse
 *	and reply path with no ioctl in it (works where KFD does not).
 *
 * Output, one line per suspend request:
 *	req I T_REQUEST_NS T_DONE_NS STATUS
 * T_REQUEST is taken just before the exec or the write of the request,
 * T_DONE once the command exited or the reply's final line arrived;
 * STATUS is the exit code, or the reply's final line ("ok", "err 10 ...").
 * CMD's own output goes to our stderr. rtt prints "rtt I NS" per request.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int run_exec(long n, char **cmd)
{
	uint64_t t0, t1;
	pid_t pid;
	int st;

	for (long i = 0; i < n; i++) {
		t0 = boot_ns();
		pid = fork();
		if (pid < 0) {
			perror("ctl-lat: fork");
			return 1;
		}
		if (pid == 0) {
			/* Its report goes with our errors, not our data. */
			dup2(2, 1);
			execvp(cmd[0], cmd);
			fprintf(stderr, "ctl-lat: exec %s: %s\n", cmd[0],
				strerror(errno));
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0) {
			perror("ctl-lat: waitpid");
			return 1;
		}
		t1 = boot_ns();
		printf("req %ld %llu %llu %d\n", i, (unsigned long long)t0,
		       (unsigned long long)t1,
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			return 1;
	}
	return 0;
}

/* Reads one reply; its final line ("ok" or "err ...") into last. */
static int reply(FILE *f, char *last, size_t len)
{
	char line[8192];

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ok", 2) || !strncmp(line, "err", 3)) {
			line[strcspn(line, "\n")] = '\0';
			/* Only the start matters: "ok" or "err EXIT ..." */
			memcpy(last, line, len - 1);
			last[len - 1] = '\0';
			return 0;
		}
	}
	fprintf(stderr, "ctl-lat: the daemon closed the connection\n");
	return -1;
}

static int request(int fd, FILE *f, const char *req, char *last, size_t len)
{
	size_t n = strlen(req);

	if (write(fd, req, n) != (ssize_t)n) {
		perror("ctl-lat: write");
		return -1;
	}
	return reply(f, last, len);
}

/* Connected socket to the daemon at path, and a FILE to read replies. */
static int connect_daemon(const char *path, FILE **f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "ctl-lat: connect %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*f = fdopen(dup(fd), "r");
	if (!*f) {
		close(fd);
		return -1;
	}
	return fd;
}

static int run_sock(const char *path, long pid, long n, long qid)
{
	char req[128], last[256];
	uint64_t t0, t1;
	FILE *f;
	int fd;

	fd = connect_daemon(path, &f);
	if (fd < 0)
		return 1;
	snprintf(req, sizeof(req), "attach pid=%ld\n", pid);
	if (request(fd, f, req, last, sizeof(last)))
		return 1;
	if (strcmp(last, "ok")) {
		fprintf(stderr, "ctl-lat: attach pid=%ld: %s\n", pid, last);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		snprintf(req, sizeof(req), "suspend pid=%ld queues=%ld\n",
			 pid, qid);
		t0 = boot_ns();
		if (request(fd, f, req, last, sizeof(last)))
			return 1;
		t1 = boot_ns();
		printf("req %ld %llu %llu %s\n", i, (unsigned long long)t0,
		       (unsigned long long)t1, last);
		snprintf(req, sizeof(req), "resume pid=%ld queues=%ld\n",
			 pid, qid);
		if (request(fd, f, req, last, sizeof(last)))
			return 1;
	}
	snprintf(req, sizeof(req), "detach pid=%ld\n", pid);
	request(fd, f, req, last, sizeof(last));
	fclose(f);
	close(fd);
	return 0;
}

static int run_rtt(const char *path, long n)
{
	char last[256];
	uint64_t t0;
	FILE *f;
	int fd;

	fd = connect_daemon(path, &f);
	if (fd < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		t0 = boot_ns();
		if (request(fd, f, "status\n", last, sizeof(last)))
			return 1;
		printf("rtt %ld %llu %s\n", i,
		       (unsigned long long)(boot_ns() - t0), last);
	}
	fclose(f);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "exec") && !strcmp(argv[3], "--") &&
	    atol(argv[2]) > 0)
		return run_exec(atol(argv[2]), argv + 4);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "sock") &&
	    atol(argv[3]) > 0 && atol(argv[4]) > 0)
		return run_sock(argv[2], atol(argv[3]), atol(argv[4]),
				argc == 6 ? atol(argv[5]) : 7);
	if (argc == 4 && !strcmp(argv[1], "rtt") && atol(argv[3]) > 0)
		return run_rtt(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: ctl-lat exec N -- CMD [ARG...]\n"
		"       ctl-lat sock PATH PID N [QID]\n"
		"       ctl-lat rtt PATH N\n");
	return 2;
}
