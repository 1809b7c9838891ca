// SPDX-License-Identifier: GPL-2.0
/*
 * MQD layouts per ASIC family: which struct a gfx_target_version's MQD is,
 * and what its words mean. The dump parsers (mqd.c) and the readers
 * (mqd_read.c) call these; a new family is a new case here.
 */
#include <errno.h>
#include <string.h>

#include "mqd.h"

/*
 * Dword offsets, identical in struct v9_mqd, v11_compute_mqd and
 * v12_compute_mqd of the Debian 6.1.192, 6.12.95 and 7.3.4 amdgpu module
 * BTF (6.1 has no v12): drivers/gpu/drm/amd/include/v{9,11,12}_structs.h.
 */
#define MQD_DWORDS		512	/* sizeof == 2048 in all three */
#define DW_MQD_BASE_LO		128	/* first HQD register's mirror */
#define DW_MQD_BASE_HI		129
#define DW_ACTIVE		130
#define DW_VMID			131
#define DW_PIPE_PRIORITY	133
#define DW_QUEUE_PRIORITY	134
#define DW_QUANTUM		135
#define DW_PQ_BASE_LO		136
#define DW_PQ_BASE_HI		137
#define DW_PQ_RPTR		138
#define DW_RPTR_REPORT_LO	139
#define DW_RPTR_REPORT_HI	140
#define DW_WPTR_POLL_LO		141
#define DW_WPTR_POLL_HI		142
#define DW_DOORBELL_CONTROL	143
#define DW_PQ_CONTROL		145
#define DW_PQ_WPTR_LO		182
#define DW_PQ_WPTR_HI		183	/* CP_HQD_PQ_WPTR_HI: last dumped */
#define HQD_N_REGS		(DW_PQ_WPTR_HI - DW_MQD_BASE_LO + 1)

/* gc_9_0_sh_mask.h (same fields in gc_11_0_0 / gc_12_0_0). */
#define DOORBELL_OFFSET_MASK	0x0ffffffcu
#define DOORBELL_OFFSET_SHIFT	2
#define DOORBELL_EN_MASK	0x40000000u
#define PQ_CONTROL_QUEUE_SIZE	0x3fu	/* ring = 2^(n+1) dwords */

enum gp_mqd_layout gp_mqd_layout_for_gfx(uint32_t v)
{
	uint32_t major = v / 10000, minor = (v / 100) % 100;

	if (major == 9)
		return GP_MQD_V9;	/* gfx900..gfx950 use struct v9_mqd */
	if (major == 11)
		return GP_MQD_V11;
	/* 12.1 has its own struct v12_1_compute_mqd: not read, stays raw */
	if (major == 12 && minor == 0)
		return GP_MQD_V12;
	return GP_MQD_RAW;
}

const char *gp_mqd_layout_name(enum gp_mqd_layout l)
{
	static const char *const n[] = { "raw", "v9", "v11", "v12" };

	return (unsigned int)l < 4 ? n[l] : "raw";
}

const char *gp_mqd_kind_name(enum gp_mqd_kind k)
{
	static const char *const n[] = { "compute", "sdma", "diq", "bad" };

	return (unsigned int)k < 4 ? n[k] : "bad";
}

const char *gp_hqd_kind_name(enum gp_hqd_kind k)
{
	static const char *const n[] = { "hiq", "cp", "sdma" };

	return (unsigned int)k < 3 ? n[k] : "?";
}

static uint64_t u64_of(const uint32_t *dw, int lo, int hi)
{
	return (uint64_t)dw[hi] << 32 | dw[lo];
}

int gp_mqd_decode(const uint32_t *dw, size_t ndw, enum gp_mqd_layout l,
		  struct gp_mqd_fields *f)
{
	uint32_t qs;

	if (l == GP_MQD_RAW || ndw != MQD_DWORDS)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->active = dw[DW_ACTIVE] & 1;
	f->vmid = dw[DW_VMID];
	f->pipe_priority = dw[DW_PIPE_PRIORITY];
	f->queue_priority = dw[DW_QUEUE_PRIORITY];
	f->quantum = dw[DW_QUANTUM];
	f->mqd_addr = u64_of(dw, DW_MQD_BASE_LO, DW_MQD_BASE_HI);
	f->ring_base = u64_of(dw, DW_PQ_BASE_LO, DW_PQ_BASE_HI) << 8;
	qs = dw[DW_PQ_CONTROL] & PQ_CONTROL_QUEUE_SIZE;
	/* 2^(qs+1) dwords; KFD rings are far below 2^40 bytes */
	f->ring_size = qs < 38 ? 4ull << (qs + 1) : 0;
	f->rptr = dw[DW_PQ_RPTR];
	f->wptr = u64_of(dw, DW_PQ_WPTR_LO, DW_PQ_WPTR_HI);
	f->rptr_report_addr = u64_of(dw, DW_RPTR_REPORT_LO, DW_RPTR_REPORT_HI);
	f->wptr_poll_addr = u64_of(dw, DW_WPTR_POLL_LO, DW_WPTR_POLL_HI);
	f->doorbell_offset = (dw[DW_DOORBELL_CONTROL] & DOORBELL_OFFSET_MASK) >>
			     DOORBELL_OFFSET_SHIFT;
	f->doorbell_en = dw[DW_DOORBELL_CONTROL] & DOORBELL_EN_MASK;
	return 0;
}

int gp_hqd_decode(const uint32_t (*regs)[2], size_t nregs,
		  enum gp_mqd_layout l, struct gp_mqd_fields *f)
{
	uint32_t dw[MQD_DWORDS];
	size_t r;

	if (l == GP_MQD_RAW || nregs != HQD_N_REGS)
		return -EINVAL;
	for (r = 1; r < nregs; r++)
		if (regs[r][0] != regs[0][0] + 4 * r)
			return -EINVAL;	/* not the contiguous CP block */
	memset(dw, 0, sizeof(dw));
	for (r = 0; r < nregs; r++)
		dw[DW_MQD_BASE_LO + r] = regs[r][1];
	return gp_mqd_decode(dw, MQD_DWORDS, l, f);
}
