// SPDX-License-Identifier: GPL-2.0
/* KFD topology reader (see topo.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_sysfs.h>

#include "kfd.h"
#include "topo.h"
#include "util.h"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void read_props(const char *path, struct gp_topo_node *n)
{
	char line[256], key[128];
	unsigned long long v;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "simd_count"))
			n->simd_count = v;
		else if (!strcmp(key, "simd_per_cu"))
			n->simd_per_cu = v;
		else if (!strcmp(key, "gfx_target_version"))
			n->gfx_target_version = v;
		else if (!strcmp(key, "num_xcc"))
			n->num_xcc = v;
		else if (!strcmp(key, "fw_version"))
			n->fw_version = v;
		else if (!strcmp(key, "sdma_fw_version"))
			n->sdma_fw_version = v;
		else if (!strcmp(key, "vendor_id"))
			n->vendor_id = v;
		else if (!strcmp(key, "device_id"))
			n->device_id = v;
		else if (!strcmp(key, "capability"))
			n->capability = v;
		else if (!strcmp(key, "location_id"))
			n->location_id = v;
		else if (!strcmp(key, "domain"))
			n->domain = v;
		else if (!strcmp(key, "drm_render_minor"))
			n->drm_render_minor = v;
		else if (!strcmp(key, "unique_id"))
			n->unique_id = v;
	}
	fclose(f);
	if (n->simd_per_cu)
		n->cu_count = n->simd_count / n->simd_per_cu;
	n->debug_fw = n->capability & HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
	n->debug_trap = n->capability & HSA_CAP_TRAP_DEBUG_SUPPORT;
}

int gp_topo_read(const char *root, struct gp_topo_node **nodes)
{
	char dir[512], path[800], buf[64];
	struct gp_topo_node *v;
	int *ids, n, i;

	*nodes = NULL;
	snprintf(dir, sizeof(dir), "%s/nodes", root ? root : KFD_SYSFS_TOPOLOGY);
	n = gp_dir_ids(dir, &ids);
	if (n <= 0)
		return n;
	v = calloc(n, sizeof(*v));
	if (!v) {
		free(ids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		v[i].node = ids[i];
		snprintf(path, sizeof(path), "%s/%d/gpu_id", dir, ids[i]);
		if (!read_line(path, buf, sizeof(buf)))
			v[i].gpu_id = strtoul(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/%d/name", dir, ids[i]);
		if (read_line(path, v[i].name, sizeof(v[i].name)))
			v[i].name[0] = 0;
		snprintf(path, sizeof(path), "%s/%d/properties", dir, ids[i]);
		read_props(path, &v[i]);
	}
	free(ids);
	gp_topo_partitions(v, n);
	*nodes = v;
	return n;
}

/*
 * One card = GPU nodes on the same PCI domain and bus with the same
 * device id (every Instinct card sits on a bus of its own). Its
 * partitions' location_ids differ only in the node id OR'ed into the
 * low bits, and partition 0 carries the card's own devfn, so the
 * smallest location_id of the group is the card's and the difference
 * is the partition index.
 */
static bool same_card(const struct gp_topo_node *a,
		      const struct gp_topo_node *b)
{
	return a->gpu_id && b->gpu_id && a->domain == b->domain &&
	       a->device_id == b->device_id &&
	       a->location_id >> 8 == b->location_id >> 8;
}

void gp_topo_partitions(struct gp_topo_node *n, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		uint32_t low = n[i].location_id;
		int same = 0;

		for (size_t j = 0; j < count; j++) {
			if (!same_card(&n[i], &n[j]))
				continue;
			same++;
			if (n[j].location_id < low)
				low = n[j].location_id;
		}
		n[i].pci_bus = (low >> 8) & 0xff;
		n[i].pci_devfn = low & 0xff;
		n[i].partitions = same > 1 ? same : 1;
		n[i].partition = same > 1 ? (int)(n[i].location_id - low) : -1;
	}
}

const char *gp_topo_pci_name(const struct gp_topo_node *n, char *buf,
			     unsigned int len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%x", n->domain, n->pci_bus,
		 n->pci_devfn >> 3, n->pci_devfn & 7);
	return buf;
}

const char *gp_topo_label(const struct gp_topo_node *n, char *buf,
			  unsigned int len)
{
	char pci[32], part[32] = "";

	if (n->partition >= 0)
		snprintf(part, sizeof(part), " part %d/%d", n->partition,
			 n->partitions);
	snprintf(buf, len, "gpu_id %u node %u pci %s%s renderD%u", n->gpu_id,
		 n->node, gp_topo_pci_name(n, pci, sizeof(pci)), part,
		 n->drm_render_minor);
	return buf;
}

const struct gp_topo_node *gp_topo_find(const struct gp_topo_node *n,
					size_t count, uint32_t gpu_id)
{
	for (size_t i = 0; i < count; i++)
		if (n[i].gpu_id && n[i].gpu_id == gpu_id)
			return &n[i];
	return NULL;
}

const char *gp_topo_gfx_name(uint32_t v, char *buf, unsigned int len)
{
	/* ROCr's name: major in decimal, minor and stepping in hex. */
	snprintf(buf, len, "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
	return buf;
}
