// SPDX-License-Identifier: GPL-2.0
/* The tracer's BPF object and loader as a library; see probe.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gpreempt.skel.h"
#include "attach.h"
#include "exitcodes.h"
#include "probe.h"
#include "queues.h"

#define BPF_FS_MAGIC_GP 0xcafe4a11

struct gp_probe {
	struct gpreempt_bpf *skel;
	struct ring_buffer *rb;
	struct gp_attach a;
	gp_probe_event_fn on_event;
	void *ctx;
	char *pinned;		/* path we pinned, to unpin */
};

static int fail(struct gp_probe_err *e, int code, int err, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(struct gp_probe_err *e, int code, int err, const char *fmt,
		...)
{
	va_list ap;

	e->exit_code = code;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

static __u32 emit_mask(enum gp_probe_emit m)
{
	switch (m) {
	case GP_EMIT_IMMEDIATE:
		return GP_IMMEDIATE_OPS;
	case GP_EMIT_NONE:
		return 0;
	default:
		return GP_ALL_OPS;
	}
}

/* open -> rodata -> load; one retry with kprobes if fentry fails. */
static int open_and_load(struct gp_probe *p, const struct gp_probe_opts *o,
			 struct gp_probe_err *e)
{
	struct gp_attach *a = &p->a;
	int err = 0;

	for (int attempt = 0; attempt < 2; attempt++) {
		bool fentry = false;

		p->skel = gpreempt_bpf__open();
		if (!p->skel)
			return fail(e, GP_EXIT_FAILURE, -errno, "cannot open the"
				    " BPF object: %s", strerror(errno));
		p->skel->rodata->gp_filter_pids = o->npids > 0;
		p->skel->rodata->gp_evflags = a->reduced ? GP_EVF_REDUCED : 0;
		p->skel->rodata->gp_hist_unit_ns = o->hist_unit_ns ?
						   o->hist_unit_ns : 1;
		p->skel->rodata->gp_emit_ops = emit_mask(o->emit);
		p->skel->rodata->gp_wake_ops =
			o->immediate || o->emit == GP_EMIT_IMMEDIATE ?
			GP_IMMEDIATE_OPS : 0;
		/*
		 * GP_LEAN (lean.bpf.h), from the rodata just set: summary
		 * mode without -p keeps its pairs in the lean rows, the rest
		 * in the pending rows; a mode's unused rows shrink to one
		 * (~300 KiB each otherwise).
		 */
		bpf_map__set_max_entries(p->skel->rodata->gp_emit_ops ||
					 p->skel->rodata->gp_filter_pids ?
					 p->skel->maps.gp_lean_rows :
					 p->skel->maps.gp_pend_rows, 1);
		gp_attach_prepare(a, p->skel->obj);
		for (int i = 0; i < gp_nhooks; i++)
			fentry |= a->plan[i].how == GP_HOW_FENTRY;
		err = gpreempt_bpf__load(p->skel);
		if (!err)
			return 0;
		gpreempt_bpf__destroy(p->skel);
		p->skel = NULL;
		if (!fentry)
			break;
		a->fentry_load_err = err;
		gp_attach_demote(a, "fentry load failed");
	}
	return fail(e, GP_EXIT_NO_BPF, err, "the kernel refused the BPF "
		    "programs: %s (run with -v for the verifier log; a kernel"
		    " in lockdown mode or without CONFIG_BPF_SYSCALL refuses "
		    "them)", strerror(-err));
}

/* GP_PIN_HISTS_NAME beside the pinned queue map; -1 if it does not fit. */
static int hists_path(const struct gp_probe *p, char *buf, size_t len)
{
	const char *slash = p->pinned ? strrchr(p->pinned, '/') : NULL;
	int n;

	if (!slash)
		return -1;
	n = snprintf(buf, len, "%.*s/" GP_PIN_HISTS_NAME,
		     (int)(slash - p->pinned), p->pinned);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* bpffs at path's parent's parent (/sys/fs/bpf), mounting it if needed. */
static int pin_queues(struct gp_probe *p, const char *path,
		      struct gp_probe_err *e)
{
	char dir[256], *slash;
	struct statfs fs;
	int err;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC_GP) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL))
			return fail(e, GP_EXIT_FAILURE, -errno, "no bpffs at "
				    "/sys/fs/bpf and mounting one failed (%s): "
				    "the queue map is not pinned (gpreempt-ctl "
				    "list will not see it)", strerror(errno));
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return fail(e, GP_EXIT_FAILURE, -errno, "cannot create %s: %s",
			    dir, strerror(errno));
	/*
	 * A pin no program uses was left by a tracer that was killed: ours
	 * replaces it. One that a running tracer keeps current stays.
	 */
	err = gp_queues_open_pinned_at(path);
	if (err >= 0) {
		close(err);
		return fail(e, GP_EXIT_FAILURE, -EEXIST, "another tracer's "
			    "queue map is pinned at %s and live: it stays "
			    "(gpreempt-ctl list reads that one); this tracer's"
			    " map is not pinned", path);
	}
	if (err == -ESTALE)
		unlink(path);
	err = bpf_map__pin(p->skel->maps.gp_queues, path);
	if (err)
		return fail(e, GP_EXIT_FAILURE, err, "cannot pin the queue map"
			    " at %s: %s", path, strerror(-err));
	p->pinned = strdup(path);
	/*
	 * The histograms beside it, for `gpreempt-ctl bugreport`: best
	 * effort. The queue pin was ours to take, so a hists pin there is
	 * a killed tracer's.
	 */
	if (hists_path(p, dir, sizeof(dir)) == 0) {
		unlink(dir);
		bpf_map__pin(p->skel->maps.gp_hists, dir);
	}
	return 0;
}

