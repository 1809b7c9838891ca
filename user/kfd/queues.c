// SPDX-License-Identifier: GPL-2.0
/* The PID -> queue table: sysfs scan, BPF map seeding and reading. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "json.h"
#include "kfd.h"
#include "mapdump.h"
#include "queues.h"
#include "util.h"

/* The process or queue went away between readdir and read. */
static bool vanished(int err)
{
	return err == ENOENT || err == ENODEV || err == ESRCH;
}

int gp_parse_sysfs_u64(const char *s, __u64 *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int read_u64(const char *dir, const char *name, __u64 *out)
{
	char path[PATH_MAX], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return gp_parse_sysfs_u64(buf, out);
}

static bool pid_wanted(const struct gp_scan_opts *so, __u32 pid)
{
	int i;

	if (!so->npids)
		return true;
	for (i = 0; i < so->npids; i++)
		if ((__u32)so->pids[i] == pid)
			return true;
	return false;
}

/* One queue directory into r; 0, or -errno (vanished or unreadable). */
static int read_queue(const char *qdir, struct gp_queue_row *r)
{
	__u64 gpuid, type, size;
	int err;

	err = read_u64(qdir, "gpuid", &gpuid);
	if (!err)
		err = read_u64(qdir, "type", &type);
	if (!err)
		err = read_u64(qdir, "size", &size);
	if (err)
		return err;
	if (gpuid > UINT32_MAX || type > UINT32_MAX)
		return -EINVAL;
	r->k.gpu_id = gpuid;
	r->v.type = type;
	r->v.ring_size = size;
	r->v.state = GP_QS_ACTIVE;
	r->v.origin = GP_ORIGIN_SYSFS;
	r->v.ioc_type = GP_IOC_QT_UNKNOWN;	/* sysfs has the kernel type */
	return 0;
}

int gp_queues_scan(struct gp_scan_opts *so, gp_queue_cb cb, void *ctx)
{
	const char *root = so->root ? so->root : KFD_SYSFS_PROC;
	char dir[PATH_MAX], qdir[PATH_MAX];
	int *pids = NULL, *qids = NULL;
	int npids, nq, i, q, rows = 0, ret = 0;

	so->vanished = 0;
	so->unreadable = 0;
	npids = gp_dir_ids(root, &pids);
	if (npids < 0)
		return npids;
	for (i = 0; i < npids && !ret; i++) {
		if (!pid_wanted(so, pids[i]))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%d/queues", root,
			     pids[i]) >= (int)sizeof(dir))
			continue;
		nq = gp_dir_ids(dir, &qids);
		if (nq < 0) {
			/* Gone since listed, or a KFD with no queues dir. */
			if (nq == -ENOMEM) {
				ret = nq;
				break;
			}
			continue;
		}
		for (q = 0; q < nq && !ret; q++) {
			struct gp_queue_row r = {
				.k = { .pid = pids[i], .queue_id = qids[q] },
			};
			int err = -ENAMETOOLONG;

			if (snprintf(qdir, sizeof(qdir), "%s/%d", dir,
				     qids[q]) < (int)sizeof(qdir)) {
				if (so->before_queue)
					so->before_queue(qdir, so->hook_ctx);
				err = read_queue(qdir, &r);
			}
			if (err) {
				/* The row is skipped either way. */
				if (vanished(-err))
					so->vanished++;
				else
					so->unreadable++;
				continue;
			}
			rows++;
			ret = cb(&r, ctx);
		}
		free(qids);
		qids = NULL;
	}
	free(pids);
	return ret ? ret : rows;
}

struct row_array {
	struct gp_queue_row *rows;
	size_t n, cap;
};

static int append_row(const struct gp_queue_row *r, void *ctx)
{
	struct row_array *a = ctx;
	struct gp_queue_row *tmp;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		tmp = realloc(a->rows, a->cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		a->rows = tmp;
	}
	a->rows[a->n++] = *r;
	return 0;
}

int gp_queues_scan_array(struct gp_scan_opts *so, struct gp_queue_row **rows)
{
	struct row_array a = {};
	int ret = gp_queues_scan(so, append_row, &a);

	if (ret < 0) {
		free(a.rows);
		*rows = NULL;
		return ret;
	}
	*rows = a.rows;
	return a.n;
}

struct seed_ctx {
	int fd;
	int written;
};

static int seed_row(const struct gp_queue_row *r, void *ctx)
{
	struct seed_ctx *s = ctx;

	/* BPF may have seen the queue created already: its row wins. */
	if (bpf_map_update_elem(s->fd, &r->k, &r->v, BPF_NOEXIST)) {
		if (errno == EEXIST)
			return 0;
		return -errno;	/* E2BIG: map full; stop */
	}
	s->written++;
	return 0;
}

int gp_queues_seed_from(int map_fd, struct gp_scan_opts *so)
{
	struct seed_ctx s = { .fd = map_fd };
	int ret = gp_queues_scan(so, seed_row, &s);

	return ret < 0 ? ret : s.written;
}

int gp_queues_index(int queues_fd, int owners_fd, int qidx_fd)
{
	struct gp_queue_row *rows;
	struct gp_qidx_key ik;
	__u8 one = 1;
	int n = gp_queues_collect(queues_fd, &rows);

	for (int i = 0; i < n; i++) {
		ik.pid = rows[i].k.pid;
		ik.queue_id = rows[i].k.queue_id;
		if (bpf_map_update_elem(owners_fd, &ik.pid, &one, BPF_ANY) ||
		    bpf_map_update_elem(qidx_fd, &ik, &rows[i].k.gpu_id,
					BPF_ANY)) {
			n = -errno;
			break;
		}
	}
	free(rows);
	return n;
}

