// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl bugreport [-o FILE] [--redact]`: one .tar.gz with what a
 * maintainer needs from a first run on real hardware: check, versions
 * (kernel, amdgpu, firmware, ROCm libraries found), the KFD topology,
 * list/status/policy (when a daemon runs), the daemon's recent log, the
 * pinned trace's queue rows, the amdgpu/KFD lines of the kernel log and
 * the KFD and gpreempt processes. Every item is collected under a
 * deadline; one that fails is recorded in the archive, never fatal.
 * Commands run as children of this binary (/proc/self/exe), so the
 * archive shows exactly what the user would see.
 */
#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "args.h"
#include "ctl_bugreport.h"
#include "ctl_bugreport_buf.h"
#include "ctl_bugreport_sys.h"
#include "ctl_tar.h"
#include "exitcodes.h"
#include "gpreempt.h"

#define BR_DIR		"gpreempt-bugreport"

/* One file NAME: "$ CMD" then its output and exit status. */
static void cmd_item(const char *name, char *const argv[])
{
	struct br_buf *b = br_item(name);
	int i, rc;

	if (!b)
		return;
	br_printf(b, "$");
	for (i = 0; argv[i]; i++)
		br_printf(b, " %s", argv[i]);
	br_printf(b, "\n");
	rc = br_run(b, argv);
	br_printf(b, "(exit %d)\n", rc);
}

struct br_args {
	const char *out, *socket, *daemon_log;
	bool redact, help;
};

enum { O_REDACT = 0x100, O_SOCKET, O_DLOG };

static const struct argp_option br_opts[] = {
	{ "output", 'o', "FILE", 0, "Write the archive to FILE (default "
	  "gpreempt-bugreport-HOST-DATE.tar.gz here)", 0 },
	{ "redact", O_REDACT, NULL, 0, "Leave process command lines out", 0 },
	{ "socket", O_SOCKET, "PATH", 0, "The daemon's socket", 0 },
	{ "daemon-log", O_DLOG, "FILE", 0, "Also take the end of FILE (a "
	  "daemon whose stderr is not the journal)", 0 },
	{ "help", 'h', NULL, 0, "This help", 0 },
	{ 0 }
};

static error_t br_parse(int key, char *arg, struct argp_state *st)
{
	struct br_args *a = st->input;

	switch (key) {
	case 'o': a->out = arg; break;
	case O_REDACT: a->redact = true; break;
	case O_SOCKET: a->socket = arg; break;
	case O_DLOG: a->daemon_log = arg; break;
	default:
		return gp_args_common(key, arg, st, stdout, GP_ARGS_NO_USAGE,
				      &a->help);
	}
	return 0;
}

static const char br_doc[] =
"One archive (.tar.gz) for a bug report from a machine with a GPU: check, "
"versions (kernel, amdgpu, firmware, ROCm libraries found), the KFD "
"topology, list, status and policy (when a daemon runs), the daemon's "
"recent log (journal, or --daemon-log), the pinned trace's queue rows, "
"the amdgpu/KFD lines of the kernel log, and the KFD and gpreempt "
"processes with their command lines (--redact leaves those out). Run it "
"as root for the kernel log and every process.\v"
"EXAMPLES:\n"
"    sudo gpreempt-ctl bugreport                   # ./gpreempt-bugreport-*.tar.gz\n"
"    sudo gpreempt-ctl bugreport -o /tmp/gp.tgz --redact\n"
"\nExit 0 when the archive is written (items that could not be collected "
"say why inside it), 1 when it cannot be written, 2 bad usage.\n";

static void daemon_log(const struct br_args *a)
{
	struct br_buf *b;
	FILE *f;
	long sz;

	if (a->daemon_log && (b = br_item("daemon-log.txt"))) {
		br_printf(b, "# the last 256 KiB of %s\n", a->daemon_log);
		if ((f = fopen(a->daemon_log, "re"))) {
			char tmp[4096];
			size_t n;

			fseek(f, 0, SEEK_END);
			sz = ftell(f);
			fseek(f, sz > (256 << 10) ? sz - (256 << 10) : 0,
			      SEEK_SET);
			while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
				br_append(b, tmp, n);
			fclose(f);
		} else {
			br_printf(b, "cannot read it: %s\n", strerror(errno));
		}
	}
	cmd_item("daemon-journal.txt", (char *const[]){ "journalctl", "-u",
		 "gpreempt", "-n", "2000", "--no-pager", "-o", "short-iso",
		 NULL });
}

