// SPDX-License-Identifier: GPL-2.0
/*
 * Armed-while-idle launch detection, user side (detect_armed.h says
 * how and why). A prototype: the test driver tests/detect/arm-run.c and
 * bench/detect-cost.sh use it; the daemon does not yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "detect_armed.h"
#include "detect_arm.skel.h"

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns() */
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct gp_da_proc *find(struct gp_da *d, pid_t pid)
{
	int i;

	for (i = 0; i < d->nprocs; i++)
		if (d->procs[i].pid == pid)
			return &d->procs[i];
	return NULL;
}

static int tp_write(const struct gp_da *d, const char *line)
{
	char p[160];
	int fd, err = 0;

	snprintf(p, sizeof(p), "%s/uprobe_events", d->tracefs);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* A tracepoint perf event of tracefs event id, scoped to pid. */
static int tp_open(int id, pid_t pid)
{
	struct perf_event_attr at = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(at),
		.config = id, .sample_period = 1, .wakeup_events = 1,
	};
	int fd = syscall(__NR_perf_event_open, &at, pid, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Event i of pid: group gpreempt_<our pid>, name p<pid>_<i>. */
static void ev_name(char *buf, size_t len, pid_t pid, int i)
{
	snprintf(buf, len, "gpreempt_%d/p%d_%d", getpid(), pid, i);
}

static int ev_define(struct gp_da *d, struct gp_da_proc *p, const char *lib,
		     unsigned long long off, int i)
{
	char name[64], line[PATH_MAX + 128], path[256];
	FILE *f;
	int err;

	ev_name(name, sizeof(name), p->pid, i);
	snprintf(line, sizeof(line), "p:%s %s:0x%llx\n", name, lib, off);
	err = tp_write(d, line);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events/%s/id", d->tracefs, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = fscanf(f, "%d", &p->id[i]) == 1 ? 0 : -ENOENT;
	fclose(f);
	if (err)
		return err;
	/* scoped to us, who do not map lib: registered, no breakpoint */
	p->anchor[i] = tp_open(p->id[i], getpid());
	if (p->anchor[i] < 0)
		return p->anchor[i];
	if (ioctl(p->anchor[i], PERF_EVENT_IOC_SET_BPF,
		  bpf_program__fd(d->skel->progs.gp_arm_launch)) ||
	    ioctl(p->anchor[i], PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

static int ctl_set(struct gp_da *d, struct gp_da_proc *p)
{
	__u32 key = p->pid;

	return bpf_map_update_elem(bpf_map__fd(d->skel->maps.gp_arm_ctls), &key,
				   &p->ctl, BPF_ANY) ? -errno : 0;
}

static int arm(struct gp_da *d, struct gp_da_proc *p)
{
	__u64 t = mono_ns();
	int i, fd;

	if (p->ctl.armed)
		return 0;
	for (i = 0; i < p->nlaunch; i++) {
		fd = tp_open(p->id[i], p->pid);
		if (fd < 0) {
			while (i--)
				close(p->fd[i]);
			return fd;
		}
		p->fd[i] = fd;
	}
	p->ctl.armed = 1;
	p->ctl.gen++;
	t = mono_ns() - t;
	d->c.arms++;
	d->c.arm_ns_sum += t;
	if (t > d->c.arm_ns_max)
		d->c.arm_ns_max = t;
	return ctl_set(d, p);
}

/* Marked disarmed first: a sync entered meanwhile then asks to arm. */
static int disarm(struct gp_da *d, struct gp_da_proc *p)
{
	__u64 t = mono_ns();
	int i, err;

	if (!p->ctl.armed)
		return 0;
	p->ctl.armed = 0;
	p->ctl.gen++;
	err = ctl_set(d, p);
	for (i = 0; i < p->nlaunch; i++)
		close(p->fd[i]);
	p->disarmed_ns = mono_ns();
	t = p->disarmed_ns - t;
	d->c.disarms++;
	d->c.disarm_ns_sum += t;
	if (t > d->c.disarm_ns_max)
		d->c.disarm_ns_max = t;
	return err;
}

int gp_da_arm(struct gp_da *d, pid_t pid)
{
	struct gp_da_proc *p = find(d, pid);

	return p ? arm(d, p) : -ENOENT;
}

int gp_da_disarm(struct gp_da *d, pid_t pid)
{
	struct gp_da_proc *p = find(d, pid);

	return p ? disarm(d, p) : -ENOENT;
}

int gp_da_set_idle(struct gp_da *d, pid_t pid)
{
	struct gp_da_proc *p = find(d, pid);
	int err;

	if (!p)
		return -ENOENT;
	err = arm(d, p);
	if (err)
		return err;
	p->ctl.idle_gen++;
	return ctl_set(d, p);
}

static int on_ring(void *ctx, void *data, size_t len)
{
	struct gp_da *d = ctx;
	const struct gp_edge *e = data;
	struct gp_da_proc *p;

	if (len < sizeof(*e) || !(p = find(d, e->pid)))
		return 0;
	switch (e->kind) {
	case GP_ARM_DISARM:
		disarm(d, p);
		break;
	case GP_ARM_ARM:
		arm(d, p);
		break;
	default:
		if (d->edge)
			d->edge(d->ctx, e);
	}
	return 0;
}

void gp_da_tick(struct gp_da *d)
{
	__u64 now = mono_ns();
	int i;

	for (i = 0; i < d->nprocs; i++) {
		struct gp_da_proc *p = &d->procs[i];

		if (!p->ctl.armed && now - p->disarmed_ns >= d->rearm_ns)
			arm(d, p);
	}
}

/*
 * Events a loader left behind when it died without its cleanup (killed):
 * groups gpreempt_<pid> of a pid that no longer exists. Their uprobes
 * stay registered, with no breakpoint anywhere, until removed here.
 */
static void sweep(struct gp_da *d)
{
	char p[160], line[PATH_MAX + 128], ev[96], del[112];
	int owner;
	FILE *f;

	snprintf(p, sizeof(p), "%s/uprobe_events", d->tracefs);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "p:%95s", ev) != 1 ||
		    sscanf(ev, "gpreempt_%d/", &owner) != 1 || owner <= 0 ||
		    owner == getpid() || !kill(owner, 0) || errno != ESRCH)
			continue;
		snprintf(del, sizeof(del), "-:%s\n", ev);
		tp_write(d, del);
	}
	if (f)
		fclose(f);
}

int gp_da_open(struct gp_da *d, const char *tracefs, __u64 rearm_ns,
	       __u32 min_launches, gp_da_edge_fn edge, void *ctx)
{
	int err;

	memset(d, 0, sizeof(*d));
	snprintf(d->tracefs, sizeof(d->tracefs), "%s", tracefs);
	d->rearm_ns = rearm_ns;
	sweep(d);
	d->edge = edge;
	d->ctx = ctx;
	d->skel = detect_arm_bpf__open();
	if (!d->skel)
		return -errno ?: -ENOMEM;
	if (min_launches)
		d->skel->rodata->gp_arm_min_launches = min_launches;
	err = detect_arm_bpf__load(d->skel);
	if (err) {
		detect_arm_bpf__destroy(d->skel);
		d->skel = NULL;
		return err;
	}
	d->rb = ring_buffer__new(bpf_map__fd(d->skel->maps.gp_arm_ring),
				 on_ring, d, NULL);
	if (!d->rb) {
		err = -errno ?: -ENOMEM;
		gp_da_close(d);
		return err;
	}
	return 0;
}

void gp_da_detach(struct gp_da *d, pid_t pid)
{
	struct gp_da_proc *p = find(d, pid);
	char name[64], line[80];
	__u32 key = pid;
	int i;

	if (!p)
		return;
	disarm(d, p);
	for (i = 0; i < p->nsync; i++)
		bpf_link__destroy(p->sync[i]);
	for (i = 0; i < p->nlaunch; i++) {
		if (p->anchor[i] > 0)
			close(p->anchor[i]);
		ev_name(name, sizeof(name), pid, i);
		snprintf(line, sizeof(line), "-:%s\n", name);
		tp_write(d, line);
	}
	bpf_map_delete_elem(bpf_map__fd(d->skel->maps.gp_arm_ctls), &key);
	bpf_map_delete_elem(bpf_map__fd(d->skel->maps.gp_arm_pids), &key);
	*p = d->procs[--d->nprocs];
}

static int attach_sync(struct gp_da *d, struct gp_da_proc *p, const char *lib,
		       unsigned long long off, __u32 entry)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = entry);
	struct bpf_link *l;
	int k;

	for (k = 0; k < 2; k++) {
		o.retprobe = k;
		l = bpf_program__attach_uprobe_opts(
			k ? d->skel->progs.gp_arm_sync_ret
			  : d->skel->progs.gp_arm_sync,
			p->pid, lib, off, &o);
		if (!l)
			return -errno;
		p->sync[p->nsync++] = l;
	}
	return 0;
}

