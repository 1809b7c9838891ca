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
	/*
	 * How operators name the node (kfd_topology.c at 6.12):
	 * location_id is pci_dev_id() (bus << 8 | devfn), OR'ed with the
	 * partition's node id when the card has several KFD nodes (MI300X in
	 * CPX/QPX/DPX mode); domain the PCI domain; drm_render_minor the
	 * node's own render node (/dev/dri/renderD<minor>); unique_id the
	 * 64-bit id ROCr prints as "GPU-<hex>" (0 when the GPU has none).
	 */
	uint32_t location_id, domain, drm_render_minor;
	uint64_t unique_id;
	/*
	 * Derived by gp_topo_read() across nodes: the card's PCI function
	 * (location_id without the partition bits) and, when several KFD
	 * nodes share that function, this node's partition index and how
	 * many the card has (partition -1 and partitions 1 otherwise).
	 */
	uint32_t pci_bus, pci_devfn;
	int partition, partitions;
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

/*
 * "0000:1c:00.0" (domain:bus:dev.fn of the card; buf >= 16), and a name
 * for a GPU node as operators know it, e.g.
 * "gpu_id 30003 node 4 pci 0000:1c:00.0 part 2/8 renderD131"
 * (buf >= 96). HIP and ROCr device indices are never used: they depend
 * on each process's HIP_/ROCR_VISIBLE_DEVICES.
 */
const char *gp_topo_pci_name(const struct gp_topo_node *n, char *buf,
			     unsigned int len);
const char *gp_topo_label(const struct gp_topo_node *n, char *buf,
			  unsigned int len);
/* Fills pci_bus, pci_devfn, partition, partitions of every node. */
void gp_topo_partitions(struct gp_topo_node *n, size_t count);

/* "gfx90a", "gfx942", "gfx1100" from gfx_target_version (buf >= 16). */
const char *gp_topo_gfx_name(uint32_t gfx_target_version, char *buf,
			     unsigned int len);

#endif
