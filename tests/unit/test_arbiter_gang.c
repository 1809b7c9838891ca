// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the cgroup gang key of an offline process (--gang cgroup,
 * user/arbiter/arbiter_gpus.c) comes from its description, read off the
 * loop when the arbiter first met it, never from a read of
 * /proc/PID/cgroup on the loop (on 6.1 that read takes the global
 * cgroup_mutex, which others hold while they wait). The process here is
 * this test itself, described with a cgroup it is not in: before, the key
 * was its real /proc/self/cgroup's.
 */
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "arbiter_int.h"

static uint64_t fnv(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct arb_proc proc(const char *cgroup)
{
	struct arb_proc p;

	memset(&p, 0, sizeof(p));
	p.pid = p.desc.pid = getpid();
	strcpy(p.desc.cgroup, cgroup);
	return p;
}

TEST(the_key_is_the_described_cgroup)
{
	struct arb_proc a = proc("/gp-gang/not-ours"),
			b = proc("/gp-gang/not-ours"),
			c = proc("/gp-gang/other");

	CHECK(arbg_gang_key(GP_GANG_CGROUP, &a) == fnv("/gp-gang/not-ours"));
	CHECK(arbg_gang_key(GP_GANG_CGROUP, &a) ==
	      arbg_gang_key(GP_GANG_CGROUP, &b));
	CHECK(arbg_gang_key(GP_GANG_CGROUP, &a) !=
	      arbg_gang_key(GP_GANG_CGROUP, &c));
}

TEST(no_v2_cgroup_is_no_gang)
{
	struct arb_proc a = proc("");

	CHECK(arbg_gang_key(GP_GANG_CGROUP, &a) == 0);
	CHECK(arbg_gang_key(GP_GANG_NONE, &a) == 0);
	CHECK(arbg_gang_key(GP_GANG_PGID, &a) == (uint64_t)getpgid(0));
}

int main(void)
{
	RUN(the_key_is_the_described_cgroup);
	RUN(no_v2_cgroup_is_no_gang);
	return tap_done();
}
