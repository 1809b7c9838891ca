// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector's BPF half: load detect.bpf.c, seed an online
 * process's state, attach its uprobes scoped to its pid, drain edges.
 * Nothing here reads another process: gp_dl_scan() did that.
 */
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

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

/*
 * The WAIT_EVENTS hook's flavours, best first: fentry/fexit need amdgpu's
 * module BTF (libbpf finds the function there by its section name);
 * kprobes need the symbol in kallsyms and a kernel with kprobes. The
 * detector works without it (sync uretprobes and the grace end a busy
 * period), so a refusal only says why in d->wait_why.
 */
enum { WAIT_FENTRY, WAIT_KPROBE, WAIT_NONE };
static const char *const wait_how[] = { "fentry/fexit", "kprobe/kretprobe",
					"absent" };

static int load(struct gp_dl *d, __u64 grace_ns, int how)
{
	struct bpf_program *fe, *fx, *kp, *kr;
	int err;

	d->skel = detect_bpf__open();
	if (!d->skel)
		return -errno ?: -ENOMEM;
	d->skel->rodata->gp_launch_grace_ns = grace_ns;
	fe = d->skel->progs.fe_wait;
	fx = d->skel->progs.fx_wait;
	kp = d->skel->progs.kp_wait;
	kr = d->skel->progs.kr_wait;
	bpf_program__set_autoload(fe, how == WAIT_FENTRY);
	bpf_program__set_autoload(fx, how == WAIT_FENTRY);
	bpf_program__set_autoload(kp, how == WAIT_KPROBE);
	bpf_program__set_autoload(kr, how == WAIT_KPROBE);
	err = detect_bpf__load(d->skel);
	if (!err && how != WAIT_NONE) {
		d->wait_links[0] = bpf_program__attach(how == WAIT_FENTRY ? fe : kp);
		err = d->wait_links[0] ? 0 : -errno;
		if (!err) {
			d->wait_links[1] = bpf_program__attach(
				how == WAIT_FENTRY ? fx : kr);
			err = d->wait_links[1] ? 0 : -errno;
		}
	}
	if (err) {
		bpf_link__destroy(d->wait_links[0]);
		bpf_link__destroy(d->wait_links[1]);
		d->wait_links[0] = d->wait_links[1] = NULL;
		detect_bpf__destroy(d->skel);
		d->skel = NULL;
	}
	return err;
}

static void load_best(struct gp_dl *d, __u64 grace_ns, int *err)
{
	int how, e, n = 0;

	d->wait_why[0] = '\0';
	how = WAIT_FENTRY;
	if (access("/sys/module/amdgpu", F_OK)) {
		snprintf(d->wait_why, sizeof(d->wait_why),
			 "amdgpu is not loaded");
		how = WAIT_NONE;
	} else if (access("/sys/kernel/btf/amdgpu", F_OK)) {
		n = snprintf(d->wait_why, sizeof(d->wait_why),
			     "fentry/fexit: amdgpu has no module BTF");
		how = WAIT_KPROBE;
	}
	for (; how <= WAIT_NONE; how++) {
		e = load(d, grace_ns, how);
		if (!e) {
			d->wait_how = wait_how[how];
			*err = 0;
			return;
		}
		if (how != WAIT_NONE)
			n += snprintf(d->wait_why + n, sizeof(d->wait_why) - n,
				      "%s%s: %s", n ? "; " : "", wait_how[how],
				      strerror(-e));
		if (n >= (int)sizeof(d->wait_why))
			n = sizeof(d->wait_why) - 1;
		*err = e;
	}
}

int gp_dl_open(struct gp_dl *d, __u64 grace_ns, gp_dl_edge_fn edge,
	       void *ctx)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->edge = edge;
	d->ctx = ctx;
	load_best(d, grace_ns, &err);
	if (err)
		return err;
	d->rb = ring_buffer__new(bpf_map__fd(d->skel->maps.gp_edges), on_ring,
				 d, NULL);
	if (!d->rb) {
		err = -errno ?: -ENOMEM;
		gp_dl_close(d);
		return err;
	}
	return 0;
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
	/* lib came from a scan's process, which read hostile input */
	if (lib->rt < 0 || lib->rt >= GP_RT_MAX) {
		snprintf(reason, len, "no such GPU runtime (%d)", lib->rt);
		return -EINVAL;
	}
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
		const struct gp_dl_entry *en =
			&gp_dl_runtimes[lib->rt].entries[i];
		LIBBPF_OPTS(bpf_uprobe_opts, o,
			    .bpf_cookie = GP_ENT_COOKIE(lib->rt, i),
			    .retprobe = en->retprobe);
		struct bpf_link *l;

		if (!lib->off[i] || !en->sym)
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

int gp_dl_seed_busy(struct gp_dl *d, pid_t pid)
{
	struct gp_launch_state st = { .busy = 1, .launches = 1 };
	struct gp_dl_proc *p = find(d, pid);
	struct timespec ts;
	__u32 key = pid;

	if (!p) {
		if (d->nprocs >= GP_DL_MAX_PROCS)
			return -ENOSPC;
		p = &d->procs[d->nprocs++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns() */
	st.last_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	return bpf_map_update_elem(bpf_map__fd(d->skel->maps.gp_launch_pids),
				   &key, &st, BPF_ANY) ? -errno : 0;
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
	c->wait_returns = d->skel->bss->gp_wait_returns;
}

void gp_dl_close(struct gp_dl *d)
{
	while (d->nprocs)
		gp_dl_detach(d, d->procs[0].pid);
	ring_buffer__free(d->rb);
	bpf_link__destroy(d->wait_links[0]);
	bpf_link__destroy(d->wait_links[1]);
	d->wait_links[0] = d->wait_links[1] = NULL;
	detect_bpf__destroy(d->skel);
	d->skel = NULL;
	d->rb = NULL;
}
