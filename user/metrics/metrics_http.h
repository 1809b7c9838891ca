/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The opt-in Prometheus endpoint (--metrics ADDR): a minimal HTTP/1.1
 * server for GET /metrics inside a poll loop (the daemon's and
 * gpreempt-trace's). It never blocks the loop: every socket is
 * non-blocking, a request is read and the reply written across loop
 * rounds (POLLIN/POLLOUT), at most
 * MHTTP_MAX_CONN connections are open (a new one takes the slot of the
 * oldest still waiting for its request, so idle or slow connections
 * cannot shut scrapes out), and a connection older than
 * MHTTP_TIMEOUT_NS is dropped. One request per
 * connection (Connection: close), which is how Prometheus scrapes.
 *
 * Addresses are numeric, with no name lookup (it could block):
 * "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464", "localhost:9464".
 */
#ifndef GP_METRICS_HTTP_H
#define GP_METRICS_HTTP_H

#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"
#include "prom.h"

#define MHTTP_MAX_CONN 8
#define MHTTP_TIMEOUT_NS (5ULL * 1000000000ULL)
#define MHTTP_MAX_REQ 2048

struct mhttp_conn {
	int fd;
	uint64_t deadline;	/* monotonic ns */
	size_t in_len;
	char in[MHTTP_MAX_REQ];
	struct prom_buf out;	/* header + body once rendered */
	size_t out_off;
};

struct mhttp {
	int lfd;
	int n;
	struct mhttp_conn c[MHTTP_MAX_CONN];
	uint64_t scrapes, rejected;	/* rejected: evicted for a newcomer */
};

/* The body of a GET /metrics: append the exposition to b. */
typedef void (*mhttp_render_fn)(void *ctx, struct prom_buf *b);

/* "host:port" -> address. 0, or -EINVAL with a message in e. Pure. */
int mhttp_parse_addr(const char *s, struct sockaddr_storage *ss,
		     socklen_t *len, struct gp_err *e);
/* Bind and listen (non-blocking). 0, or -1 with e (exit 2 bad address,
 * 1 cannot bind: in use, or not allowed). h->lfd is -1 when off. */
int mhttp_listen(struct mhttp *h, const char *addr, struct gp_err *e);
/* The fds to poll: the listener, then each connection. Returns how many
 * were written to p (at most 1 + MHTTP_MAX_CONN); 0 when off. */
int mhttp_pollfds(const struct mhttp *h, struct pollfd *p);
/* Serve what poll reported for the n entries mhttp_pollfds gave. */
void mhttp_service(struct mhttp *h, const struct pollfd *p, int n,
		   uint64_t now, mhttp_render_fn render, void *ctx);
/* Milliseconds until the nearest connection deadline, -1 if none. */
int mhttp_timeout_ms(const struct mhttp *h, uint64_t now);
void mhttp_close(struct mhttp *h);

#endif
