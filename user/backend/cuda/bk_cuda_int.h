/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bk_cuda.c (the per-process operations) and bk_cuda_be.c (the
 * backend object) share; nothing outside user/backend/cuda/ includes it.
 */
#ifndef GP_BK_CUDA_INT_H
#define GP_BK_CUDA_INT_H

#include "backend.h"
#include "cuda_api.h"
#include "cuda_find.h"

struct cuda_be {
	struct gp_cuda_api api;
	char journal[256];
	uint32_t timeout_ms;
	pid_t guardian;
	struct gp_cuda_finder find;	/* the CUDA processes, off the loop */
};

static inline struct cuda_be *be(const struct gp_backend *b)
{
	return b->priv;
}

extern const struct gp_bk_ops gp_bk_cuda_ops;

#endif
