// SPDX-License-Identifier: GPL-2.0
/*
 * L0: limit causes a module registers (daemon_host.h's dlimit_mod): the
 * daemon counts and renders them beside its own causes and names none
 * of them itself (tests/structure/check-layers.sh check 6). The module
 * here is a stand-in with two causes, registered as a real one is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_int.h"
#include "prom.h"
#include "tap.h"

static const char *const standin_limits[] = { "standin_one",
					       "standin_two", NULL };
static const struct gp_module standin = { .name = "standin",
					  .limits = standin_limits };
static const char *const too_many[DAEMON_MAX_MOD_LIMITS + 2] = {
	"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
	"n", "o", "p", "q",
};
static const struct gp_module big = { .name = "big", .limits = too_many };
static const struct gp_module unregistered = { .name = "unreg",
					       .limits = standin_limits };

static char *render(void)
{
	struct prom_buf b = {0};
	char *s;

	dlimit_render(&b);
	s = strndup(b.p ? b.p : "", b.len);
	prom_free(&b);
	return s;
}

TEST(registered_causes_are_counted_and_rendered)
{
	char *s;

	CHECK(daemon_module_add(&standin) == 0);
	CHECK(dlimit_mod_hits(&standin, 1) == 0);
	dlimit_mod(&standin, 1, "one refusal");
	dlimit_mod(&standin, 1, "another");
	CHECK(dlimit_mod_hits(&standin, 1) == 2);
	CHECK(dlimit_mod_hits(&standin, 0) == 0);
	s = render();
	CHECK(strstr(s, "gpreempt_limit_hits_total{cause=\"standin_two\"} 2"));
	CHECK(strstr(s, "gpreempt_limit_hits_total{cause=\"standin_one\"} 0"));
	/* the daemon's own causes stay */
	CHECK(strstr(s, "gpreempt_limit_hits_total{cause=\"clients\"} 0"));
	free(s);
}

TEST(unknown_causes_count_nothing)
{
	dlimit_mod(&standin, 2, "past the list");
	dlimit_mod(&standin, -1, "before it");
	dlimit_mod(&unregistered, 0, "not registered");
	CHECK(dlimit_mod_hits(&standin, 2) == 0);
	CHECK(dlimit_mod_hits(&unregistered, 0) == 0);
	CHECK(dlimit_mod_hits(&standin, 0) == 0);
}

TEST(too_many_causes_are_refused_at_registration)
{
	CHECK(daemon_module_add(&big) == -E2BIG);
	CHECK(dlimit_mod_hits(&big, 0) == 0);
}

int main(void)
{
	/* dlog's buffer: the lines go to stderr */
	dlog_open();
	RUN(registered_causes_are_counted_and_rendered);
	RUN(unknown_causes_count_nothing);
	RUN(too_many_causes_are_refused_at_registration);
	return tap_done();
}
