// SPDX-License-Identifier: GPL-2.0
/*
 * kfd-exerciser output: one JSON object per line on stdout, flushed at
 * once so a test (or a parent and a forked child) interleave whole lines.
 * Also the EINTR-retrying ioctl wrapper and the signal self-pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ex.h"
#include "../lib/sigpipe.h"

bool ex_quiet;
long ex_iter = -1;
struct ex_stats ex_stats;
volatile sig_atomic_t ex_stop;


uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void jl_add(struct jl *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (j->len >= sizeof(j->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(j->buf + j->len, sizeof(j->buf) - j->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		j->len += n;
}

static void jl_key(struct jl *j, const char *key)
{
	jl_add(j, ",\"%s\":", key);
}

void jl_begin(struct jl *j, const char *step)
{
	j->len = 0;
	jl_add(j, "{\"step\":\"%s\"", step);
	if (ex_iter >= 0)
		jl_add(j, ",\"iter\":%ld", ex_iter);
}

void jl_int(struct jl *j, const char *key, long long v)
{
	jl_key(j, key);
	jl_add(j, "%lld", v);
}

void jl_hex(struct jl *j, const char *key, unsigned long long v)
{
	jl_key(j, key);
	jl_add(j, "\"0x%llx\"", v);
}

void jl_str(struct jl *j, const char *key, const char *v)
{
	const unsigned char *p;

	jl_key(j, key);
	jl_add(j, "\"");
	for (p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			jl_add(j, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			jl_add(j, "\\u%04x", *p);
		else
			jl_add(j, "%c", *p);
	}
	jl_add(j, "\"");
}

void jl_bool(struct jl *j, const char *key, bool v)
{
	jl_key(j, key);
	jl_add(j, v ? "true" : "false");
}

void jl_hex_array(struct jl *j, const char *key, const uint32_t *v, int n)
{
	int i;

	jl_key(j, key);
	jl_add(j, "[");
	for (i = 0; i < n; i++)
		jl_add(j, "%s\"0x%x\"", i ? "," : "", v[i]);
	jl_add(j, "]");
}

void jl_ioc(struct jl *j, const struct ioc *r)
{
	jl_int(j, "ret", r->ret);
	jl_int(j, "errno", r->err);
	if (r->err)
		jl_str(j, "err", strerrorname_np(r->err) ?: "?");
	jl_int(j, "duration_ns", (long long)r->ns);
}

void jl_end(struct jl *j, bool always)
{
	if (ex_quiet && !always)
		return;
	printf("%.*s}\n", (int)j->len, j->buf);
	fflush(stdout);
}

/*
 * ROCr and ROCdbgapi retry KFD ioctls on EINTR; so do we, unless the user
 * asked us to stop (a blocked RUNTIME_ENABLE must not outlive SIGTERM).
 */
/* Per-call totals for benchmarks; a handful of names, linear search. */
struct op_stat {
	char name[32];
	unsigned long long n, errors, ns, min_ns, max_ns;
};

static struct op_stat op_stats[32];
static int nr_op_stats;

static void op_account(const char *what, const struct ioc *r)
{
	struct op_stat *s;
	int i;

	for (i = 0; i < nr_op_stats; i++)
		if (!strcmp(op_stats[i].name, what))
			break;
	if (i == nr_op_stats) {
		if (i == (int)(sizeof(op_stats) / sizeof(op_stats[0])))
			return;
		snprintf(op_stats[i].name, sizeof(op_stats[i].name), "%s",
			 what);
		op_stats[i].min_ns = UINT64_MAX;
		nr_op_stats++;
	}
	s = &op_stats[i];
	s->n++;
	s->errors += r->ret == -1;
	s->ns += r->ns;
	if (r->ns < s->min_ns)
		s->min_ns = r->ns;
	if (r->ns > s->max_ns)
		s->max_ns = r->ns;
}

void jl_ops(struct jl *j)
{
	const struct op_stat *s;
	int i;

	jl_key(j, "ops");
	jl_add(j, "{");
	for (i = 0; i < nr_op_stats; i++) {
		s = &op_stats[i];
		jl_add(j, "%s\"%s\":{\"n\":%llu,\"errors\":%llu,\"ns\":%llu,"
		       "\"min_ns\":%llu,\"max_ns\":%llu}", i ? "," : "",
		       s->name, s->n, s->errors, s->ns, s->min_ns, s->max_ns);
	}
	jl_add(j, "}");
}

int kfd_call(int fd, unsigned long req, void *arg, struct ioc *r,
	     const char *what)
{
	uint64_t t0 = now_ns();
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR && !ex_stop);
	r->ns = now_ns() - t0;
	r->ret = ret;
	r->err = ret == -1 ? errno : 0;
	ex_stats.ioctls++;
	ex_stats.ioctl_ns += r->ns;
	if (ret == -1)
		ex_stats.errors++;
	op_account(what, r);
	return ret;
}

void sig_setup(void)
{
	sigpipe_setup(&ex_stop);
}

int sig_fd(void)
{
	return sigpipe_fd();
}

/* Print {"step":"signal","sig":N,"name":"SIGUSR1"} per signal received. */
void sig_drain(void)
{
	struct jl j;
	char name[32];
	int sig;

	while ((sig = sigpipe_next())) {
		jl_begin(&j, "signal");
		jl_int(&j, "sig", sig);
		snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(sig) ?: "?");
		jl_str(&j, "name", name);
		jl_end(&j, true);
	}
}
