// SPDX-License-Identifier: GPL-2.0
/*
 * The pinned queue map (GP_PIN_QUEUES): what gpreempt-ctl list reads while
 * a tracer runs, and how a pin whose tracer is gone is told from a live
 * one. A tracer killed with SIGKILL cannot unpin: its map stays in bpffs
 * with its last rows, but its programs are freed with its fds. So a pin
 * is live while some loaded program uses the map.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "queues.h"

/* Is map_id among the maps program prog_id uses? */
static int prog_uses_map(__u32 prog_id, __u32 map_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64];
	int fd, ret = 0;

	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return 0;	/* gone since listed */
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		goto out;
	if (info.nr_map_ids > 64)
		info.nr_map_ids = 64;
	{
		struct bpf_prog_info again = {
			.nr_map_ids = info.nr_map_ids,
			.map_ids = (__u64)(unsigned long)ids,
		};

		len = sizeof(again);
		if (bpf_prog_get_info_by_fd(fd, &again, &len))
			goto out;
		for (__u32 i = 0; i < again.nr_map_ids && i < 64; i++)
			ret |= ids[i] == map_id;
	}
out:
	close(fd);
	return ret;
}

int gp_map_in_use(int map_fd)
{
	struct bpf_map_info m = {};
	__u32 len = sizeof(m), id = 0;

	if (bpf_map_get_info_by_fd(map_fd, &m, &len))
		return -errno;
	while (!bpf_prog_get_next_id(id, &id))
		if (prog_uses_map(id, m.id))
			return 1;
	/* EPERM: we may not list programs, so cannot tell: trust it. */
	return errno == ENOENT ? 0 : 1;
}

int gp_queues_open_pinned_at(const char *path)
{
	int fd = bpf_obj_get(path), live;

	if (fd < 0)
		return -errno;
	live = gp_map_in_use(fd);
	if (live <= 0) {
		close(fd);
		return live < 0 ? live : -ESTALE;
	}
	return fd;
}

int gp_queues_open_pinned(void)
{
	return gp_queues_open_pinned_at(GP_PIN_QUEUES);
}
