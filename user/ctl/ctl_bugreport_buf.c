// SPDX-License-Identifier: GPL-2.0
/*
 * The members of a `gpreempt-ctl bugreport` archive (ctl_bugreport_buf.h):
 * bounded text buffers, a file or a child's output read into one under a
 * deadline, and the redaction of command lines. The collectors
 * (ctl_bugreport_sys.c) and the verb (ctl_bugreport.c) sit above it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_bugreport_buf.h"

#define BR_ITEM_MAX	(4u << 20)	/* bytes kept of one item */
#define BR_CMD_MS	30000		/* a child's deadline */
#define BR_MAX_ITEMS	(BR_TOPO_FILES + 32)

static struct br_item {
	char name[256];
	struct br_buf b;
} *items;
static size_t n_items;
struct br_buf br_cmdlines;	/* NUL-separated, for --redact */

void br_printf(struct br_buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[1024];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		br_append(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n :
			  sizeof(tmp) - 1);
}

void br_append(struct br_buf *b, const void *p, size_t n)
{
	char *q;

	if (b->len + n > BR_ITEM_MAX)
		n = BR_ITEM_MAX - b->len;
	if (!n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;

		q = realloc(b->p, cap);
		if (!q)
			return;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

int br_file(struct br_buf *b, const char *path, size_t max)
{
	char tmp[4096];
	size_t got = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	while (got < max && (n = read(fd, tmp, sizeof(tmp) < max - got ?
				       sizeof(tmp) : max - got)) > 0) {
		br_append(b, tmp, (size_t)n);
		got += (size_t)n;
	}
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

size_t br_n_items(void)
{
	return n_items;
}

struct br_buf *br_item(const char *name)
{
	struct br_item *it;

	if (n_items == BR_MAX_ITEMS || strlen(name) >= sizeof(it->name))
		return NULL;
	it = &items[n_items++];
	memcpy(it->name, name, strlen(name) + 1);
	return &it->b;
}

int br_run(struct br_buf *b, char *const argv[])
{
	struct timespec t0, t;
	int p[2], st = 0, ms;
	char tmp[4096];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = BR_CMD_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				       (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0 || poll(&pf, 1, ms) <= 0) {
			kill(pid, SIGKILL);
			br_printf(b, "\n[killed after %d s]\n", BR_CMD_MS / 1000);
			break;
		}
		n = read(p[0], tmp, sizeof(tmp));
		if (n <= 0)
			break;
		br_append(b, tmp, (size_t)n);
	}
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int br_items_alloc(void)
{
	items = calloc(BR_MAX_ITEMS, sizeof(*items));
	return items ? 0 : -1;
}

const char *br_item_name(size_t i)
{
	return items[i].name;
}

const struct br_buf *br_item_buf(size_t i)
{
	return &items[i].b;
}

void br_items_free(void)
{
	size_t i;

	for (i = 0; i < n_items; i++)
		free(items[i].b.p);
	free(items);
	items = NULL;
	n_items = 0;
	free(br_cmdlines.p);
	br_cmdlines = (struct br_buf){};
}

/* Every whole command line from processes.txt, in every item. */
void br_redact(void)
{
	size_t i, off, n;
	char *hit;

	for (off = 0; off < br_cmdlines.len; off += n + 1) {
		const char *c = br_cmdlines.p + off;

		n = strlen(c);
		if (n < 8)	/* too short to be told from other text */
			continue;
		for (i = 0; i < n_items; i++) {
			struct br_buf *b = &items[i].b;

			while (b->p && (hit = memmem(b->p, b->len, c, n)))
				memset(hit, '*', n);
		}
	}
}
