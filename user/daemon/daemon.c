// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl daemon`: start-up, the poll loop and shutdown. See
 * daemon.h for the design and the other files.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bk_cuda.h"
#include "bk_kfd.h"
#include "daemon_int.h"
#include "daemon_privs.h"
#include "exitcodes.h"
#include "notify.h"
#include "pidfile.h"
#include "util.h"

/* Poll timeout: the safety net for a SIGCHLD folded into another. */
#define TICK_MS 1000

/* The --metrics body: the daemon's families, then the modules'. */
static void render_metrics(void *ctx, struct prom_buf *b)
{
	struct daemon *d = ctx;

	daemon_metrics_render(d, b);
	dmod_metrics(d, b);
}

/* Returns the signal that ended the loop. */
static int loop(struct daemon *d)
{
	struct pollfd p[5 + PROTO_MAX_SESSIONS + DAEMON_MAX_CLIENTS + 1 +
			MHTTP_MAX_CONN + DAEMON_MAX_IO];
	struct signalfd_siginfo si;
	uint32_t i, nt, nc;
	uint64_t ticks, now, next_tick = 0;
	bool chld;
	int n, r, nm, nio, timeout, wait, tl;

	for (;;) {
		/* first, so a reply it makes is polled for below */
		wait = daemon_waiting(d, monotonic_ns());
		n = 0;
		p[n++] = (struct pollfd){ d->sfd, POLLIN, 0 };
		p[n++] = (struct pollfd){ d->tfd, POLLIN, 0 };
		p[n++] = (struct pollfd){ d->lfd, POLLIN, 0 };
		nt = d->n_t;
		for (i = 0; i < nt; i++)
			p[n++] = (struct pollfd){
				gp_bk_event_fd(d->t[i].p), POLLIN, 0 };
		nc = d->n_c;
		for (i = 0; i < nc; i++)
			/* no new request before the last reply left */
			p[n++] = (struct pollfd){ d->c[i]->fd,
				d->c[i]->waiting || d->c[i]->deferred ? 0 :
				d->c[i]->out_len ?
				POLLOUT : POLLIN, 0 };
		/* the tenant socket (-1 when off: poll skips it) */
		tl = n;
		p[n++] = (struct pollfd){ d->tlfd, POLLIN, 0 };
		/* the log, when lines wait (last: the indices above hold) */
		p[n++] = (struct pollfd){ dlog_fd(), POLLOUT, 0 };
		/* then the metrics endpoint's fds (metrics_http.h) */
		nm = mhttp_pollfds(&d->http, p + n);
		/* and the modules' fds (daemon_io_add) */
		nio = d->n_io;
		for (i = 0; i < (uint32_t)nio; i++)
			p[n + nm + i] = (struct pollfd){ d->io[i].fd, POLLIN, 0 };
		timeout = mhttp_timeout_ms(&d->http, monotonic_ns());
		if (wait >= 0 && (timeout < 0 || wait < timeout))
			timeout = wait;
		timeout = timeout >= 0 && timeout < TICK_MS ? timeout : TICK_MS;
		r = poll(p, n + nm + nio, timeout);
		if (r < 0 && errno != EINTR) {
			dlog_at(LOG_ERR, "poll: %s", strerror(errno));
			return SIGTERM;
		}
		chld = false;
		while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				daemon_reload(d);	/* holds kept */
				continue;
			}
			if (session_signal_ends_hold(si.ssi_signo))
				return si.ssi_signo;
			if (si.ssi_signo == SIGCHLD)
				chld = true;
			else
				dlog("%s ignored: a stopped daemon could not "
				     "end its holds", strsignal(si.ssi_signo));
		}
		/* SIGCHLDs merge, and KFD writes the pipe byte after the
		 * event is visible: the tick looks at every target */
		if (p[n - 1].revents)
			dlog_flush();
		now = monotonic_ns();
		targets_service(d, p + 3, nt, chld || now >= next_tick);
		if (now >= next_tick) {
			next_tick = now + TICK_MS * NSEC_PER_MSEC;
			clients_expire(d, now);
		}
		if (r > 0 && p[1].revents)
			while (read(d->tfd, &ticks, sizeof(ticks)) > 0)
				;
		targets_watchdog(d);
		/* (a reload above may have changed the table: by fd) */
		for (i = 0; r > 0 && i < (uint32_t)nio; i++)
			if (p[n + nm + i].revents && i < d->n_io &&
			    d->io[i].fd == p[n + nm + i].fd)
				d->io[i].cb(d, d->io[i].ud);
		dmod_tick(d);
		/* a runtime enabled above, or a wait over */
		daemon_waiting(d, monotonic_ns());
		/* clients polled this round, last first: closing one moves
		 * the last into its slot. The expiry above may have closed
		 * some already (moves too): an event is served only where
		 * its connection still is, the others' wait for the next
		 * poll (level-triggered) */
		for (i = nc; i-- > 0;)
			if (i < d->n_c && d->c[i]->fd == p[3 + nt + i].fd)
				client_event(d, i, p[3 + nt + i].revents);
		if (p[2].revents & POLLIN)
			client_accept(d, d->lfd, false);
		/* (a reload may have moved the tenant socket: by fd) */
		if ((p[tl].revents & POLLIN) && p[tl].fd == d->tlfd)
			client_accept(d, d->tlfd, true);
		mhttp_service(&d->http, p + n, nm, monotonic_ns(),
			      render_metrics, d);
		targets_arm_watchdog(d);
	}
}