/* The map pinned at path is this probe's own. */
static bool pin_is_ours(struct gp_probe *p, const char *path)
{
	struct bpf_map_info a = {}, b = {};
	__u32 la = sizeof(a), lb = sizeof(b);
	int fd = bpf_obj_get(path);
	bool ours;

	if (fd < 0)
		return false;
	ours = !bpf_map_get_info_by_fd(fd, &a, &la) &&
	       !bpf_map_get_info_by_fd(gp_probe_queues_fd(p), &b, &lb) &&
	       a.id == b.id;
	close(fd);
	return ours;
}

static void unpin_queues(struct gp_probe *p)
{
	char *slash;

	if (!p->pinned)
		return;
	/* Never another tracer's: it may have replaced ours if stale. */
	if (pin_is_ours(p, p->pinned)) {
		char hists[256];

		unlink(p->pinned);
		if (hists_path(p, hists, sizeof(hists)) == 0)
			unlink(hists);
	}
	slash = strrchr(p->pinned, '/');
	if (slash) {
		*slash = '\0';
		rmdir(p->pinned);	/* only if empty */
	}
	free(p->pinned);
	p->pinned = NULL;
}

static int on_sample(void *ctx, void *data, size_t len)
{
	struct gp_probe *p = ctx;

	if (len < sizeof(struct gp_event))
		return 0;
	return p->on_event(p->ctx, data);
}

int gp_probe_open(const struct gp_probe_opts *o, struct gp_probe **out,
		  struct gp_probe_err *e)
{
	struct gp_probe *p;
	int err;

