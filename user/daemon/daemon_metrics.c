// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's side of its metrics (metrics.h): the hooks its files call
 * (one line at each site; no-ops until daemon_metrics_start()) and the
 * --metrics endpoint's render of the daemon's own families (daemon.c
 * adds the modules'). One daemon per process, so the counters are this
 * file's, not threaded through every call.
 */
#include <stdio.h>
#include <time.h>

#include "daemon_int.h"
#include "metrics.h"
#include "procfs.h"
#include "util.h"

static struct gp_metrics metrics;
static bool on;

void daemon_metrics_start(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	metrics_init(&metrics, ts.tv_sec + ts.tv_nsec / 1e9);
	on = true;
}

void dm_request(int verb)
{
	static const enum metrics_op op[] = {
		[PROTO_SUSPEND] = MOP_SUSPEND, [PROTO_RESUME] = MOP_RESUME,
		[PROTO_ATTACH] = MOP_ATTACH, [PROTO_DETACH] = MOP_DETACH,
		[PROTO_STATUS] = MOP_STATUS,
	};

	if (on)
		metrics_on_request(&metrics, verb > 0 &&
				   verb < (int)(sizeof(op) / sizeof(op[0])) ?
				   op[verb] : MOP_OTHER);
}

void dm_error(int exit_code)
{
	if (on)
		metrics_on_error(&metrics, exit_code);
}

void dm_suspend(pid_t pid, uint64_t ioctl_ns, uint64_t since_request_ns)
{
	char comm[16] = "";

	if (!on)
		return;
	procfs_comm(pid, comm, sizeof(comm));
	metrics_on_suspend(&metrics, pid, comm, ioctl_ns, since_request_ns,
			   monotonic_ns());
}

void dm_resume(pid_t pid, uint64_t ioctl_ns, bool watchdog)
{
	if (on)
		metrics_on_resume(&metrics, pid, ioctl_ns, watchdog,
				  monotonic_ns());
}

void dm_gone(pid_t pid)
{
	if (on)
		metrics_on_gone(&metrics, pid, monotonic_ns());
}

void dm_clients_rejected(void)
{
	if (on)
		metrics.clients_rejected++;
}

/* Targets by backend (kfd, cuda) and state (running, locking, ...). */
static void render_backends(const struct daemon *d, struct prom_buf *b)
{
	static const enum gp_bk_state states[] = {
		GP_BK_RUNNING, GP_BK_LOCKING, GP_BK_SUSPENDED, GP_BK_GONE };
	char labels[96];
	uint32_t i, n;

	prom_family(b, "gpreempt_targets", "gauge",
		    "Processes the daemon holds, by backend and state");
	for (int k = 0; k < d->bk.n; k++)
		for (size_t s = 0; s < sizeof(states) / sizeof(*states); s++) {
			for (n = 0, i = 0; i < d->n_t; i++)
				n += d->t[i].p->b == d->bk.b[k] &&
				     !d->t[i].detaching &&
				     gp_bk_state(d->t[i].p) == states[s];
			prom_labels(labels, sizeof(labels), "backend",
				    d->bk.b[k]->ops->name, "state",
				    gp_bk_state_name(states[s]), NULL);
			prom_sample(b, "gpreempt_targets", labels, n);
		}
}

void daemon_metrics_render(void *ctx, struct prom_buf *b)
{
	struct daemon *d = ctx;

	metrics.sessions_held = d->n_t;
	metrics_render(&metrics, monotonic_ns(), b);
	render_backends(d, b);
	dlimit_render(b);
}
