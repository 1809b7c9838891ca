// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl list` and the daemon-less `status`: the processes KFD
 * knows (/sys/class/kfd/kfd/proc/<pid>), who traces them, and their queues
 * (queues.c's sysfs scan, with the state gpreempt-trace keeps in its
 * pinned map when it runs). Needs no privilege except for the map.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_cmd.h"
#include "exitcodes.h"
#include "json.h"
#include "names.h"
#include "procfs.h"
#include "queues.h"
#include "text.h"
#include "util.h"

struct kproc {
	int pid;
	int tracer;
	int queues;
	char comm[32];
	char tracer_comm[32];
};

/* The pids KFD has a process for (optionally only want), ascending. */
static int kfd_procs(const char *root, int want, struct kproc **out)
{
	struct kproc *v;
	int *pids, n, i, m = 0;

	*out = NULL;
	n = gp_dir_ids(root ? root : KFD_SYSFS_PROC, &pids);
	if (n <= 0)
		return n == -ENOENT ? 0 : n;
	v = calloc(n, sizeof(*v));
	if (!v) {
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!pids[i] || (want && pids[i] != want))
			continue;
		v[m].pid = pids[i];
		procfs_comm(pids[i], v[m].comm, sizeof(v[m].comm));
		v[m].tracer = procfs_tracer(pids[i]);
		if (v[m].tracer)
			procfs_comm(v[m].tracer, v[m].tracer_comm,
				    sizeof(v[m].tracer_comm));
		m++;
	}
	free(pids);
	*out = v;
	return m;
}

int ctl_queues_overlay(struct gp_queue_row *rows, size_t n,
		       const struct gp_queue_row *live, size_t m)
{
	size_t i, j;
	int hits = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++) {
			if (live[j].k.pid == rows[i].k.pid &&
			    live[j].k.gpu_id == rows[i].k.gpu_id &&
			    live[j].k.queue_id == rows[i].k.queue_id) {
				rows[i].v = live[j].v;
				hits++;
				break;
			}
		}
	}
	return hits;
}

/* Overlay the tracer's live state on the sysfs rows, when it runs. */
static bool overlay_pinned(struct gp_queue_row *rows, int n)
{
	struct gp_queue_row *live = NULL;
	int fd, m;

	fd = gp_queues_open_pinned();
	if (fd < 0)
		return false;
	m = gp_queues_collect(fd, &live);
	close(fd);
	if (m < 0)
		return false;
	ctl_queues_overlay(rows, n, live, m);
	free(live);
	return true;
}

/*
 * One process as text. comm comes from the process (prctl, a file name):
 * its control characters never reach the terminal (JSON escapes them).
 */
static void print_proc_text(const struct kproc *p, bool status, bool ours,
			    bool holder)
{
	char comm[sizeof(p->comm)], tcomm[sizeof(p->tracer_comm)];
	char tr[64] = "-";

	gp_text_safe(comm, sizeof(comm), p->comm, sizeof(p->comm));
	gp_text_safe(tcomm, sizeof(tcomm), p->tracer_comm,
		     sizeof(p->tracer_comm));
	if (!status) {
		if (p->tracer)
			snprintf(tr, sizeof(tr), "%d (%s)", p->tracer, tcomm);
		printf("%-8d %-16s %6d  %s\n", p->pid, comm, p->queues, tr);
	} else if (holder && !p->queues) {
		printf("pid %d (%s): a gpreempt holder\n", p->pid, comm);
	} else if (!p->tracer) {
		printf("pid %d (%s): not held, %d queue%s\n", p->pid, comm,
		       p->queues, p->queues == 1 ? "" : "s");
	} else {
		printf("pid %d (%s): %s by pid %d (%s), %d queue%s\n", p->pid,
		       comm, ours ? "held" : "traced", p->tracer, tcomm,
		       p->queues, p->queues == 1 ? "" : "s");
	}
}

static void print_procs(const struct ctl_out *o, const struct kproc *p,
			int n, bool status, bool one)
{
	struct json j;
	int i;

	if (!o->json && n && !status)
		printf("%-8s %-16s %6s  %s\n", "PID", "COMM", "QUEUES",
		       "TRACER");
	for (i = 0; i < n; i++) {
		bool ours = p[i].tracer &&
			    !strcmp(p[i].tracer_comm, "gpreempt-ctl");
		/* a holder opens /dev/kfd, so KFD lists it too */
		bool holder = !strcmp(p[i].comm, "gpreempt-ctl");

		if (o->json) {
			json_begin(&j, stdout);
			json_str(&j, "type", status ? "status" : "process");
			json_s64(&j, "pid", p[i].pid);
			json_str(&j, "comm", p[i].comm);
			json_s64(&j, "queues", p[i].queues);
			json_s64(&j, "tracer_pid", p[i].tracer);
			json_str(&j, "tracer_comm", p[i].tracer_comm);
			json_bool(&j, "holder", holder);
			if (status)
				json_bool(&j, "held_by_gpreempt", ours);
			json_end(&j);
		} else {
			print_proc_text(&p[i], status, ours, holder);
		}
	}
	if (!o->json && !n && !one)
		printf("no process uses KFD\n");
	fflush(stdout);
}

static int list_or_status(const struct ctl_out *out, const struct ctl_args *a,
			  bool status)
{
	struct gp_out_opts o = { .json = out->json };
	struct gp_scan_opts so = { .root = a->kfd_proc };
	pid_t want = a->pid;
	struct gp_queue_row *rows = NULL;
	struct kproc *procs = NULL;
	struct gp_err e = {};
	int n, nq, i, k, ncuda = 0;

	n = kfd_procs(a->kfd_proc, want, &procs);
	if (n < 0) {
		gp_err_set(&e, GP_EXIT_FAILURE, -n, "cannot read %s: %s",
			   a->kfd_proc ? a->kfd_proc : KFD_SYSFS_PROC,
			   strerror(-n));
		return ctl_report(out, &e);
	}
	if (want) {
		so.pids = &want;
		so.npids = 1;
	}
	nq = gp_queues_scan_array(&so, &rows);
	if (nq < 0)
		nq = 0;		/* no KFD at all: no rows */
	for (i = 0; i < nq; i++)
		for (k = 0; k < n; k++)
			if (procs[k].pid == (int)rows[i].k.pid)
				procs[k].queues++;
	print_procs(out, procs, n, status, want != 0);
	if (!status && nq) {
		overlay_pinned(rows, nq);
		if (!out->json)
			printf("\n");
		gp_queue_rows_print(stdout, rows, nq, &o);
		fflush(stdout);
		ctl_list_gpus(out, rows, nq, a->kfd_topology);
	}
	free(rows);
	free(procs);
	/* NVIDIA: the CUDA backend's processes (not for a --kfd-proc tree) */
	if (!status && !a->kfd_proc && !(want && n))
		ctl_list_cuda(out, want, &ncuda);
	if (want && !n && !ncuda) {
		gp_err_set(&e, GP_EXIT_TARGET, 0, "pid %d has no KFD process "
			   "(no %s/%d)", want, KFD_SYSFS_PROC, want);
		return ctl_report(out, &e);
	}
	return GP_EXIT_OK;
}

int ctl_cmd_list(const struct ctl_args *a)
{
	struct ctl_out o = ctl_out_of(a);

	return list_or_status(&o, a, false);
}

int ctl_cmd_status(const struct ctl_args *a)
{
	struct ctl_out o = ctl_out_of(a);
	int ret;

	if (ctl_via_daemon(a, &ret))
		return ret;
	return list_or_status(&o, a, true);
}