/* One line per feature this process's privileges disable. */
static void log_privileges(void)
{
	char lines[PRIVS_MAX_LINES][PRIVS_LINE];
	struct privs p;
	int i, n;

	privs_probe(&p);
	n = privs_disabled(&p, lines);
	for (i = 0; i < n; i++)
		dlog_at(LOG_NOTICE, "%s", lines[i]);
}

static void cuda_log(void *ctx, const char *line)
{
	dlog("cuda %s", line);
}

/*
 * The CUDA backend where libcuda.so.1 loads (--no-cuda: never): first
 * unlock what a daemon that died left journaled, then fork the guardian
 * (before any thread and any descriptor it must not keep). A machine
 * without NVIDIA's driver runs KFD alone.
 */
static int start_cuda(struct daemon *d, struct gp_err *e)
{
	struct gp_bk_cuda_conf conf = {
		.journal = d->o->cuda_journal,
		.lock_timeout_ms = d->o->cuda_lock_timeout_ns / 1000000,
	};
	struct gp_backend *b;
	struct gp_err ce = {};

	if (d->o->no_cuda || d->bk.n >= GP_BK_MAX)
		return 0;
	b = gp_bk_cuda_new(&conf);
	if (!b)
		return gp_err_set(e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
	if (gp_bk_open(b, &ce)) {
		if (d->o->verbose || d->o->cuda_journal ||
		    d->o->cuda_lock_timeout_ns)
			dlog("CUDA backend off: %s", ce.msg);
		gp_bk_cuda_destroy(b);
		return 0;
	}
	d->bk.b[d->bk.n++] = b;
	if (gp_bk_cuda_start(b, true, cuda_log, d, e))
		return -1;
	dlog("CUDA backend on (driver %d, lock timeout %u ms, journal %s): "
	     "a lock outlives its holder, a guardian unlocks if this daemon "
	     "dies", gp_bk_cuda_version(b), gp_bk_cuda_lock_timeout_ms(b),
	     gp_bk_cuda_journal(b));
	return 0;
}

/* Signals, timer, socket, ready file: 0 or -1 with e. */
static int start(struct daemon *d, sigset_t *old, bool *blocked,
		 struct gp_err *e)
{
	char hold[32];
	int err;

	if (dsock_resolve_group(d, e))
		return -1;
	if (dlog_open())
		return gp_err_set(e, GP_EXIT_FAILURE, errno, "cannot set up the "
				  "log on stderr: %s", strerror(errno));
	/* no terminal of ours for a tenant's path to make ours (util.h);
	 * before the signals are blocked: no SIGHUP left to read as reload */
	err = gp_drop_ctty();
	if (err)
		dlog("cannot give up the controlling terminal: %s",
		     strerror(-err));
	if (start_cuda(d, e))
		return -1;
	/* signals first: a SIGTERM during start-up still cleans up */
	d->sfd = session_signalfd(old);
	if (d->sfd < 0)
		return gp_err_set(e, GP_EXIT_FAILURE, -d->sfd, "signalfd: %s",
				  strerror(-d->sfd));
	*blocked = true;
	signal(SIGPIPE, SIG_IGN);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->tfd < 0)
		return gp_err_set(e, GP_EXIT_FAILURE, errno, "timerfd: %s",
				  strerror(errno));
	if (d->o->metrics) {
		if (mhttp_listen(&d->http, d->o->metrics, e))
			return -1;
		daemon_metrics_start();
	}
	if (dsock_open(d, e) || dtenant_start(d, e) || dmod_start(d, e))
		return -1;
	fmt_ns(hold, sizeof(hold), d->max_hold_ns);
	dlog("listening on %s (%s; --max-hold %s; %s)", d->path,
	     d->has_group ? "root and the group, 0660" : "root only, 0600",
	     hold, access(KFD_DEV_PATH, F_OK) ? "no " KFD_DEV_PATH " yet" :
	     KFD_DEV_PATH " present");
	log_privileges();
	if (d->o->metrics)
		dlog("metrics on http://%s/metrics", d->o->metrics);
	if (d->o->ready && pidfile_write(d->o->ready))
		return gp_err_set(e, GP_EXIT_FAILURE, errno, "cannot write the "
				  "ready file %s: %s", d->o->ready,
				  strerror(errno));
	/* systemd Type=notify: ready once clients can connect */
	notify_send("READY=1\nSTATUS=listening");
	return 0;
}

