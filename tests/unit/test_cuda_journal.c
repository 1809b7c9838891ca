// SPDX-License-Identifier: GPL-2.0
/*
 * L0/L1 (host, no GPU): the CUDA backend's pure parts and its journal.
 * gp_cuda_err maps the CUresults measured on an H200 (docs/cuda.md) to
 * exit codes and messages; the journal records holds with their start
 * times and holders; release_all unlocks (through a STAND-IN api of
 * function pointers, counting calls) only what a gone holder left on a
 * process whose start time still matches.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_api.h"
#include "cuda_journal.h"
#include "exitcodes.h"
#include "tap.h"

static int unlocked[8], n_unlocked;

static int standin_unlock(int pid, void *args)
{
	if (n_unlocked < 8)
		unlocked[n_unlocked++] = pid;
	return 0;
}

static int standin_lock(int pid, void *args)
{
	return 0;
}

static int standin_state(int pid, int *st)
{
	*st = 1;
	return 0;
}

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

TEST(curesults_map_to_exit_codes_with_cause_and_remedy)
{
	struct gp_err e = {};

	gp_cuda_err(&e, "lock", 42, 3, 500);
	CHECK(e.exit == GP_EXIT_TARGET && strstr(e.msg, "not a CUDA process"));
	gp_cuda_err(&e, "lock", 42, 304, 500);
	CHECK(e.exit == GP_EXIT_TARGET && strstr(e.msg, "no such process"));
	gp_cuda_err(&e, "lock", 42, 401, 500);
	CHECK(e.exit == GP_EXIT_BUSY &&
	      strstr(e.msg, "'gpreempt-ctl resume --pid 42' unlocks it"));
	gp_cuda_err(&e, "unlock", 42, 401, 500);
	CHECK(e.exit == GP_EXIT_TARGET && strstr(e.msg, "not locked"));
	gp_cuda_err(&e, "lock", 42, 600, 250);
	CHECK(e.exit == GP_EXIT_LOCK_TIMEOUT && strstr(e.msg, "250 ms") &&
	      strstr(e.msg, "left running") &&
	      strstr(e.msg, "--cuda-lock-timeout"));
	gp_cuda_err(&e, "lock", 42, 999, 500);
	CHECK(e.exit == GP_EXIT_FAILURE && strstr(e.msg, "CUresult 999"));
	CHECK(!strcmp(gp_cuda_state_name(1), "locked") &&
	      !strcmp(gp_cuda_state_name(7), "?"));
}

TEST(journal_add_remove_read)
{
	char dir[] = "/tmp/gpcj.XXXXXX", path[64];
	struct gp_cjentry e[4];
	pid_t me = getpid();
	uint64_t st = gp_proc_start_time(me);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/sub/holds", dir);
	CHECK(st > 0);
	CHECK(gp_cjournal_read(path, e, 4) == 0);	/* none yet */
	CHECK(gp_cjournal_add(path, me, st) == 0);
	CHECK(gp_cjournal_add(path, 1, gp_proc_start_time(1)) == 0);
	CHECK(gp_cjournal_read(path, e, 4) == 2);
	CHECK(e[0].pid == me && e[0].start == st && e[0].holder == me &&
	      !gp_cjournal_orphan(&e[0]));
	CHECK(gp_cjournal_remove(path, me, st + 1) == 0);	/* no match */
	CHECK(gp_cjournal_read(path, e, 4) == 2);
	CHECK(gp_cjournal_remove(path, me, st) == 0);
	CHECK(gp_cjournal_read(path, e, 4) == 1 && e[0].pid == 1);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

/*
 * A gone holder's line on a live process is unlocked; the same on a
 * process whose start time differs (a recycled pid) is not; a live
 * holder's line stays, untouched.
 */
TEST(release_all_only_a_gone_holders_matching_processes)
{
	struct gp_cuda_api api = { .h = (void *)1, .lock = standin_lock,
				   .unlock = standin_unlock,
				   .get_state = standin_state };
	char dir[] = "/tmp/gpcj.XXXXXX", path[64], line[160];
	struct gp_cjentry e[4];
	pid_t victim, gone;
	uint64_t vst;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/holds", dir);
	victim = fork();
	if (!victim) {
		pause();
		_exit(0);
	}
	gone = fork();
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	vst = 0;
	for (int i = 0; i < 100 && !vst; i++, usleep(10000))
		vst = gp_proc_start_time(victim);
	f = fopen(path, "w");
	CHECK(f != NULL);
	/* gone holder, matching start: unlock */
	fprintf(f, "%d %llu %d 1\n", victim, (unsigned long long)vst, gone);
	/* gone holder, another start time (recycled): leave alone */
	fprintf(f, "%d %llu %d 1\n", victim, (unsigned long long)vst + 7,
		gone);
	/* this live process holds it: its own, stays */
	fprintf(f, "%d %llu %d %llu\n", victim, (unsigned long long)vst,
		getpid(), (unsigned long long)gp_proc_start_time(getpid()));
	fclose(f);
	n_unlocked = 0;
	CHECK(gp_cjournal_release_all(path, &api, quiet, NULL) == 0);
	CHECK(n_unlocked == 1 && unlocked[0] == victim);
	CHECK(gp_cjournal_read(path, e, 4) == 1 && e[0].holder == getpid());
	snprintf(line, sizeof(line), "%s", path);
	unlink(line);
	rmdir(dir);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
}

/* A holder SIGKILLed but not yet reaped (a zombie) holds nothing. */
TEST(a_zombie_holder_is_gone)
{
	struct gp_cjentry e = {};
	int p[2];
	char c;
	pid_t z;

	CHECK(!pipe(p));
	z = fork();
	if (!z) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	e.holder = z;
	e.hstart = gp_proc_start_time(z);
	CHECK(e.hstart && !gp_cjournal_orphan(&e));
	close(p[1]);	/* it exits; not reaped yet */
	for (int i = 0; i < 500 && !gp_cjournal_orphan(&e); i++)
		usleep(10000);
	CHECK(gp_proc_start_time(z) == e.hstart);	/* still there */
	CHECK(gp_cjournal_orphan(&e));
	waitpid(z, NULL, 0);
}

int main(void)
{
	RUN(curesults_map_to_exit_codes_with_cause_and_remedy);
	RUN(journal_add_remove_read);
	RUN(release_all_only_a_gone_holders_matching_processes);
	RUN(a_zombie_holder_is_gone);
	return tap_done();
}
