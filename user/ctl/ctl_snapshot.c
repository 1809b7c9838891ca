// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl snapshot`: collection and arguments (printing is in
 * ctl_snapshot_out.c). Everything is read as files under s->root so the
 * L0 tests run it on tests/unit/fixtures/snapshot_root.
 */
#include <argp.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "ctl_cmd.h"
#include "ctl_snapshot.h"
#include "exitcodes.h"
#include "json.h"
#include "util.h"

#define SNAP_TOPOLOGY	"/sys/class/kfd/kfd/topology"
#define SNAP_PROC	"/sys/class/kfd/kfd/proc"
#define SNAP_MQDS	"/sys/kernel/debug/kfd/mqds"
#define SNAP_HQDS	"/sys/kernel/debug/kfd/hqds"
#define SNAP_POLICY	"/sys/module/amdgpu/parameters/sched_policy"

/* s->root followed by the printf-formatted rest. */
static void __attribute__((format(printf, 4, 5)))
path_of(const struct snap *s, char *buf, size_t len, const char *fmt, ...)
{
	int n = snprintf(buf, len, "%s", s->root);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* NSpid (innermost = last field) and the real uid from status. */
static void read_status(const char *path, struct snap_proc *p)
{
	char line[256], *tok, *save;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "TracerPid:", 10)) {
			p->tracer = strtol(line + 10, NULL, 10);
		} else if (!strncmp(line, "Uid:", 4)) {
			p->uid = strtol(line + 4, NULL, 10);
		} else if (!strncmp(line, "NSpid:", 6)) {
			for (tok = strtok_r(line + 6, " \t\n", &save); tok;
			     tok = strtok_r(NULL, " \t\n", &save))
				p->ns_pid = atoi(tok);
		}
	}
	fclose(f);
}

/* The cgroup v2 line "0::/path"; on a v1 host the first line. */
static void read_cgroup(const char *path, struct snap_proc *p)
{
	char line[sizeof(p->cgroup)], *c;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0::", 3)) {
			snprintf(p->cgroup, sizeof(p->cgroup), "%s", line + 3);
			break;
		}
		if (!p->cgroup[0] && (c = strchr(line, ':')) &&
		    (c = strchr(c + 1, ':')))
			snprintf(p->cgroup, sizeof(p->cgroup), "%s", c + 1);
	}
	fclose(f);
}

static int collect_procs(struct snap *s)
{
	char dir[600], path[700];
	struct snap_proc *v, *p;
	int *pids, n, i, m = 0;

	path_of(s, dir, sizeof(dir), SNAP_PROC);
	n = gp_dir_ids(dir, &pids);	/* skips "self", context_N, ... */
	if (n <= 0)
		return n;
	v = calloc(n, sizeof(*v));
	if (!v) {
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!pids[i])
			continue;
		p = &v[m++];
		p->pid = pids[i];
		p->uid = -1;
		path_of(s, path, sizeof(path), "/proc/%d/comm", p->pid);
		if (read_text(path, p->comm, sizeof(p->comm)) || !p->comm[0])
			snprintf(p->comm, sizeof(p->comm), "?");
		path_of(s, path, sizeof(path), "/proc/%d/status", p->pid);
		read_status(path, p);
		path_of(s, path, sizeof(path), "/proc/%d/cgroup", p->pid);
		read_cgroup(path, p);
		if (p->tracer > 0) {
			path_of(s, path, sizeof(path), "/proc/%d/comm",
				p->tracer);
			if (read_text(path, p->tracer_comm,
				      sizeof(p->tracer_comm)))
				p->tracer_comm[0] = 0;
		}
	}
	free(pids);
	s->procs = v;
	return m;
}

static int load_dump(const struct snap *s, const char *file, char **text)
{
	char path[600];

	path_of(s, path, sizeof(path), "%s", file);
	return gp_mqd_slurp(path, text);
}

static void collect_debugfs(struct snap *s)
{
	uint32_t ids[64], gfx[64];
	size_t ng = 0;
	char *t = NULL;
	int i, j;

	for (i = 0; i < s->nnodes && ng < 64; i++)
		if (s->nodes[i].gpu_id) {
			ids[ng] = s->nodes[i].gpu_id;
			gfx[ng++] = s->nodes[i].gfx_target_version;
		}
	s->mqd_err = load_dump(s, SNAP_MQDS, &t);
	if (!s->mqd_err) {
		s->mqd_err = gp_mqds_parse(t, &s->m);
		free(t);
		gp_mqd_apply_layouts(&s->m, ids, gfx, ng);
	}
	s->hqd_err = load_dump(s, SNAP_HQDS, &t);
	if (!s->hqd_err) {
		s->hqd_err = gp_hqds_parse(t, &s->h);
		free(t);
		gp_hqd_apply_layouts(&s->h, ids, gfx, ng);
	}
	if (!s->mqd_err && !s->hqd_err)
		gp_mqd_match_hqds(&s->m, &s->h);
	if (!s->mqd_err && s->nrows > 0) {
		int *pids = calloc(s->nrows, sizeof(*pids));
		uint32_t *g = calloc(s->nrows, sizeof(*g));
		uint32_t *q = calloc(s->nrows, sizeof(*q));
		uint32_t *ty = calloc(s->nrows, sizeof(*ty));

		if (pids && g && q && ty) {
			for (j = 0; j < s->nrows; j++) {
				pids[j] = s->rows[j].k.pid;
				g[j] = s->rows[j].k.gpu_id;
				q[j] = s->rows[j].k.queue_id;
				ty[j] = s->rows[j].v.type;
			}
			gp_mqd_assign_ids(&s->m, pids, g, q, ty, s->nrows);
		}
		free(pids);
		free(g);
		free(q);
		free(ty);
	}
}

