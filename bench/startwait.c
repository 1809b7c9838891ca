// SPDX-License-Identifier: GPL-2.0
/*
 * startwait: start a tracer and time it from exec to "attached", then
 * report its memory. The guest's busybox has no sub-second clock, so the
 * benchmark cannot time this from the shell.
 *
 *   startwait -o OUT (-f FILE | -l TEXT) [-t SECS] -- CMD [ARG...]
 *
 * CMD runs with stdout and stderr sent to OUT. It is "attached" when FILE
 * exists (gpreempt-trace --ready-file) or when OUT contains TEXT (a line
 * bpftrace prints from BEGIN, which it runs after attaching every probe).
 * Prints "PID MS VMRSS_KB VMHWM_KB" and exits 0, leaving CMD running;
 * exits 1 if CMD died or was not ready within SECS (default 120).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int file_has(const char *path, const char *text)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kb = atol(line + len + 1);
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *file = NULL, *text = NULL;
	struct timespec tick = { 0, 1000000 };	/* 1 ms */
	double secs = 120;
	uint64_t t0, deadline;
	pid_t pid;
	int o, fd;

	while ((o = getopt(argc, argv, "+o:f:l:t:")) != -1) {
		switch (o) {
		case 'o': out = optarg; break;
		case 'f': file = optarg; break;
		case 'l': text = optarg; break;
		case 't': secs = atof(optarg); break;
		default: goto usage;
		}
	}
	if (!out || !!file == !!text || optind >= argc || secs <= 0)
		goto usage;
	if (file)
		unlink(file);
	/* Truncated here, not in the child: the poll below must never see
	 * the ready text of an earlier run. */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "startwait: %s: %s\n", out, strerror(errno));
		return 1;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("startwait: fork");
		return 1;
	}
	if (pid == 0) {
		if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		setpgid(0, 0);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "startwait: exec %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	close(fd);
	deadline = t0 + (uint64_t)(secs * 1e9);
	for (;;) {
		if (file ? access(file, F_OK) == 0 : file_has(out, text))
			break;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "startwait: %s exited before it was "
				"ready; its output is in %s\n", argv[optind], out);
			return 1;
		}
		if (now_ns() > deadline) {
			fprintf(stderr, "startwait: %s not ready after %.1f s; "
				"killed; its output is in %s\n", argv[optind],
				secs, out);
			kill(pid, SIGKILL);
			return 1;
		}
		nanosleep(&tick, NULL);
	}
	printf("%d %.1f %ld %ld\n", pid, (now_ns() - t0) / 1e6,
	       status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM"));
	return 0;
usage:
	fprintf(stderr, "usage: startwait -o OUT (-f FILE | -l TEXT) "
		"[-t SECS] -- CMD [ARG...]\n");
	return 2;
}
