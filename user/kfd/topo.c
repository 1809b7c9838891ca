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
	*nodes = v;
	return n;
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