static void collect_live(struct snap *s)
{
	struct gp_queue_row *live = NULL;
	int fd, m;

	fd = gp_queues_open_pinned();
	if (fd < 0) {
		s->live = fd;
		return;
	}
	m = gp_queues_collect(fd, &live);
	close(fd);
	if (m < 0) {
		s->live = m;
		return;
	}
	/* the same overlay as `list`: sysfs decides which queues exist */
	s->live = ctl_queues_overlay(s->rows, s->nrows, live, m);
	free(live);
}

void snap_collect(struct snap *s, const char *root, bool use_map)
{
	char path[600], buf[32];
	struct gp_scan_opts so = {};
	int i, k;

	memset(s, 0, sizeof(*s));
	if (root && strcmp(root, "/"))
		snprintf(s->root, sizeof(s->root), "%s", root);
	path_of(s, path, sizeof(path), SNAP_TOPOLOGY);
	s->nnodes = gp_topo_read(path, &s->nodes);
	path_of(s, path, sizeof(path), SNAP_POLICY);
	s->sched_policy = read_text(path, buf, sizeof(buf));
	if (!s->sched_policy)
		s->sched_policy = buf[0] ? atoi(buf) : -EIO;
	s->nprocs = collect_procs(s);
	path_of(s, path, sizeof(path), SNAP_PROC);
	so.root = path;
	s->nrows = gp_queues_scan_array(&so, &s->rows);
	if (s->nrows < 0)
		s->nrows = 0;
	for (i = 0; i < s->nrows; i++)
		for (k = 0; k < s->nprocs; k++)
			if (s->procs[k].pid == (int)s->rows[i].k.pid)
				s->procs[k].queues++;
	s->live = -ENOENT;
	if (use_map)
		collect_live(s);
	collect_debugfs(s);
}

void snap_free(struct snap *s)
{
	free(s->nodes);
	free(s->procs);
	free(s->rows);
	gp_mqd_dump_free(&s->m);
	gp_hqd_dump_free(&s->h);
}

struct snap_args {
	const char *root;
	bool json, verbose, help;
};

static const struct argp_option snap_opts[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line on stdout", 0 },
	{ "verbose", 'v', NULL, 0, "Raw words of MQDs that are not decoded, "
	  "every HQD slot", 0 },
	{ "root", 'r', "DIR", 0, "Read the files under DIR instead of / "
	  "(a copied or fixture tree)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ "usage", 0x100, NULL, OPTION_HIDDEN, "Short usage", 0 },
	{},
};

static error_t snap_parse(int key, char *arg, struct argp_state *st)
{
	struct snap_args *a = st->input;

	switch (key) {
	case 'j':
		a->json = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case 'r':
		if (!*arg || access(arg, R_OK | X_OK)) {
			argp_error(st, "cannot read root directory '%s'", arg);
			return EINVAL;
		}
		a->root = arg;
		break;
	default:
		return gp_args_common(key, arg, st, stdout, 0x100, &a->help);
	}
	return 0;
}

static const char snap_doc[] =
"One report of the machine's GPU queue state: KFD topology (GPUs, gfx "
"target, compute units, scheduler policy, debug support), every KFD "
"process (host pid, namespace pid, uid, cgroup, comm) and its queues; "
"as root with debugfs mounted, each queue's MQD (active, priority, ring, "
"read/write pointers and the process addresses the GPU reports them to, "
"doorbell) and the hardware slot running it; with gpreempt-trace "
"running, each queue's live state. gfx9 (MI100..MI300) and gfx11/12.0 "
"MQDs are decoded; other layouts are listed raw, never guessed.\v"
"EXAMPLES:\n"
"    gpreempt-ctl snapshot                # text report\n"
"    sudo gpreempt-ctl snapshot -j        # NDJSON, with debugfs\n"
"    gpreempt-ctl snapshot -v             # raw words too\n"
"    gpreempt-ctl snapshot --root /tmp/copy  # a copied tree\n"
"\nExit 0 when the KFD topology was read, 4 when there is no KFD.\n";

int ctl_snapshot_main(int argc, char **argv, bool json)
{
	struct snap_args a = { .json = json };
	struct argp ap = { .options = snap_opts, .parser = snap_parse,
			   .doc = snap_doc };
	char *sub[argc + 1];
	struct snap s;
	int i;

	sub[0] = "gpreempt-ctl snapshot";
	for (i = 1; i < argc; i++)
		sub[i] = argv[i];
	sub[argc] = NULL;
	if (argp_parse(&ap, argc, sub, ARGP_NO_EXIT | ARGP_NO_HELP |
		       ARGP_IN_ORDER, NULL, &a))
		return GP_EXIT_USAGE;
	if (a.help)
		return GP_EXIT_OK;
	snap_collect(&s, a.root, !a.root);
	if (a.json)
		snap_print_json(stdout, &s, a.verbose);
	else
		snap_print_text(stdout, &s, a.verbose);
	i = s.nnodes < 0 ? GP_EXIT_NO_KFD : GP_EXIT_OK;
	if (i) {
		fprintf(stderr, "gpreempt-ctl: no KFD topology under %s%s: %s; "
			"load amdgpu (modprobe amdgpu) or check the --root\n",
			s.root, SNAP_TOPOLOGY, strerror(-s.nnodes));
		if (a.json) {
			struct json j;

			json_begin(&j, stdout);
			json_str(&j, "type", "error");
			json_s64(&j, "exit", i);
			json_s64(&j, "errno", -s.nnodes);
			json_str(&j, "message", "no KFD topology");
			json_end(&j);
		}
	}
	snap_free(&s);
	return i;
}
