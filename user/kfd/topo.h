/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KFD topology (/sys/class/kfd/kfd/topology/nodes/<n>/{gpu_id,name,
 * properties}), read as plain files so tests can point it at a fixture
 * tree. properties is "key value" lines (kfd_topology.c node_show); a
 * node with simd_count 0 is a CPU node. gfx_target_version is
 * major * 10000 + minor * 100 + stepping (90010 = gfx90a, 90402 =
 * gfx942, 110000 = gfx1100). capability bits: <linux/kfd_sysfs.h>.
 */
#ifndef GP_TOPO_H
#define GP_TOPO_H

#include <stdbool.h>
#include <stdint.h>

struct gp_topo_node {
	unsigned int node;	/* nodes/<node> */
	uint32_t gpu_id;	/* 0: CPU node */
	char name[32];
	uint32_t gfx_target_version;
	uint32_t simd_count;
	uint32_t simd_per_cu;
	uint32_t cu_count;	/* simd_count / simd_per_cu */
	uint32_t num_xcc;
	uint32_t fw_version;	/* MEC firmware */
	uint32_t sdma_fw_version;
	uint32_t vendor_id, device_id;
	uint64_t capability;
	bool debug_fw;		/* HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED */
	bool debug_trap;	/* HSA_CAP_TRAP_DEBUG_SUPPORT */
};

/*
 * Read every node under root (NULL: KFD_SYSFS_TOPOLOGY), sorted by node
 * number, into a malloc'd array. Count, or -errno when root/nodes cannot
 * be opened (-ENOENT: KFD not loaded).
 */
int gp_topo_read(const char *root, struct gp_topo_node **nodes);

/* The node with this gpu_id, or NULL. */
const struct gp_topo_node *gp_topo_find(const struct gp_topo_node *n,
					size_t count, uint32_t gpu_id);

/* "gfx90a", "gfx942", "gfx1100" from gfx_target_version (buf >= 16). */
const char *gp_topo_gfx_name(uint32_t gfx_target_version, char *buf,
			     unsigned int len);

#endif
