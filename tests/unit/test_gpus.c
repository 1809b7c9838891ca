// SPDX-License-Identifier: GPL-2.0
/*
 * L1: the multi-GPU inputs of per-GPU arbitration on fixtures in the
 * kernel's exact text formats (tests/unit/fixtures/topo, made by its
 * gen.sh): the KFD topology of an 8-card MI300X node and of a node with
 * a CPX-partitioned card (8 KFD nodes on one PCI function), each node
 * named by gpu_id, node index, PCI address, partition and render node;
 * the sysfs queue directories of processes spread over the 8 cards; and
 * GET_QUEUE_SNAPSHOT buffers decoded into (queue_id, gpu_id, type).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#include "fixture.h"
#include "qplace.h"
#include "tap.h"
#include "topo.h"

static int read_topo(const char *sub, struct gp_topo_node **n)
{
	char dir[PATH_MAX];

	if (fixture_path(sub, dir, sizeof(dir)))
		return -ENOENT;
	return gp_topo_read(dir, n);
}

TEST(topo_eight_cards)
{
	struct gp_topo_node *n;
	char buf[128];
	int c = read_topo("topo/mi300x-8", &n);

	CHECK(c == 9);
	if (c != 9)
		return;
	CHECK(n[0].gpu_id == 0);
	for (int i = 1; i < 9; i++) {
		CHECK(n[i].node == (unsigned int)i);
		CHECK(n[i].gpu_id == 10000u + i);
		CHECK(n[i].drm_render_minor == 127u + i);
		CHECK(n[i].partition == -1 && n[i].partitions == 1);
		CHECK(n[i].unique_id == 7400000000000000000ull + i - 1);
		CHECK(n[i].num_xcc == 8 && n[i].gfx_target_version == 90402);
	}
	CHECK_STR(gp_topo_pci_name(&n[1], buf, sizeof(buf)), "0000:0c:00.0");
	CHECK_STR(gp_topo_pci_name(&n[8], buf, sizeof(buf)), "0000:7c:00.0");
	CHECK_STR(gp_topo_label(&n[3], buf, sizeof(buf)),
		  "gpu_id 10003 node 3 pci 0000:2c:00.0 renderD130");
	CHECK(gp_topo_find(n, c, 10008) == &n[8]);
	CHECK(!gp_topo_find(n, c, 0));
	free(n);
}

TEST(topo_cpx_card)
{
	struct gp_topo_node *n;
	char buf[128];
	int c = read_topo("topo/mi300x-cpx", &n);

	CHECK(c == 10);
	if (c != 10)
		return;
	/* node 1: an SPX card, alone on bus 0x0c */
	CHECK(n[1].gpu_id == 20001 && n[1].partition == -1);
	CHECK_STR(gp_topo_pci_name(&n[1], buf, sizeof(buf)), "0000:0c:00.0");
	/* nodes 2..9: one card in CPX mode, one PCI function, 8 nodes */
	for (int p = 0; p < 8; p++) {
		const struct gp_topo_node *x = &n[2 + p];

		CHECK(x->gpu_id == 30001u + p);
		CHECK(x->partition == p && x->partitions == 8);
		CHECK(x->drm_render_minor == 129u + p);
		CHECK(x->num_xcc == 1);
		CHECK_STR(gp_topo_pci_name(x, buf, sizeof(buf)),
			  "0000:1c:00.0");
	}
	CHECK_STR(gp_topo_label(&n[4], buf, sizeof(buf)),
		  "gpu_id 30003 node 4 pci 0000:1c:00.0 part 2/8 renderD131");
	free(n);
}

static int sysfs_of(int pid, struct gp_qplace *q, int cap)
{
	char dir[PATH_MAX];

	if (fixture_path("topo/mi300x-8/proc", dir, sizeof(dir)))
		return -ENOENT;
	return gp_qplace_from_sysfs(dir, pid, q, cap);
}

TEST(sysfs_queue_placement)
{
	struct gp_qplace q[64];
	uint32_t gpus[16], ids[64], want[] = { 10002, 10005 };
	int n = sysfs_of(3000, q, 64), k;

	CHECK(n == 16);
	if (n != 16)
		return;
	for (int i = 0; i < n; i++) {
		CHECK(q[i].queue_id == (uint32_t)i);
		CHECK(q[i].gpu_id == 10001u + i / 2);
		CHECK(q[i].origin == GP_QP_SYSFS);
	}
	CHECK(gp_qplace_gpus(q, n, gpus, 16) == 8);
	CHECK(gpus[0] == 10001 && gpus[7] == 10008);
	/* the subset on two of the eight cards: exactly their 4 queues */
	k = gp_qplace_subset(q, n, want, 2, ids, 64);
	CHECK(k == 4 && ids[0] == 2 && ids[1] == 3 && ids[2] == 8 &&
	      ids[3] == 9);
	CHECK(gp_qplace_subset(q, n, NULL, -1, ids, 64) == 16);
	CHECK(gp_qplace_subset(q, n, NULL, 0, ids, 64) == 0);

	n = sysfs_of(2000, q, 64);
	CHECK(n == 3 && q[2].type == 1 && q[2].gpu_id == 10001);
	CHECK(sysfs_of(4242, q, 64) == 0);	/* no such process */
}

TEST(snapshot_decode)
{
	/* A buffer as GET_QUEUE_SNAPSHOT fills it for a rank of the CPX
	 * card: ring and pointer addresses around the ids, 3 queues. */
	struct kfd_queue_snapshot_entry e[4] = {
		{ .ring_base_address = 0x7f0000000000, .queue_id = 0,
		  .gpu_id = 30003, .queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
		  .ring_size = 1 << 20 },
		{ .queue_id = 1, .gpu_id = 30003,
		  .queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL },
		{ .queue_id = 5, .gpu_id = 30004,
		  .queue_type = KFD_IOC_QUEUE_TYPE_SDMA },
	};
	struct gp_qplace q[8];
	unsigned char wide[3][sizeof(e[0]) + 16];
	int n = gp_qplace_from_snapshot(e, 3, 4, sizeof(e[0]), q, 8);

	CHECK(n == 3);
	CHECK(q[0].queue_id == 0 && q[0].gpu_id == 30003 &&
	      q[0].type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	CHECK(q[2].queue_id == 5 && q[2].gpu_id == 30004 &&
	      q[2].type == KFD_IOC_QUEUE_TYPE_SDMA &&
	      q[2].origin == GP_QP_SNAPSHOT);
	/* more queues than the buffer held: only the entries written */
	CHECK(gp_qplace_from_snapshot(e, 9, 2, sizeof(e[0]), q, 8) == 2);
	/* a caller stride wider than the struct (a newer ABI's entries) */
	memset(wide, 0xee, sizeof(wide));
	for (int i = 0; i < 3; i++)
		memcpy(wide[i], &e[i], sizeof(e[0]));
	CHECK(gp_qplace_from_snapshot(wide, 3, 3, sizeof(wide[0]), q, 8) == 3);
	CHECK(q[2].queue_id == 5 && q[2].gpu_id == 30004);
	/* out too small: clipped, never overrun */
	CHECK(gp_qplace_from_snapshot(e, 3, 3, sizeof(e[0]), q, 1) == 1);
	CHECK(gp_qplace_from_snapshot(e, 3, 3, 16, q, 8) == -EINVAL);
}

int main(void)
{
	RUN(topo_eight_cards);
	RUN(topo_cpx_card);
	RUN(sysfs_queue_placement);
	RUN(snapshot_decode);
	return tap_done();
}
