// SPDX-License-Identifier: GPL-2.0
/* The features the daemon's privileges disable (daemon_privs.h). */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "caps.h"
#include "daemon_privs.h"

/* Where KFD's MQD dump lives when debugfs is mounted (snapshot reads it). */
#define PRIVS_DEBUGFS_KFD "/sys/kernel/debug/kfd"

void privs_probe(struct privs *p)
{
	int pol = sched_getscheduler(0);

	p->ptrace = caps_have(CAP_SYS_PTRACE);
	p->bpf = caps_have(CAP_BPF);
	p->perfmon = caps_have(CAP_PERFMON);
	p->admin = caps_have(CAP_SYS_ADMIN);
	/* SCHED_RESET_ON_FORK may be or'ed in by systemd */
	pol &= ~SCHED_RESET_ON_FORK;
	p->realtime = pol == SCHED_FIFO || pol == SCHED_RR;
	p->debugfs = access(PRIVS_DEBUGFS_KFD, R_OK | X_OK) == 0;
}

int privs_disabled(const struct privs *p,
		   char out[PRIVS_MAX_LINES][PRIVS_LINE])
{
	bool tracer = p->admin || (p->bpf && p->perfmon);
	int n = 0;

	if (!p->ptrace)
		snprintf(out[n++], PRIVS_LINE, "privileges: suspend and resume "
			 "off: no CAP_SYS_PTRACE (KFD takes debug-trap calls "
			 "only from the target's ptrace parent); run as root "
			 "or grant CAP_SYS_PTRACE");
	if (!tracer)
		snprintf(out[n++], PRIVS_LINE, "privileges: --detect queues "
			 "off: no %s (the embedded tracer loads BPF); grant "
			 "both (drop-in detect-queues.conf)",
			 p->bpf ? "CAP_PERFMON" : p->perfmon ? "CAP_BPF" :
			 "CAP_BPF and CAP_PERFMON");
	if (tracer && !p->debugfs)
		snprintf(out[n++], PRIVS_LINE, "privileges: queues created "
			 "before the daemon not seen: %s not readable (mount "
			 "debugfs; the unit needs it readable)",
			 PRIVS_DEBUGFS_KFD);
	if (tracer && !p->realtime)
		snprintf(out[n++], PRIVS_LINE, "privileges: realtime wakeups "
			 "off: not SCHED_FIFO/SCHED_RR, queue events reach the "
			 "daemon's loop in ~1 ms at p99, not ~0.2 ms (drop-in "
			 "realtime.conf)");
	return n;
}