int gp_queues_seed(int map_fd, const int *pids, int npids)
{
	struct gp_scan_opts so = { .pids = pids, .npids = npids };

	return gp_queues_seed_from(map_fd, &so);
}

static int row_cmp(const void *a, const void *b)
{
	const struct gp_queue_key *x = &((const struct gp_queue_row *)a)->k;
	const struct gp_queue_key *y = &((const struct gp_queue_row *)b)->k;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->gpu_id != y->gpu_id)
		return x->gpu_id < y->gpu_id ? -1 : 1;
	if (x->queue_id != y->queue_id)
		return x->queue_id < y->queue_id ? -1 : 1;
	return 0;
}

void gp_queues_sort(struct gp_queue_row *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof(*rows), row_cmp);
}

int gp_queues_collect(int map_fd, struct gp_queue_row **rows)
{
	struct row_array a = {};
	struct gp_queue_key *keys;
	struct gp_queue_val *vals;
	size_t i, out;
	int n;

	*rows = NULL;
	n = gp_map_dump(map_fd, sizeof(*keys), sizeof(*vals), true,
			(void **)&keys, (void **)&vals);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		struct gp_queue_row r = { .k = keys[i], .v = vals[i] };

		if (append_row(&r, &a)) {
			n = -ENOMEM;
			break;
		}
	}
	free(keys);
	free(vals);
	if (n < 0) {
		free(a.rows);
		return n;
	}
	/* The per-key fallback may repeat a row: duplicates go below. */
	gp_queues_sort(a.rows, a.n);
	for (i = 0, out = 0; i < a.n; i++)
		if (!out || row_cmp(&a.rows[out - 1], &a.rows[i]))
			a.rows[out++] = a.rows[i];
	*rows = a.rows;
	return out;
}

static const char *state_text(__u32 s, char *buf, size_t len)
{
	if (s == GP_QS_EVICTED_SUSPENDED)
		return "evict+susp";
	return names_or_num(gp_qstate_name(s), s, buf, len);
}

static const char *origin_name(__u32 o)
{
	return gp_origin_name(o) ? gp_origin_name(o) : "?";
}

static const char *ktype(__u32 t, char *buf, size_t len)
{
	return names_or_num(gp_kq_type_name(t), t, buf, len);
}

void gp_queue_row_header(FILE *f)
{
	fprintf(f, "%-7s %5s %4s %-11s %4s %6s %-10s %-5s %4s %4s %4s %4s\n",
		"PID", "GPU", "QID", "TYPE", "PRIO", "RING", "STATE", "FROM",
		"EVCT", "RSTR", "SUSP", "RESM");
}

void gp_queue_row_text(FILE *f, const struct gp_queue_row *r)
{
	char tb[16], sb[16], sz[24];

	fprintf(f, "%-7u %5u %4u %-11s %4u %6s %-10s %-5s %4u %4u %4u %4u\n",
		r->k.pid, r->k.gpu_id, r->k.queue_id,
		ktype(r->v.type, tb, sizeof(tb)), r->v.priority,
		gp_fmt_size(sz, sizeof(sz), r->v.ring_size),
		state_text(r->v.state, sb, sizeof(sb)),
		origin_name(r->v.origin), r->v.evictions, r->v.restores,
		r->v.suspends, r->v.resumes);
}

void gp_queue_row_json(FILE *f, const struct gp_queue_row *r)
{
	char tb[16], sb[16];
	struct json j;

	json_begin(&j, f);
	json_str(&j, "type", "queue");
	json_u64(&j, "pid", r->k.pid);
	json_u64(&j, "gpu_id", r->k.gpu_id);
	json_u64(&j, "queue_id", r->k.queue_id);
	json_str(&j, "queue_type", ktype(r->v.type, tb, sizeof(tb)));
	json_u64(&j, "queue_type_raw", r->v.type);
	json_u64(&j, "priority", r->v.priority);
	json_u64(&j, "ring_size_bytes", r->v.ring_size);
	json_str(&j, "state", names_or_num(gp_qstate_name(r->v.state),
					     r->v.state, sb, sizeof(sb)));
	json_str(&j, "origin", origin_name(r->v.origin));
	json_u64(&j, "created_boot_ns", r->v.created_ns);
	json_u64(&j, "changed_boot_ns", r->v.changed_ns);
	json_u64(&j, "evictions", r->v.evictions);
	json_u64(&j, "restores", r->v.restores);
	json_u64(&j, "suspends", r->v.suspends);
	json_u64(&j, "resumes", r->v.resumes);
	json_end(&j);
}

void gp_queue_rows_print(FILE *f, const struct gp_queue_row *rows, size_t n,
			 const struct gp_out_opts *o)
{
	size_t i;

	if (o->json) {
		for (i = 0; i < n; i++)
			gp_queue_row_json(f, &rows[i]);
		return;
	}
	if (!n) {
		fprintf(f, "No KFD queues.\n");
		return;
	}
	gp_queue_row_header(f);
	for (i = 0; i < n; i++)
		gp_queue_row_text(f, &rows[i]);
}

int gp_queues_print(FILE *f, int map_fd, const struct gp_out_opts *o)
{
	struct gp_queue_row *rows;
	int n = gp_queues_collect(map_fd, &rows);

	if (n < 0)
		return n;
	gp_queue_rows_print(f, rows, n, o);
	free(rows);
	return n;
}
