/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpreempt-ctl daemon`: one process holding debug sessions for many
 * targets, attached once and kept warm, serving proto.h's requests on a
 * Unix socket. A suspend over the socket costs one SUSPEND_QUEUES ioctl,
 * not a ptrace attach.
 *
 * Single-threaded on purpose: KFD accepts DBG_TRAP ops only from the
 * thread that PTRACE_SEIZEd the target (session.h), so one poll loop on
 * the main thread watches the listening socket, the clients, every
 * session's dbg pipe, a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP) and
 * a timerfd (the watchdog that resumes a target held past --max-hold).
 *
 * It starts without /dev/kfd (status works; suspend and attach answer
 * exit 4 or 7 with the reason) and opens it on the first request that
 * needs it, so amdgpu may load later. On SIGINT/SIGTERM it resumes
 * and detaches every target, removes its socket and exits 0; SIGHUP
 * re-reads --config and the flags and keeps every hold (daemon_reload.c).
 * Under systemd it says READY=1 once listening (notify.c); --metrics
 * serves Prometheus metrics from the same loop (metrics_http.c).
 *
 * Files: daemon.c (start, the loop, shutdown), daemon_args.c (options),
 * daemon_sock.c (the listening socket), daemon_clients.c (connections),
 * daemon_req.c (requests), daemon_targets.c (sessions, holds, watchdog),
 * daemon_log.c (the log); daemon_int.h is what they share. The client
 * is user/ctl/ctl_conn.c; the daemon includes nothing from user/ctl/.
 * Modules (the arbiter) register through daemon_module.h
 * (daemon_module.c); the daemon names none of them.
 */
#ifndef GP_DAEMON_H
#define GP_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon_module.h"
struct config;

#define DAEMON_DEFAULT_MAX_HOLD_NS (10ULL * 1000000000ULL)
/*
 * Connected clients at once; more are told so and closed. Non-root
 * clients get all but DAEMON_ROOT_SLOTS of them, so root can always
 * connect to see and end what others do.
 */
#define DAEMON_MAX_CLIENTS 64
#define DAEMON_ROOT_SLOTS 8
/* Connections one tenant uid may have open at once (busy/idle ones
 * included), so that one tenant cannot take every slot. */
#define DAEMON_MAX_CONN_PER_UID 8
/* A failed resume is retried after 100 ms, doubling up to 5 s. */
#define RESUME_RETRY_MIN_NS (100ULL * 1000000ULL)
#define RESUME_RETRY_MAX_NS (5ULL * 1000000000ULL)
/* Targets one non-root user may have the daemon hold at once. */
#define DAEMON_MAX_PER_UID 8
/* Sessions tenants cannot take (PROTO_MAX_SESSIONS in all): root's and
 * the arbiter's, so plain attaches cannot lock the arbiter out. */
#define DAEMON_ADMIN_SESSIONS 16
/* A connection with no request read and no reply taken this long is
 * closed (a client that stops reading, or never writes). */
#define DAEMON_IDLE_NS (30ULL * 1000000000ULL)

struct daemon_opts {
	const char *socket;	/* NULL: PROTO_DEFAULT_SOCKET */
	uint64_t max_hold_ns;	/* 0: DAEMON_DEFAULT_MAX_HOLD_NS */
	const char *group;	/* NULL: root only (0600); else 0660 */
	const char *ready;	/* written with our pid once listening */
	const char *send;	/* client mode (ctl_send_raw): this line */
	bool verbose;		/* log every request */
	uint64_t idle_ns;	/* 0: DAEMON_IDLE_NS (tests set it) */
	bool help;		/* --help printed: exit 0 */
	/* each registered module's options (daemon_module.h), in the
	 * order of registration; daemon_parse() allocates them */
	void *mod_opts[DAEMON_MAX_MODULES];
	const char *config;	/* --config FILE, or NULL */
	const char *metrics;	/* --metrics ADDR, or NULL: off */
	const char *tenant_socket; /* --tenant-socket PATH, or NULL: off */
	const char *admin_cgroup;  /* --admin-cgroup PATH, or NULL */
	bool tenant_classify;	/* the tenant socket serves GP_WHO_TENANT_OPT */
	uint64_t cuda_lock_timeout_ns;	/* 0: GP_CUDA_LOCK_TIMEOUT_MS */
	const char *cuda_journal;	/* NULL: GP_CUDA_JOURNAL_DEFAULT */
	bool no_cuda;		/* --no-cuda: never load libcuda */
	int argc;		/* as given to daemon_parse(), for SIGHUP */
	char **argv;
	struct config *cfg;	/* owns the strings read from config */
};

/*
 * Parse the daemon's argv (argv[0] = "daemon"). 0 (o->help set if help
 * was printed to out), or GP_EXIT_USAGE after printing to err.
 */
int daemon_parse(int argc, char **argv, struct daemon_opts *o, FILE *out,
		 FILE *err);
/* What daemon_parse() allocated (the config file's strings). */
void daemon_opts_free(struct daemon_opts *o);

/*
 * Run the daemon until SIGINT/SIGTERM. Returns the exit code:
 * 0 after a clean shutdown, 2 bad group, 3 not allowed to create the
 * socket, 11 another daemon already listens on the socket.
 */
int daemon_main(const struct daemon_opts *o);

#endif
