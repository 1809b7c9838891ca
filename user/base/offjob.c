// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs off the loop (offjob.h): a refcount (the thread's and the
 * caller's), a done flag that publishes what fn wrote, and the one
 * eventfd that announces each end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "offjob.h"

struct gp_offjob {
	atomic_int refs;
	atomic_bool done;
	uint64_t started;
	void (*fn)(void *arg);
	void (*free_arg)(void *arg);
	void *arg;
};

static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static atomic_int wake_fd = -1;
static int wake_err;

static void wake_open(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	wake_err = fd < 0 ? -errno : 0;
	atomic_store(&wake_fd, fd);
}

int gp_offjob_wakefd(void)
{
	pthread_once(&wake_once, wake_open);
	return wake_err ? wake_err : atomic_load(&wake_fd);
}

uint64_t gp_offjob_drain(void)
{
	int fd = atomic_load(&wake_fd);
	uint64_t n = 0;

	/* EAGAIN: nothing ended since the last read */
	if (fd < 0 || read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

void gp_offjob_put(struct gp_offjob *j)
{
	if (j && atomic_fetch_sub(&j->refs, 1) == 1) {
		if (j->free_arg)
			j->free_arg(j->arg);
		free(j);
	}
}

static void *run(void *p)
{
	struct gp_offjob *j = p;
	uint64_t one = 1;
	int fd;

	j->fn(j->arg);
	atomic_store(&j->done, true);	/* publishes arg's result */
	/* After done: a loop woken by it sees the job done. The add fails
	 * only when the counter is full, and then the fd is readable
	 * already, so its result is not needed. */
	fd = atomic_load(&wake_fd);
	if (fd >= 0) {
		ssize_t n = write(fd, &one, sizeof(one));

		(void)n;
	}
	gp_offjob_put(j);
	return NULL;
}

struct gp_offjob *gp_offjob_start(void (*fn)(void *arg), void *arg,
				  void (*free_arg)(void *arg), uint64_t now,
				  int *err)
{
	struct gp_offjob *j = malloc(sizeof(*j));
	pthread_attr_t at;
	pthread_t th;
	int e = ENOMEM;

	if (j) {
		atomic_init(&j->refs, 2);
		atomic_init(&j->done, false);
		j->started = now;
		j->fn = fn;
		j->free_arg = free_arg;
		j->arg = arg;
		e = pthread_attr_init(&at);
	}
	if (j && !e) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		e = pthread_create(&th, &at, run, j);
		pthread_attr_destroy(&at);
	}
	if (e) {
		if (free_arg)
			free_arg(arg);
		free(j);
		if (err)
			*err = -e;
		return NULL;
	}
	return j;
}

bool gp_offjob_done(const struct gp_offjob *j)
{
	return atomic_load(&((struct gp_offjob *)j)->done);
}

bool gp_offjob_late(const struct gp_offjob *j, uint64_t now,
		    uint64_t deadline_ns)
{
	/* now may predate the start (read before it by the caller) */
	return !gp_offjob_done(j) && now >= j->started &&
	       now - j->started >= deadline_ns;
}

uint64_t gp_offjob_started(const struct gp_offjob *j)
{
	return j->started;
}

void *gp_offjob_arg(const struct gp_offjob *j)
{
	return j->arg;
}
