// SPDX-License-Identifier: GPL-2.0
/* The Prometheus endpoint, non-blocking (see metrics_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "metrics_http.h"

int mhttp_parse_addr(const char *s, struct sockaddr_storage *ss,
		     socklen_t *len, struct gp_err *e)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[64];
	const char *colon, *h = s, *hend;
	char *end;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		hend = strchr(s, ']');
		if (!hend || hend[1] != ':')
			goto bad;
		h = s + 1;
		colon = hend + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			goto bad;
		hend = colon;
	}
	if (hend - h <= 0 || (size_t)(hend - h) >= sizeof(host))
		goto bad;
	memcpy(host, h, hend - h);
	host[hend - h] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port == 0 || port > 65535)
		goto bad;
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (*s != '[' && inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
		return 0;
	}
	if (*s == '[' && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
bad:
	gp_err_set(e, GP_EXIT_USAGE, EINVAL, "bad metrics address '%s': want "
		   "IP:PORT, [IPv6]:PORT or localhost:PORT (e.g. "
		   "127.0.0.1:9464; no host names: a lookup could block)", s);
	return -EINVAL;
}

int mhttp_listen(struct mhttp *h, const char *addr, struct gp_err *e)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	memset(h, 0, sizeof(*h));
	h->lfd = -1;
	if (mhttp_parse_addr(addr, &ss, &len, e))
		return -1;
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (h->lfd < 0)
		return gp_err_set(e, GP_EXIT_FAILURE, errno, "metrics socket: %s",
				  strerror(errno));
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->lfd, (struct sockaddr *)&ss, len) ||
	    listen(h->lfd, MHTTP_MAX_CONN)) {
		int err = errno;

		close(h->lfd);
		h->lfd = -1;
		return gp_err_set(e, GP_EXIT_FAILURE, err, "cannot listen for "
				  "metrics on %s: %s%s", addr, strerror(err),
				  err == EADDRINUSE ? " (pick another port "
				  "with --metrics)" : "");
	}
	return 0;
}

int mhttp_pollfds(const struct mhttp *h, struct pollfd *p)
{
	int n = 0;

	if (h->lfd < 0)
		return 0;
	p[n++] = (struct pollfd){ h->lfd, POLLIN, 0 };
	for (int i = 0; i < h->n; i++)
		p[n++] = (struct pollfd){ h->c[i].fd,
			h->c[i].out.len ? POLLOUT : POLLIN, 0 };
	return n;
}

static void conn_close(struct mhttp *h, int i)
{
	close(h->c[i].fd);
	prom_free(&h->c[i].out);
	h->c[i] = h->c[--h->n];
	memset(&h->c[h->n], 0, sizeof(h->c[h->n]));
}

static void respond(struct mhttp_conn *c, const char *status,
		    const struct prom_buf *body)
{
	char head[256], msg[96];
	const char *text = msg;
	size_t blen;
	char *p;
	int n;

	if (body) {
		text = body->p;
		blen = body->len;
	} else {
		blen = snprintf(msg, sizeof(msg), "%s\n", status);
	}
	n = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n", status,
		     body ? "text/plain; version=0.0.4; charset=utf-8" :
		     "text/plain; charset=utf-8", blen);
	/* header and body in one buffer: one write in the common case */
	p = malloc(n + blen);
	if (!p) {
		c->out.oom = true;
		return;
	}
	memcpy(p, head, n);
	if (blen)
		memcpy(p + n, text, blen);
	prom_free(&c->out);
	c->out = (struct prom_buf){ .p = p, .len = n + blen, .cap = n + blen };
	c->out_off = 0;
}

