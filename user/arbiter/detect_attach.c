// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector's BPF half: load detect.bpf.c, seed an online
 * process's state, attach its uprobes scoped to its pid, drain edges.
 * Nothing here reads another process: gp_dl_scan() did that.
 */
#include <errno.h>
#include <string.h>
#include <stdio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "detect_launch.h"
#include "detect.skel.h"

static int on_ring(void *ctx, void *data, size_t len)
{
	struct gp_dl *d = ctx;

	if (len >= sizeof(struct gp_edge) && d->edge)
		d->edge(d->ctx, data);
	return 0;
}

int gp_dl_open(struct gp_dl *d, __u64 grace_ns, gp_dl_edge_fn edge,
	       void *ctx)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->edge = edge;
	d->ctx = ctx;
	d->skel = detect_bpf__open();
	if (!d->skel)
		return -errno ?: -ENOMEM;
	d->skel->rodata->gp_launch_grace_ns = grace_ns;
	err = detect_bpf__load(d->skel);
	if (err)
		goto fail;
	d->rb = ring_buffer__new(bpf_map__fd(d->skel->maps.gp_edges), on_ring,
				 d, NULL);
	if (!d->rb) {
		err = -errno ?: -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	detect_bpf__destroy(d->skel);
	d->skel = NULL;
	return err;
}

static struct gp_dl_proc *find(struct gp_dl *d, pid_t pid)
{
	int i;

	for (i = 0; i < d->nprocs; i++)
		if (d->procs[i].pid == pid)
			return &d->procs[i];
	return NULL;
}

void gp_dl_detach(struct gp_dl *d, pid_t pid)
{
	struct gp_dl_proc *p = find(d, pid);
	__u32 key = pid;
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	bpf_map_delete_elem(bpf_map__fd(d->skel->maps.gp_launch_pids), &key);
	*p = d->procs[--d->nprocs];
}

/*
 * A pid-scoped uprobe (perf_event_open with that pid, what libbpf does
 * for a pid > 0) is installed only in that process's memory: the kernel
 * registers the consumer with a filter (kernel/trace/trace_uprobe.c
 * uprobe_perf_filter) and install_breakpoint() writes the int3 only into
 * mms the filter accepts (kernel/events/uprobes.c register_for_each_vma).
 * tests/bats/detect.bats reads the entry's first byte in both processes
 * to show it.
 */
int gp_dl_attach(struct gp_dl *d, const struct gp_dl_lib *lib, char *reason,
		 size_t len)
{
	struct gp_launch_state st = {};
	struct gp_dl_proc *p;
	__u32 key = lib->pid;
	int i, err;

	if (find(d, lib->pid))
		return find(d, lib->pid)->nlinks;
	if (d->nprocs >= GP_DL_MAX_PROCS) {
		snprintf(reason, len, "%d processes watched already (the most)",
			 GP_DL_MAX_PROCS);
		return -ENOSPC;
	}
	err = bpf_map_update_elem(bpf_map__fd(d->skel->maps.gp_launch_pids),
				  &key, &st, BPF_NOEXIST);
	if (err && errno != EEXIST) {
		err = -errno;
		snprintf(reason, len, "BPF state map: %s", strerror(-err));
		return err;
	}
	p = &d->procs[d->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = lib->pid;
	for (i = 0; i < GP_ENT_MAX; i++) {
		const struct gp_dl_entry *en = &gp_dl_entries[i];
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i,
			    .retprobe = en->retprobe);
		struct bpf_link *l;

		if (!lib->off[i])
			continue;
		l = bpf_program__attach_uprobe_opts(
			en->retprobe ? d->skel->progs.gp_sync_ret
				     : d->skel->progs.gp_launch,
			lib->pid, lib->open_path, lib->off[i], &o);
		if (!l) {
			err = -errno;
			snprintf(reason, len, "uprobe on %.40s in %.160s: %s", en->sym,
				 lib->path, strerror(-err));
			gp_dl_detach(d, lib->pid);
			return err;
		}
		p->links[p->nlinks++] = l;
	}
	return p->nlinks;
}

int gp_dl_set_idle(struct gp_dl *d, pid_t pid)
{
	struct gp_launch_state st = {};
	__u32 key = pid;

	if (!find(d, pid))
		return -ENOENT;
	return bpf_map_update_elem(bpf_map__fd(d->skel->maps.gp_launch_pids),
				   &key, &st, BPF_EXIST) ? -errno : 0;
}

int gp_dl_state(const struct gp_dl *d, pid_t pid, struct gp_launch_state *st)
{
	__u32 key = pid;

	return bpf_map_lookup_elem(bpf_map__fd(d->skel->maps.gp_launch_pids),
				   &key, st) ? -errno : 0;
}

int gp_dl_fd(const struct gp_dl *d)
{
	return ring_buffer__epoll_fd(d->rb);
}

int gp_dl_drain(struct gp_dl *d)
{
	return ring_buffer__consume(d->rb);
}

void gp_dl_counts(const struct gp_dl *d, struct gp_dl_counts *c)
{
	c->hits = d->skel->bss->gp_launch_hits;
	c->stray = d->skel->bss->gp_launch_stray;
	c->edges = d->skel->bss->gp_launch_edges_out;
	c->lost = d->skel->bss->gp_launch_edges_lost;
}

void gp_dl_close(struct gp_dl *d)
{
	while (d->nprocs)
		gp_dl_detach(d, d->procs[0].pid);
	ring_buffer__free(d->rb);
	detect_bpf__destroy(d->skel);
	d->skel = NULL;
	d->rb = NULL;
}
