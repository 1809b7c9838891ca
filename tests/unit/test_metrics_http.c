// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics endpoint (user/metrics/metrics_http.c). L0: address parsing.
 * L1 host-only: real loopback TCP sockets driven by the same poll/service
 * calls the daemon's loop makes (one thread, nothing blocks): a scrape,
 * 404/405/431, the connection bound and the deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics_http.h"
#include "tap.h"
#include "util.h"

TEST(parse_addr)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct gp_err e = {};
	socklen_t len;

	CHECK(mhttp_parse_addr("127.0.0.1:9464", &ss, &len, &e) == 0);
	CHECK(in4->sin_family == AF_INET && ntohs(in4->sin_port) == 9464);
	CHECK(in4->sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	CHECK(mhttp_parse_addr("localhost:1", &ss, &len, &e) == 0);
	CHECK(in4->sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	CHECK(mhttp_parse_addr("0.0.0.0:65535", &ss, &len, &e) == 0);
	CHECK(mhttp_parse_addr("[::1]:9464", &ss, &len, &e) == 0);
	CHECK(in6->sin6_family == AF_INET6 && len == sizeof(*in6));
	CHECK(ntohs(in6->sin6_port) == 9464);
	const char *bad[] = { "", "9464", ":9464", "127.0.0.1", "127.0.0.1:",
			      "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:9x",
			      "::1:9464", "[::1]9464", "[127.0.0.1]:1",
			      "example.com:9464", "[::1:9464" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = (struct gp_err){};
		CHECK(mhttp_parse_addr(bad[i], &ss, &len, &e) == -EINVAL);
		CHECK(e.exit == 2 && strstr(e.msg, "bad metrics address"));
	}
}

static void render(void *ctx, struct prom_buf *b)
{
	(*(int *)ctx)++;
	prom_family(b, "gpreempt_test", "gauge", "Test.");
	prom_sample(b, "gpreempt_test", NULL, 1);
}

static struct mhttp h;
static int port, renders;
static char addr[32];

static int listen_somewhere(void)
{
	struct gp_err e = {};

	for (int k = 0; k < 50; k++) {
		port = 20000 + (getpid() * 7 + k * 131) % 30000;
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
		if (!mhttp_listen(&h, addr, &e))
			return 0;
	}
	printf("# %s\n", e.msg);
	return -1;
}

/* Non-blocking connect: the server side runs on this same thread. */
static int client(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
		       errno != EINPROGRESS))
		return -1;
	return fd;
}

/* Run the daemon side for a few rounds (poll timeout 20 ms each). */
static void rounds(int n, uint64_t now)
{
	struct pollfd p[1 + MHTTP_MAX_CONN];

	while (n-- > 0) {
		int k = mhttp_pollfds(&h, p);

		poll(p, k, 20);
		mhttp_service(&h, p, k, now ? now : monotonic_ns(), render,
			      &renders);
	}
}

/* Everything the server sent until it closed. */
static char *reply(int fd)
{
	static char buf[8192];
	size_t n = 0;
	ssize_t r;

	for (int k = 0; k < 100; k++) {
		rounds(1, 0);
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			continue;
		r = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	close(fd);
	return buf;
}

static char *ask(const char *req)
{
	int fd = client();

	struct pollfd p = { fd, POLLOUT, 0 };

	if (fd < 0)
		return "";
	rounds(1, 0);			/* accept */
	if (poll(&p, 1, 1000) != 1 || write(fd, req, strlen(req)) < 0)
		return "";
	return reply(fd);
}

TEST(scrape_and_errors)
{
	const char *r;

	CHECK(listen_somewhere() == 0);
	r = ask("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
	CHECK(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	CHECK(strstr(r, "Content-Type: text/plain; version=0.0.4") != NULL);
	const char *body = strstr(r, "\r\n\r\n");
	char want[64];
	CHECK(body != NULL);
	snprintf(want, sizeof(want), "Content-Length: %zu\r\n",
		 body ? strlen(body + 4) : 0);
	CHECK(strstr(r, want) != NULL);
	CHECK(body && !strncmp(body, "\r\n\r\n# HELP gpreempt_test Test.\n", 31));
	CHECK(strstr(r, "\ngpreempt_test 1\n") != NULL);
	CHECK(renders == 1 && h.scrapes == 1);
	CHECK(!strncmp(ask("GET / HTTP/1.0\r\n\r\n"), "HTTP/1.1 404", 12));
	CHECK(!strncmp(ask("POST /metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 405", 12));
	char big[MHTTP_MAX_REQ + 10];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	CHECK(!strncmp(ask(big), "HTTP/1.1 431", 12));
	CHECK(renders == 1);
	CHECK(h.n == 0);
}

TEST(connections_are_bounded_and_time_out)
{
	int fds[MHTTP_MAX_CONN + 1], i;
	uint64_t now = monotonic_ns();

	/* Silent clients fill every slot; the extra ones are closed. */
	for (i = 0; i < MHTTP_MAX_CONN + 1; i++)
		fds[i] = client();
	rounds(5, now);
	CHECK(h.n == MHTTP_MAX_CONN);
	CHECK(h.rejected == 1);
	CHECK(mhttp_timeout_ms(&h, now) > 0);
	CHECK(mhttp_timeout_ms(&h, now) <= (int)(MHTTP_TIMEOUT_NS / 1000000) + 1);
	/* Past the deadline every one of them is dropped. */
	rounds(2, now + MHTTP_TIMEOUT_NS + 1);
	CHECK(h.n == 0);
	CHECK(mhttp_timeout_ms(&h, now) == -1);
	for (i = 0; i < MHTTP_MAX_CONN + 1; i++)
		close(fds[i]);
	/* and the endpoint still serves */
	CHECK(!strncmp(ask("GET /metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 200", 12));
	mhttp_close(&h);
	CHECK(h.lfd == -1);
}

int main(void)
{
	RUN(parse_addr);
	RUN(scrape_and_errors);
	RUN(connections_are_bounded_and_time_out);
	return tap_done();
}