int gp_da_attach(struct gp_da *d, pid_t pid, const char *lib,
		 const unsigned long long *launch, int nlaunch,
		 const unsigned long long *sync, const __u32 *sync_entry,
		 int nsync, char *reason, size_t len)
{
	struct gp_arm_state st = {};
	struct gp_da_proc *p;
	__u32 key = pid;
	int i, err;

	if (find(d, pid))
		return 0;
	if (d->nprocs >= GP_DA_MAX_PROCS || nlaunch > GP_DA_MAX_EV ||
	    nsync > GP_DA_MAX_EV) {
		snprintf(reason, len, "too many processes or entry points");
		return -ENOSPC;
	}
	p = &d->procs[d->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	err = bpf_map_update_elem(bpf_map__fd(d->skel->maps.gp_arm_pids), &key,
				  &st, BPF_ANY) ? -errno : ctl_set(d, p);
	if (err) {
		snprintf(reason, len, "BPF state map: %s", strerror(-err));
		goto fail;
	}
	for (i = 0; i < nlaunch; i++) {
		p->nlaunch = i + 1;
		err = ev_define(d, p, lib, launch[i], i);
		if (err) {
			snprintf(reason, len, "tracefs uprobe event at 0x%llx in %.160s (tracefs at %.100s): %s",
				 launch[i], lib, d->tracefs, strerror(-err));
			goto fail;
		}
	}
	for (i = 0; i < nsync; i++) {
		err = attach_sync(d, p, lib, sync[i], sync_entry[i]);
		if (err) {
			snprintf(reason, len, "sync uprobe at 0x%llx in %.160s: %s",
				 sync[i], lib, strerror(-err));
			goto fail;
		}
	}
	err = arm(d, p);
	if (err) {
		snprintf(reason, len, "arming: %s", strerror(-err));
		goto fail;
	}
	return 0;
fail:
	gp_da_detach(d, pid);
	return err;
}

int gp_da_state(const struct gp_da *d, pid_t pid, struct gp_arm_state *st)
{
	__u32 key = pid;

	return bpf_map_lookup_elem(bpf_map__fd(d->skel->maps.gp_arm_pids), &key,
				   st) ? -errno : 0;
}

int gp_da_fd(const struct gp_da *d)
{
	return ring_buffer__epoll_fd(d->rb);
}

int gp_da_drain(struct gp_da *d)
{
	return ring_buffer__consume(d->rb);
}

void gp_da_close(struct gp_da *d)
{
	while (d->nprocs)
		gp_da_detach(d, d->procs[0].pid);
	ring_buffer__free(d->rb);
	if (d->skel)
		d->c.lost = d->skel->bss->gp_arm_lost;
	detect_arm_bpf__destroy(d->skel);
	d->skel = NULL;
	d->rb = NULL;
}
