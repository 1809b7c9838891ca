// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

int parse_dec(const char *t, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!t || !n || n > 20 || (n > 1 && t[0] == '0'))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (t[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (t[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC }, { "m", 60 * NSEC_PER_SEC },
		{ "h", 3600 * NSEC_PER_SEC }, { "", NSEC_PER_SEC },
	};
	uint64_t v;
	size_t i, n;

	if (!s)
		return -EINVAL;
	n = strspn(s, "0123456789");
	/* leading zeros are harmless in a duration ("0500ms") */
	while (n > 1 && s[0] == '0') {
		s++;
		n--;
	}
	if (parse_dec(s, n, UINT64_MAX, &v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + n, units[i].suffix))
			continue;
		/* INT64_MAX: now + d never wraps a monotonic deadline, and
		 * it stays a valid signed time (timespec, timerfd) */
		if (v > GP_DURATION_MAX_NS / units[i].mult)
			return -EINVAL;
		*ns = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!s || parse_dec(s, strlen(s), UINT32_MAX, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int parse_pid(const char *s, int *pid)
{
	uint64_t v;

	if (!s || parse_dec(s, strlen(s), INT_MAX, &v) || v == 0)
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= NSEC_PER_SEC)
		snprintf(buf, len, "%llu.%03llu s",
			 (unsigned long long)(ns / NSEC_PER_SEC),
			 (unsigned long long)(ns / NSEC_PER_MSEC % 1000));
	else
		snprintf(buf, len, "%llu.%03llu ms",
			 (unsigned long long)(ns / NSEC_PER_MSEC),
			 (unsigned long long)(ns / NSEC_PER_USEC % 1000));
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int gp_reserve(void *vp, size_t *cap, size_t n, size_t size)
{
	void **v = vp;
	size_t c = *cap ? 2 * *cap : 8;
	void *nv;

	if (n < *cap)
		return 0;
	if (c <= n || c > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int gp_dir_ids(const char *dir, int **ids)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	uint64_t id;
	int *v = NULL;
	DIR *d;

	*ids = NULL;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		/* skips ".", "self", "context_N", "01" */
		if (parse_dec(de->d_name, strlen(de->d_name), INT32_MAX, &id))
			continue;
		if (gp_reserve(&v, &cap, n, sizeof(*v))) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (int)id;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_int);
	*ids = v;
	return (int)n;
}

bool gp_fd_is_null(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

int gp_drop_ctty(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int fd, err = 0;

	/* ENXIO: no controlling terminal, nothing to drop */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	sigaction(SIGHUP, &ign, &old);
	if (ioctl(fd, TIOCNOTTY) < 0)
		err = -errno;
	sigaction(SIGHUP, &old, NULL);
	close(fd);
	return err;
}