int daemon_main(const struct daemon_opts *o)
{
	struct daemon d = { .cur = *o, .lfd = -1, .sfd = -1, .tfd = -1,
			    .tlfd = -1,
			    .kfd = { .fd = -1 }, .http = { .lfd = -1 } };
	struct gp_err e = {};
	sigset_t old;
	int ret = GP_EXIT_OK;
	bool blocked = false;

	d.o = &d.cur;
	d.path = o->socket ? o->socket : PROTO_DEFAULT_SOCKET;
	d.max_hold_ns = o->max_hold_ns ? o->max_hold_ns :
			DAEMON_DEFAULT_MAX_HOLD_NS;
	d.idle_ns = o->idle_ns ? o->idle_ns : DAEMON_IDLE_NS;
	/* the backends, in claim order: KFD first (its errors are the
	 * default answer for a process no backend claims) */
	d.bk.b[d.bk.n] = gp_bk_kfd_new(&d.kfd);
	if (d.bk.b[d.bk.n])
		d.bk.n++;
	if (!d.bk.n) {
		gp_err_set(&e, GP_EXIT_FAILURE, ENOMEM, "out of memory");
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);
		return GP_EXIT_FAILURE;
	}
	if (start(&d, &old, &blocked, &e)) {
		fprintf(stderr, "%sgpreempt-ctl: %s\n", dlog_prefix(LOG_ERR), e.msg);
		ret = e.exit ? e.exit : GP_EXIT_FAILURE;
	} else {
		int sig = loop(&d);

		notify_send("STOPPING=1");
		targets_shutdown(&d, sig);
	}
	dmod_stop(&d);	/* each NULL-safe: start() may have failed first */
	mhttp_close(&d.http);
	while (d.n_c)
		client_close(&d, d.n_c - 1);
	dtenant_stop(&d);
	if (d.lfd >= 0) {
		dsock_remove(&d);
		close(d.lfd);
		if (ret == GP_EXIT_OK)
			dlog("removed %s; bye", d.path);
	}
	if (o->ready && d.lfd >= 0)
		unlink(o->ready);
	if (d.tfd >= 0)
		close(d.tfd);
	if (d.sfd >= 0)
		close(d.sfd);
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	gp_bk_set_close(&d.bk);
	gp_bk_kfd_destroy(d.bk.b[0]);
	if (d.bk.n > 1)
		gp_bk_cuda_destroy(d.bk.b[1]);
	if (d.kfd.fd >= 0)
		kfd_close(&d.kfd);
	dlog_close();
	return ret;
}
