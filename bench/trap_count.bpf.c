// SPDX-License-Identifier: GPL-2.0
/*
 * The trap counter of bench/uprobe-arm.c: one run of this program is one
 * trap the probed process took (a uprobe's int3 and its handling), per
 * attach cookie (the symbol's index on the command line).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define TC_MAX 16

__u64 tc_hits[TC_MAX];

static __always_inline void count(void *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx);

	if (c < TC_MAX)
		__sync_fetch_and_add(&tc_hits[c], 1);
}

/* a perf-event uprobe (one per symbol, what the detector uses today) */
SEC("uprobe")
int tc_hit(struct pt_regs *ctx)
{
	count(ctx);
	return 0;
}

/* one uprobe_multi link for all symbols (kernel 6.6+) */
SEC("uprobe.multi")
int tc_hit_multi(struct pt_regs *ctx)
{
	count(ctx);
	return 0;
}
