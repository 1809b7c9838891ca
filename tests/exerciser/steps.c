// SPDX-License-Identifier: GPL-2.0
/*
 * kfd-exerciser steps: each runs one ioctl (or wait, sleep, ...) and
 * prints its JSON line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ex.h"

const char *ex_kfd_path = "/dev/kfd";
static int kfd = -1;
static int ev_pipe[2] = { -1, -1 };
static uint32_t last_qid;
static bool have_qid;

/* Open the device once; on failure print why and exit 1. */
static int kfd_open(void)
{
	uint64_t t0 = now_ns();
	bool reused = kfd >= 0;
	struct ioc r = { 0 };
	struct jl j;

	if (!reused) {
		kfd = open(ex_kfd_path, O_RDWR | O_CLOEXEC);
		r.err = kfd < 0 ? errno : 0;
	}
	r.ns = now_ns() - t0;
	r.ret = kfd;
	jl_begin(&j, "open");
	jl_str(&j, "path", ex_kfd_path);
	jl_ioc(&j, &r);
	if (reused)
		jl_bool(&j, "reused", true);
	/*
	 * The JSON line is the whole report: tests capture 2>&1 and feed
	 * it to jq, so no prose on stderr here.
	 */
	jl_end(&j, kfd < 0);
	if (kfd < 0)
		exit(EX_NO_KFD);
	return kfd;
}

static int need_kfd(void)
{
	return kfd >= 0 ? kfd : kfd_open();
}

static void do_version(void)
{
	struct kfd_ioctl_get_version_args a = { 0 };
	struct ioc r;
	struct jl j;

	kfd_call(need_kfd(), AMDKFD_IOC_GET_VERSION, &a, &r, "version");
	jl_begin(&j, "version");
	jl_ioc(&j, &r);
	jl_int(&j, "major", a.major_version);
	jl_int(&j, "minor", a.minor_version);
	jl_end(&j, false);
}

static char r_debug_area[64];

static void do_runtime(const struct step *st, bool enable)
{
	struct kfd_ioctl_runtime_enable_args a = { 0 };
	struct ioc r;
	struct jl j;

	if (enable) {
		a.r_debug = st->r_debug_set ? st->r_debug :
			    (uintptr_t)r_debug_area;
		a.mode_mask = st->mode;
	}
	kfd_call(need_kfd(), AMDKFD_IOC_RUNTIME_ENABLE, &a, &r,
		 enable ? "runtime-enable" : "runtime-disable");
	jl_begin(&j, enable ? "runtime-enable" : "runtime-disable");
	jl_ioc(&j, &r);
	jl_hex(&j, "r_debug", a.r_debug);
	jl_int(&j, "mode", a.mode_mask);
	jl_hex(&j, "capabilities", a.capabilities_mask);
	jl_end(&j, false);
}

/*
 * KFD only checks that these are user addresses before it looks the
 * gpu_id up; with a real GPU, 6.12 also wants them in GPU-mapped BOs and
 * refuses plain malloc'd memory, which is fine for an exerciser.
 */
#define RING_MAX (1u << 20)
static void *ring_buf;
static uint64_t *ptr_page;

static void do_create(const struct step *st)
{
	struct kfd_ioctl_create_queue_args a;
	struct ioc r;
	struct jl j;

	if (!ring_buf &&
	    (posix_memalign(&ring_buf, 4096, RING_MAX) ||
	     posix_memalign((void **)&ptr_page, 4096, 4096))) {
		fprintf(stderr, "kfd-exerciser: out of memory\n");
		exit(EX_NO_KFD);
	}
	memset(&a, 0, sizeof(a));
	a.ring_base_address = (uintptr_t)ring_buf;
	a.read_pointer_address = (uintptr_t)&ptr_page[0];
	a.write_pointer_address = (uintptr_t)&ptr_page[1];
	a.ring_size = st->ring;
	a.gpu_id = st->gpu;
	a.queue_type = st->type;
	a.queue_percentage = st->pct;
	a.queue_priority = st->prio;
	a.sdma_engine_id = st->sdma;
	kfd_call(need_kfd(), AMDKFD_IOC_CREATE_QUEUE, &a, &r, "create");
	if (r.ret == 0) {
		last_qid = a.queue_id;
		have_qid = true;
	}
	jl_begin(&j, "create");
	jl_ioc(&j, &r);
	jl_hex(&j, "gpu_id", st->gpu);
	jl_int(&j, "type", st->type);
	jl_int(&j, "prio", st->prio);
	jl_int(&j, "pct", st->pct);
	jl_int(&j, "ring_size", st->ring);
	jl_int(&j, "sdma", st->sdma);
	jl_int(&j, "queue_id", a.queue_id);
	jl_hex(&j, "doorbell_offset", a.doorbell_offset);
	jl_hex(&j, "ring_base", a.ring_base_address);
	jl_end(&j, false);
}