	memset(e, 0, sizeof(*e));
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return fail(e, GP_EXIT_FAILURE, -ENOMEM, "out of memory");
	p->on_event = o->on_event;
	p->ctx = o->ctx;
	gp_attach_plan(&p->a, o->kprobes, o->reduced);
	err = open_and_load(p, o, e);
	if (err)
		goto fail;
	for (int i = 0; i < o->npids; i++) {
		__u32 pid = o->pids[i];
		__u8 one = 1;

		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.gp_pids),
					&pid, &one, BPF_ANY)) {
			err = fail(e, GP_EXIT_FAILURE, -errno, "cannot set the "
				   "pid filter: %s (at most 64 pids)",
				   strerror(errno));
			goto fail;
		}
	}
	if (!o->no_links)
		gp_attach_links(&p->a, p->skel->obj);
	if (!o->no_seed) {
		/* Queues that existed before us; BPF keeps the map current. */
		gp_queues_seed(gp_probe_queues_fd(p), o->pids, o->npids);
		gp_queues_index(gp_probe_queues_fd(p),
				bpf_map__fd(p->skel->maps.gp_owners),
				bpf_map__fd(p->skel->maps.gp_qidx));
	}
	if (o->pin_path && pin_queues(p, o->pin_path, e)) {
		/* Not fatal: the tracer works, `list` will not see it. */
		e->exit_code = 0;
	}
	if (p->on_event) {
		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.gp_events),
					 on_sample, p, NULL);
		if (!p->rb) {
			err = fail(e, GP_EXIT_FAILURE, -errno, "cannot read the "
				   "ring buffer: %s", strerror(errno));
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	gp_probe_close(p);
	return err;
}

void gp_probe_close(struct gp_probe *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	unpin_queues(p);
	gp_attach_fini(&p->a);
	gpreempt_bpf__destroy(p->skel);
	free(p);
}

const struct gp_attach *gp_probe_attach_info(const struct gp_probe *p)
{
	return &p->a;
}

int gp_probe_fd(const struct gp_probe *p)
{
	return p->rb ? ring_buffer__epoll_fd(p->rb) : -1;
}

int gp_probe_poll(struct gp_probe *p, int timeout_ms)
{
	int n, m;

	if (!p->rb)
		return -EINVAL;
	/*
	 * BPF wakes the fd only for immediate events or when 1/16 of the
	 * ring is pending (gp_emit): consume after the wait, or a batched
	 * event would wait for the next wakeup.
	 */
	n = ring_buffer__poll(p->rb, timeout_ms);
	if (n == -EINTR)
		n = 0;
	if (n < 0)
		return n;
	m = ring_buffer__consume(p->rb);
	if (m < 0)
		return m == -EINTR ? n : m;
	return n + m;
}

int gp_probe_queue(const struct gp_probe *p, __u32 pid, __u32 gpu_id,
		   __u32 queue_id, struct gp_queue_val *v)
{
	struct gp_queue_key k = { .pid = pid, .gpu_id = gpu_id,
				  .queue_id = queue_id };

	if (gpu_id == GP_ANY_GPU) {
		struct gp_qidx_key ik = { .pid = pid, .queue_id = queue_id };

		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.gp_qidx),
					&ik, &k.gpu_id))
			return -ENOENT;
	}
	if (bpf_map_lookup_elem(gp_probe_queues_fd(p), &k, v))
		return -ENOENT;
	return 0;
}

int gp_probe_queues_fd(const struct gp_probe *p)
{
	return bpf_map__fd(p->skel->maps.gp_queues);
}

struct bpf_object *gp_probe_object(const struct gp_probe *p)
{
	return p->skel->obj;
}

int gp_probe_hists_fd(const struct gp_probe *p)
{
	return bpf_map__fd(p->skel->maps.gp_hists);
}

__u64 gp_probe_stat(const struct gp_probe *p, enum gp_stat s)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 sum = 0, *v;
	__u32 key = s;

	if (ncpu <= 0)
		return 0;
	v = calloc(ncpu, sizeof(*v));
	if (v && !bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.gp_lost),
				      &key, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

int gp_probe_counts(const struct gp_probe *p, struct gp_count *out)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0;
	struct gp_count *v;

	if (ncpu <= 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	fd = bpf_map__fd(p->skel->maps.gp_counts);
	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		out[op].count = out[op].failed = 0;
		if (bpf_map_lookup_elem(fd, &op, v)) {
			err = -errno;
			break;
		}
		for (int i = 0; i < ncpu; i++) {
			out[op].count += v[i].count;
			out[op].failed += v[i].failed;
		}
	}
	free(v);
	return err;
}

__u64 gp_probe_lost(const struct gp_probe *p)
{
	return gp_probe_stat(p, GP_STAT_LOST);
}
