// SPDX-License-Identifier: GPL-2.0
/*
 * L1 (host, no GPU): the daemon's hold path with an asynchronous backend,
 * through its own request and target code (daemon_request,
 * targets_service, target_drop, client_close) and a STAND-IN backend
 * (standin_backend.h) whose suspend completes only when the test says:
 * - the client's reply waits for the completion (deferred), then says ok
 *   and the hold starts with its for_ns deadline;
 * - a completion whose client closed meanwhile still starts the hold (its
 *   deadline will resume it: never forgotten);
 * - a failed completion answers the client's error and holds nothing;
 * - a resume while the suspend is in flight is refused (exit 9), a
 *   target dropped meanwhile answers its client and its release waits for
 *   the completion.
 */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon_int.h"
#include "standin_backend.h"
#include "tap.h"
#include "util.h"

static struct daemon d;
static pid_t victim;

static struct client *new_client(void)
{
	struct client *c = calloc(1, sizeof(*c));
	int sv[2];

	if (!c || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	close(sv[1]);
	c->fd = sv[0];
	c->admin = true;
	d.c[d.n_c++] = c;
	return c;
}

static void reset(void)
{
	static struct daemon_opts o;

	while (d.n_t)
		gp_bk_free(d.t[--d.n_t].p);
	while (d.n_c)
		client_close(&d, d.n_c - 1);
	memset(&d, 0, sizeof(d));
	d.o = &o;
	d.max_hold_ns = 60 * NSEC_PER_SEC;
	d.kfd.fd = -1;
	d.bk.b[d.bk.n++] = &standin_backend;
}

static void request(struct client *c, const char *line)
{
	daemon_request(&d, c, line, strlen(line));
}

static bool out_has(const struct client *c, const char *s)
{
	return c->out_len && memmem(c->out, c->out_len, s, strlen(s));
}

/* One round of the loop's target service, as on its tick (all). */
static void service(void)
{
	struct pollfd ev[PROTO_MAX_SESSIONS] = {};

	targets_service(&d, ev, d.n_t, true);
}

TEST(reply_waits_for_the_completion_then_the_hold_starts)
{
	char line[96];
	struct client *c;
	struct target *t;

	reset();
	c = new_client();
	snprintf(line, sizeof(line), "suspend pid=%d for_ns=2000000000\n",
		 victim);
	request(c, line);
	t = target_find(&d, victim);
	CHECK(t && c->deferred && !c->out_len);
	CHECK(t && t->op_done && t->op_client == c && !t->held_since);
	/* nothing yet: the loop goes on serving */
	service();
	CHECK(c->deferred && !c->out_len);
	standin_bk_complete(t->p, true);
	service();
	CHECK(c->answered && out_has(c, "op call=suspend") &&
	      out_has(c, " backend=standin state=suspended") &&
	      out_has(c, "\nok\n"));
	CHECK(t->held_since && t->deadline &&
	      t->deadline - t->held_since <= 2 * NSEC_PER_SEC);
	CHECK(!t->op_done && !t->op_client);
}

TEST(completion_after_the_client_left_still_holds_with_a_deadline)
{
	char line[64];
	struct client *c;
	struct target *t;

	reset();
	c = new_client();
	snprintf(line, sizeof(line), "suspend pid=%d\n", victim);
	request(c, line);
	t = target_find(&d, victim);
	CHECK(t && t->op_client == c);
	client_close(&d, 0);
	CHECK(t && !t->op_client);
	standin_bk_complete(t->p, true);
	service();
	CHECK(t->held_since && t->deadline == t->held_since + d.max_hold_ns);
}

TEST(failed_completion_answers_the_error_and_holds_nothing)
{
	char line[64];
	struct client *c;
	struct target *t;

	reset();
	c = new_client();
	snprintf(line, sizeof(line), "suspend pid=%d\n", victim);
	request(c, line);
	t = target_find(&d, victim);
	standin_bk_complete(t->p, false);
	service();
	CHECK(out_has(c, "err 13 ") && out_has(c, "stand-in: timed out"));
	CHECK(!t->held_since && !t->deadline);
}

TEST(resume_in_flight_is_refused_and_a_drop_answers_and_waits)
{
	char line[64];
	struct client *c, *c2;
	struct target *t;
	struct standin_proc *p;

	reset();
	c = new_client();
	c2 = new_client();
	snprintf(line, sizeof(line), "suspend pid=%d\n", victim);
	request(c, line);
	t = target_find(&d, victim);
	p = sp(t->p);
	snprintf(line, sizeof(line), "resume pid=%d\n", victim);
	request(c2, line);
	CHECK(out_has(c2, "err 9 ") && out_has(c2, "in progress"));
	target_drop(&d, t);
	CHECK(out_has(c, "err 8 ") && out_has(c, "before its suspend "
					      "completed"));
	/* kept, detaching, until the call lands; then released */
	CHECK(d.n_t == 1 && d.t[0].detaching && !p->releases);
	standin_bk_complete(d.t[0].p, true);
	service();
	CHECK(d.n_t == 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	victim = fork();
	if (!victim) {
		pause();
		_exit(0);
	}
	RUN(reply_waits_for_the_completion_then_the_hold_starts);
	RUN(completion_after_the_client_left_still_holds_with_a_deadline);
	RUN(failed_completion_answers_the_error_and_holds_nothing);
	RUN(resume_in_flight_is_refused_and_a_drop_answers_and_waits);
	reset();
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	return tap_done();
}
