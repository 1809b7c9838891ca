// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the arbiter's memory of processes whose /proc files did not answer
 * (user/arbiter/arbiter_stuck.c) is bounded per owner. A tenant uid keeps
 * at most ARB_STUCK_PER_UID records; its further ones are refused
 * (-EDQUOT), logged and counted by cause; another tenant and root still
 * get theirs; all tenants together cannot take root's ARB_STUCK_ROOT; a
 * record is never pushed out. Before, one node-wide table of 16 took any
 * uid's records until full, and a full table paused discovery for all.
 * The pids are this test's own children (the table opens their pidfds),
 * named with made-up owners: only the bookkeeping is under test here.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "arbiter_int.h"

static struct arbiter A;
static struct arbiter_opts O;
static pid_t kids[2 * ARB_MAX_STUCK];
static int nkids;

/* A live process to remember (forget_exited must keep it). */
static pid_t kid(void)
{
	pid_t p = fork();

	if (p == 0) {
		pause();
		_exit(0);
	}
	kids[nkids++] = p;
	return p;
}

static void reset(void)
{
	arb_stuck_clear(&A);
	memset(&A, 0, sizeof(A));
	A.o = &O;
}

TEST(a_tenant_fills_its_share_only)
{
	uint64_t hits = dlimit_mod_hits(&arbiter_module, ARB_LIMIT_STUCK_UID);
	int i;

	reset();
	for (i = 0; i < ARB_STUCK_PER_UID; i++)
		CHECK(arb_stuck_add(&A, kid(), 1001, "test") == 0);
	CHECK(arb_stuck_add(&A, kid(), 1001, "test") == -EDQUOT);
	CHECK(dlimit_mod_hits(&arbiter_module, ARB_LIMIT_STUCK_UID) ==
	      hits + 1);
	CHECK(A.n_stuck == ARB_STUCK_PER_UID);
	/* another tenant and root are not pushed out nor refused */
	CHECK(arb_stuck_add(&A, kid(), 1002, "test") == 0);
	CHECK(arb_stuck_add(&A, kid(), 0, "test") == 0);
	CHECK(A.n_stuck == ARB_STUCK_PER_UID + 2);
	CHECK(arb_stuck_room(&A, 1001) == -EDQUOT);
	CHECK(arb_stuck_room(&A, 1002) == 0 && arb_stuck_room(&A, 0) == 0);
}

TEST(tenants_together_leave_root_its_room)
{
	uint64_t hits = dlimit_mod_hits(&arbiter_module, ARB_LIMIT_STUCK);
	uid_t uid = 2000;
	int i, n = 0;

	reset();
	/* as many tenant uids as it takes to fill the tenants' part */
	while (n < ARB_MAX_STUCK - ARB_STUCK_ROOT) {
		for (i = 0; i < ARB_STUCK_PER_UID &&
		     n < ARB_MAX_STUCK - ARB_STUCK_ROOT; i++, n++)
			CHECK(arb_stuck_add(&A, kid(), uid, "test") == 0);
		uid++;
	}
	CHECK(arb_stuck_room(&A, uid + 1) == -ENOSPC);
	CHECK(arb_stuck_add(&A, kid(), uid + 1, "test") == -ENOSPC);
	CHECK(dlimit_mod_hits(&arbiter_module, ARB_LIMIT_STUCK) == hits + 1);
	for (i = 0; i < ARB_STUCK_ROOT; i++)
		CHECK(arb_stuck_add(&A, kid(), 0, "test") == 0);
	CHECK(A.n_stuck == ARB_MAX_STUCK);
	CHECK(arb_stuck_room(&A, 0) == -ENOSPC);
}

TEST(an_exited_process_frees_its_record)
{
	pid_t p;

	reset();
	for (int i = 0; i < ARB_STUCK_PER_UID; i++)
		CHECK(arb_stuck_add(&A, kid(), 1001, "test") == 0);
	p = kids[nkids - 1];
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	arb_stuck_forget_exited(&A);
	CHECK(A.n_stuck == ARB_STUCK_PER_UID - 1 && !arb_stuck_find(&A, p));
	CHECK(arb_stuck_room(&A, 1001) == 0);
}

int main(void)
{
	/* as the composition root does: the module's limit causes are
	 * counted from its registration (daemon_host.h) */
	daemon_module_add(&arbiter_module);
	RUN(a_tenant_fills_its_share_only);
	RUN(tenants_together_leave_root_its_room);
	RUN(an_exited_process_frees_its_record);
	reset();
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	return tap_done();
}
