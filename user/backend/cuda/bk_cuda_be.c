// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend object (bk_cuda.h): made from its conf, started (the
 * journal's replay, the guardian), and the calls the daemon and the
 * client make on the whole backend rather than on one attached process.
 * The per-process operations are in bk_cuda.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bk_cuda.h"
#include "bk_cuda_int.h"
#include "cuda_guardian.h"
#include "cuda_journal.h"
#include "cuda_lock.h"
#include "util.h"

struct gp_backend *gp_bk_cuda_new(const struct gp_bk_cuda_conf *conf)
{
	struct gp_backend *b = calloc(1, sizeof(*b));
	struct cuda_be *c = calloc(1, sizeof(*c));

	if (!b || !c) {
		free(b);
		free(c);
		return NULL;
	}
	snprintf(c->journal, sizeof(c->journal), "%s", conf && conf->journal ?
		 conf->journal : GP_CUDA_JOURNAL_DEFAULT);
	c->timeout_ms = conf && conf->lock_timeout_ms ? conf->lock_timeout_ms :
			GP_CUDA_LOCK_TIMEOUT_MS;
	b->ops = &gp_bk_cuda_ops;
	b->priv = c;
	return b;
}

void gp_bk_cuda_destroy(struct gp_backend *b)
{
	if (b) {
		gp_cuda_find_stop(&be(b)->find);
		free(b->priv);
		free(b);
	}
}

int gp_bk_cuda_start(struct gp_backend *b, bool replay,
		     void (*log)(void *ctx, const char *line), void *ctx,
		     struct gp_err *e)
{
	struct cuda_be *c = be(b);

	if (replay)
		gp_cjournal_release_all(c->journal, &c->api, log, ctx);
	c->guardian = gp_cuda_guardian_start(c->journal, c->timeout_ms, e);
	return c->guardian < 0 ? -1 : 0;
}

const char *gp_bk_cuda_journal(const struct gp_backend *b)
{
	return be(b)->journal;
}

uint32_t gp_bk_cuda_lock_timeout_ms(const struct gp_backend *b)
{
	return be(b)->timeout_ms;
}

int gp_bk_cuda_version(const struct gp_backend *b)
{
	return be(b)->api.version;
}

int gp_bk_cuda_unlock_pid(struct gp_backend *b, pid_t pid, struct gp_err *e)
{
	struct cuda_be *c = be(b);
	int res = gp_cuda_unlock(&c->api, pid);

	if (res == GP_CU_SUCCESS || res == GP_CU_ILLEGAL_STATE)
		gp_cjournal_remove(c->journal, pid, gp_proc_start_time(pid));
	if (res == GP_CU_SUCCESS)
		return 1;
	if (res == GP_CU_ILLEGAL_STATE)
		return 0;
	gp_cuda_err(e, "unlock", pid, res, c->timeout_ms);
	return -1;
}

int gp_bk_cuda_candidates(struct gp_backend *b, int **pids)
{
	return gp_cuda_find(&be(b)->find, be(b)->guardian, pids);
}