static void do_destroy(const struct step *st)
{
	struct kfd_ioctl_destroy_queue_args a = { 0 };
	struct ioc r;
	struct jl j;

	a.queue_id = st->qid_set ? st->qid : have_qid ? last_qid : 0;
	kfd_call(need_kfd(), AMDKFD_IOC_DESTROY_QUEUE, &a, &r, "destroy");
	jl_begin(&j, "destroy");
	jl_ioc(&j, &r);
	jl_int(&j, "qid", a.queue_id);
	jl_end(&j, false);
}

static void do_close(void)
{
	struct jl j;
	int ret = 0;

	if (kfd >= 0)
		ret = close(kfd);
	jl_begin(&j, "close");
	jl_int(&j, "ret", ret);
	jl_bool(&j, "was_open", kfd >= 0);
	jl_end(&j, false);
	kfd = -1;
}

static void do_sleep(long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct jl j;

	/* Signals interrupt the sleep: print them, sleep on. */
	while (nanosleep(&ts, &ts) && errno == EINTR && !ex_stop)
		sig_drain();
	jl_begin(&j, "sleep");
	jl_int(&j, "ms", ms);
	jl_end(&j, false);
}

static void do_ready(const char *file)
{
	char tmp[4096], pid[32];
	struct jl j;
	int fd, n;

	jl_begin(&j, "ready");
	jl_int(&j, "pid", getpid());
	if (file)
		jl_str(&j, "file", file);
	jl_end(&j, true);
	if (!file)
		return;
	/* Written then renamed: a reader never sees an empty file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", file, getpid());
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, pid, n) != n || close(fd) ||
	    rename(tmp, file))
		fprintf(stderr, "kfd-exerciser: cannot write ready file %s: "
			"%s\n", file, strerror(errno));
}

/*
 * Only a pipe or socket on stdin counts for EOF: a shell gives background
 * jobs /dev/null, which would end the wait at once.
 */
static void do_wait(long long ms)
{
	uint64_t end = ms >= 0 ? now_ns() + ms * 1000000ull : 0;
	struct pollfd p[2] = {
		{ .fd = sig_fd(), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	const char *why = "timeout";
	struct stat sb;
	uint64_t now;
	char buf[256];
	int tmo, ret;
	struct jl j;

	if (!fstat(0, &sb) && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
		p[1].fd = 0;
	for (;;) {
		sig_drain();
		if (ex_stop) {
			why = "signal";
			break;
		}
		tmo = -1;
		if (ms >= 0) {
			now = now_ns();
			if (now >= end)
				break;
			tmo = (end - now) / 1000000;	/* < INT32_MAX */
			tmo += tmo < INT32_MAX;
		}
		ret = poll(p, 2, tmo);
		if (ret < 0 && errno != EINTR) {
			why = "error";
			break;
		}
		if (ret > 0 && p[1].revents) {
			if (read(0, buf, sizeof(buf)) <= 0) {
				why = "eof";
				break;
			}
		}
	}
	jl_begin(&j, "wait");
	jl_str(&j, "reason", why);
	jl_end(&j, false);
}

static void do_dbg(struct step *st)
{
	struct dbg_req q = st->dbg;
	struct ioc r;

	if (q.op == KFD_IOC_DBG_TRAP_ENABLE && !st->fd_set) {
		if (ev_pipe[1] < 0 && pipe2(ev_pipe, O_NONBLOCK | O_CLOEXEC))
			ev_pipe[0] = ev_pipe[1] = -1;
		q.dbg_fd = ev_pipe[1];
	}
	dbg_call(need_kfd(), &q, &r, NULL);
}

static void do_poll(long long ms)
{
	if (ev_pipe[0] < 0 && pipe2(ev_pipe, O_NONBLOCK | O_CLOEXEC))
		ev_pipe[0] = ev_pipe[1] = -1;
	ex_poll_event(ev_pipe[0], ms);
}

void run_step(struct step *st)
{
	switch (st->kind) {
	case ST_OPEN:
		kfd_open();
		break;
	case ST_CLOSE:
		do_close();
		break;
	case ST_VERSION:
		do_version();
		break;
	case ST_RT_ENABLE:
		do_runtime(st, true);
		break;
	case ST_RT_DISABLE:
		do_runtime(st, false);
		break;
	case ST_CREATE:
		do_create(st);
		break;
	case ST_DESTROY:
		do_destroy(st);
		break;
	case ST_SLEEP:
		do_sleep(st->ms);
		break;
	case ST_READY:
		do_ready(st->file);
		break;
	case ST_WAIT:
		do_wait(st->ms);
		break;
	case ST_SEIZE:
		ex_seize(st->dbg.pid);
		break;
	case ST_DBG:
		do_dbg(st);
		break;
	case ST_POLL:
		do_poll(st->ms);
		break;
	case ST_DEBUG_TARGET:
		debug_target(need_kfd(), ex_kfd_path, &st->dt);
		break;
	case ST_EVENTS:
		ex_events(need_kfd(), st->set, st->ms);
		break;
	case ST_UCONNECT:
		if (st->file)
			ex_uconnect(st->file);
		break;
	}
	ex_stats.steps++;
}