int ctl_bugreport_main(int argc, char **argv)
{
	struct br_args a = {};
	struct argp ap = { .options = br_opts, .parser = br_parse,
			   .doc = br_doc };
	char self[512], out[512], host[64] = "host", date[32], *sub[argc + 1];
	time_t now = time(NULL);
	struct br_buf *man;
	struct tar *t;
	ssize_t n;
	size_t i;
	int err = 0;

	sub[0] = "gpreempt-ctl bugreport";
	for (i = 1; i < (size_t)argc; i++)
		sub[i] = argv[i];
	sub[argc] = NULL;
	if (argp_parse(&ap, argc, sub, ARGP_NO_EXIT | ARGP_NO_HELP |
		       ARGP_IN_ORDER, NULL, &a))
		return GP_EXIT_USAGE;
	if (a.help)
		return GP_EXIT_OK;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		snprintf(self, sizeof(self), "gpreempt-ctl");
	else
		self[n] = 0;
	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", gmtime(&now));
	if (!a.out) {
		snprintf(out, sizeof(out), "gpreempt-bugreport-%s-%s.tar.gz",
			 host, date);
		a.out = out;
	}
	if (br_items_alloc())
		return GP_EXIT_FAILURE;

	man = br_item("MANIFEST");
	cmd_item("check.txt", (char *const[]){ self, "check", NULL });
	br_versions(self);
	br_topology(BR_TOPOLOGY, "topology", 0);
	if (!access(BR_TOPOLOGY, F_OK) && br_n_items() < 4)
		br_printf(br_item("topology.txt"), "%s unreadable\n", BR_TOPOLOGY);
	else if (access(BR_TOPOLOGY, F_OK))
		br_printf(br_item("topology.txt"), "no %s: amdgpu not loaded, or "
			  "no KFD device\n", BR_TOPOLOGY);
	cmd_item("snapshot.txt", (char *const[]){ self, "snapshot", NULL });
	cmd_item("list.txt", (char *const[]){ self, "list", "-v", NULL });
	cmd_item("status.txt", a.socket ? (char *const[]){ self, "status",
		 "--socket", (char *)a.socket, NULL } :
		 (char *const[]){ self, "status", NULL });
	cmd_item("policy.txt", a.socket ? (char *const[]){ self, "policy",
		 "--socket", (char *)a.socket, NULL } :
		 (char *const[]){ self, "policy", NULL });
	daemon_log(&a);
	if (!access(GP_PIN_QUEUES, F_OK))
		cmd_item("trace-queues.json", (char *const[]){ self, "list",
			 "-j", "-v", NULL });
	else
		br_printf(br_item("trace-queues.json"), "no trace pinned at %s "
			  "(gpreempt-trace not running, or --no-pin)\n",
			  GP_PIN_QUEUES);
	br_trace_hists();
	br_kernel_log();
	br_processes(a.redact);
	if (a.redact)
		br_redact();
	br_printf(man, "gpreempt-ctl bugreport, %s UTC, host %s, euid %d%s\n"
		  "files:\n", date, host, (int)geteuid(),
		  a.redact ? ", command lines redacted" : "");
	for (i = 1; i < br_n_items(); i++)
		br_printf(man, "  %s (%zu bytes)\n", br_item_name(i),
			  br_item_buf(i)->len);

	t = tar_open(a.out, now);
	if (!t) {
		fprintf(stderr, "gpreempt-ctl: cannot create %s: %s%s; choose "
			"another place with -o FILE\n", a.out, strerror(errno),
			errno == EEXIST ? " (a report never replaces a file "
			"or follows a symlink)" : "");
		return GP_EXIT_FAILURE;
	}
	err = tar_dir(t, BR_DIR);
	for (i = 0; i < br_n_items() && !err; i++) {
		const struct br_buf *b = br_item_buf(i);
		char name[300];

		snprintf(name, sizeof(name), BR_DIR "/%s", br_item_name(i));
		err = tar_file(t, name, b->p ? b->p : "", b->len);
	}
	i = (size_t)tar_close(t);	/* always: it frees t */
	if (!err)
		err = (int)i;
	if (!err) {
		printf("%s\n", a.out);
		fprintf(stderr, "gpreempt-ctl: wrote %s (%zu files%s); attach "
			"it to your report\n", a.out, br_n_items(),
			a.redact ? ", command lines redacted" : "");
	} else {
		fprintf(stderr, "gpreempt-ctl: writing %s failed: %s (disk "
			"full?); choose another place with -o FILE\n", a.out,
			strerror(-err));
		unlink(a.out);
	}
	br_items_free();
	return err ? GP_EXIT_FAILURE : GP_EXIT_OK;
}