/* 1 once a whole request head is in, 0 if more is needed, -1 too big. */
static int request(struct mhttp *h, struct mhttp_conn *c,
		   mhttp_render_fn render, void *ctx)
{
	struct prom_buf body = {0};
	char *eol;

	c->in[c->in_len] = '\0';
	if (!strstr(c->in, "\r\n\r\n") && !strstr(c->in, "\n\n")) {
		if (c->in_len >= MHTTP_MAX_REQ - 1) {
			respond(c, "431 Request Header Fields Too Large", NULL);
			return -1;
		}
		return 0;
	}
	eol = strpbrk(c->in, "\r\n");
	*eol = '\0';
	if (strncmp(c->in, "GET ", 4)) {
		respond(c, "405 Method Not Allowed", NULL);
		return 1;
	}
	if (strncmp(c->in + 4, "/metrics ", 9) &&
	    strncmp(c->in + 4, "/metrics?", 9)) {
		respond(c, "404 Not Found", NULL);
		return 1;
	}
	render(ctx, &body);
	if (body.oom)
		respond(c, "500 Internal Server Error", NULL);
	else
		respond(c, "200 OK", &body);
	prom_free(&body);
	h->scrapes++;
	return 1;
}

/*
 * The slot a new connection takes when all are open: the oldest one
 * still waiting for its request (idle or slow: a scraper sends its
 * request with the connect), else the oldest of all. A newcomer always
 * gets in, so connections left open, or re-opened as they time out,
 * can never shut scrapes out; they only lose their own slots.
 */
static int victim(const struct mhttp *h)
{
	int best = -1, oldest = 0;

	for (int i = 0; i < h->n; i++) {
		if (h->c[i].deadline < h->c[oldest].deadline)
			oldest = i;
		if (!h->c[i].out.len &&
		    (best < 0 || h->c[i].deadline < h->c[best].deadline))
			best = i;
	}
	return best >= 0 ? best : oldest;
}

static void accept_all(struct mhttp *h, uint64_t now)
{
	int fd;

	/* bounded: at most a few per round, so a flood cannot hold the
	 * loop; the rest wait in the backlog for the next round */
	for (int k = 0; k < MHTTP_MAX_CONN; k++) {
		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (h->n == MHTTP_MAX_CONN) {
			h->rejected++;
			conn_close(h, victim(h));
		}
		h->c[h->n] = (struct mhttp_conn){ .fd = fd,
			.deadline = now + MHTTP_TIMEOUT_NS };
		h->n++;
	}
}

/* 1 while more is to write, 0 when all is written, -1 on error. */
static int send_some(struct mhttp_conn *c)
{
	ssize_t r = send(c->fd, c->out.p + c->out_off,
			 c->out.len - c->out_off, MSG_NOSIGNAL);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (r <= 0)
		return -1;
	c->out_off += r;
	return c->out_off < c->out.len;
}

void mhttp_service(struct mhttp *h, const struct pollfd *p, int n,
		   uint64_t now, mhttp_render_fn render, void *ctx)
{
	int nc = n - 1;

	if (h->lfd < 0 || n <= 0)
		return;
	/* connections polled this round, last first: closing one moves
	 * the last into its slot */
	for (int i = nc < h->n ? nc : h->n; i-- > 0;) {
		struct mhttp_conn *c = &h->c[i];
		short re = p[1 + i].revents;
		ssize_t r;

		if (now >= c->deadline || (re & (POLLERR | POLLNVAL))) {
			conn_close(h, i);
			continue;
		}
		if (c->out.len && (re & (POLLOUT | POLLHUP))) {
			if (send_some(c) != 1)
				conn_close(h, i);
			continue;
		}
		if (!c->out.len && (re & (POLLIN | POLLHUP))) {
			r = read(c->fd, c->in + c->in_len,
				 MHTTP_MAX_REQ - 1 - c->in_len);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				conn_close(h, i);
				continue;
			}
			c->in_len += r;
			if (request(h, c, render, ctx) && c->out.oom) {
				conn_close(h, i);
				continue;
			}
			/* the reply at once: most fit the socket buffer, and
			 * a written connection never waits for a slot */
			if (c->out.len && send_some(c) != 1)
				conn_close(h, i);
		}
	}
	if (p[0].revents & POLLIN)
		accept_all(h, now);
}

int mhttp_timeout_ms(const struct mhttp *h, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < h->n; i++)
		if (h->c[i].deadline < next)
			next = h->c[i].deadline;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)((next - now) / 1000000 + 1);
}

void mhttp_close(struct mhttp *h)
{
	while (h->n)
		conn_close(h, h->n - 1);
	if (h->lfd >= 0)
		close(h->lfd);
	h->lfd = -1;
}
