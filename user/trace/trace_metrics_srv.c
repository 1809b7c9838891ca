// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-trace's endpoint in its loop: one poll over the ring buffer's
 * fd and the HTTP sockets (see trace_metrics.h). A scrape reads the BPF
 * maps (a few bpf(2) lookups; none waits) and renders them.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "hist.h"
#include "probe.h"
#include "trace_metrics.h"
#include "util.h"

static void render(void *ctx, struct prom_buf *b)
{
	struct tm_server *s = ctx;
	struct gp_hist_key *keys = NULL;
	struct gp_hist *vals = NULL;
	struct gp_queue_row *rows = NULL;
	struct tm_snap snap = { .unit_ns = s->unit_ns };
	int n;

	snap.have_counts = !gp_probe_counts(s->probe, snap.counts);
	n = gp_hists_read(gp_probe_hists_fd(s->probe), &keys, &vals);
	if (n > 0) {
		snap.hkeys = keys;
		snap.hvals = vals;
		snap.nhist = n;
	}
	n = gp_queues_collect(gp_probe_queues_fd(s->probe), &rows);
	if (n > 0) {
		snap.rows = rows;
		snap.nrows = n;
	}
	snap.lost = gp_probe_stat(s->probe, GP_STAT_LOST);
	snap.hist_full = gp_probe_stat(s->probe, GP_STAT_HIST_FULL);
	snap.queues_full = gp_probe_stat(s->probe, GP_STAT_QUEUES_FULL);
	tm_render(&snap, b);
	free(keys);
	free(vals);
	free(rows);
}

int tm_listen(struct tm_server *s, const char *addr, struct gp_probe *p,
	      uint64_t unit_ns, struct gp_err *e)
{
	s->probe = p;
	s->unit_ns = unit_ns;
	return mhttp_listen(&s->http, addr, e);
}

int tm_wait(struct tm_server *s, int timeout_ms)
{
	struct pollfd fds[2 + MHTTP_MAX_CONN];
	int ring = gp_probe_fd(s->probe), o = ring >= 0, n, t;
	uint64_t now = monotonic_ns();

	if (ring >= 0)
		fds[0] = (struct pollfd){ ring, POLLIN, 0 };
	n = mhttp_pollfds(&s->http, fds + o);
	t = mhttp_timeout_ms(&s->http, now);
	if (t >= 0 && t < timeout_ms)
		timeout_ms = t;
	if (poll(fds, o + n, timeout_ms) < 0) {
		if (errno != EINTR)
			return -errno;
		for (int i = 0; i < o + n; i++)	/* a signal: nothing to serve */
			fds[i].revents = 0;
	}
	mhttp_service(&s->http, fds + o, n, monotonic_ns(), render, s);
	/* batched events wait for this read, as with gp_probe_poll(p, 100) */
	return ring >= 0 ? gp_probe_poll(s->probe, 0) : 0;
}

void tm_close(struct tm_server *s)
{
	if (s->probe)
		mhttp_close(&s->http);
}
