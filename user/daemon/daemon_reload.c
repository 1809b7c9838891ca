// SPDX-License-Identifier: GPL-2.0
/*
 * SIGHUP: re-read --config and the flags, apply what can change while
 * targets are held, keep every hold (daemon_int.h). What applies now:
 * max-hold (for holds that start after the reload; a running hold keeps
 * the deadline it was given), verbose, and the tenant options
 * (daemon_tenant.c: the tenant socket may open, move or close). The socket, its group and the
 * metrics address need a restart, which ends the holds (the kernel
 * resumes every target): the log says so instead of doing it.
 * Each module's options apply too (daemon_module.h: validated by the
 * parse above, then swapped by its reload), its holds kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_int.h"
#include "notify.h"
#include "util.h"

static bool differs(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a && strcmp(a, b));
}

void daemon_reload(struct daemon *d)
{
	struct daemon_opts n;
	char *buf = NULL, hold[32];
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	FILE *out = fopen("/dev/null", "we");
	int r;

	notify_send("RELOADING=1");
	if (!err || !out) {
		dlog_at(LOG_ERR, "reload: out of memory; configuration kept");
		goto done;
	}
	r = daemon_parse(d->cur.argc, d->cur.argv, &n, out, err);
	fflush(err);
	if (r || n.help || n.send) {
		/* the parser's first complaint, without the program name */
		const char *m = buf ? buf : "";

		if (!strncmp(m, DAEMON_PROG ": ", strlen(DAEMON_PROG ": ")))
			m += strlen(DAEMON_PROG ": ");
		dlog_at(LOG_ERR, "reload refused, running configuration kept: "
			"%.*s", (int)strcspn(m, "\n"), m);
		if (!r)
			daemon_opts_free(&n);
		goto done;
	}
	if (differs(n.socket, d->cur.socket) || differs(n.group, d->cur.group) ||
	    differs(n.metrics, d->cur.metrics))
		dlog_at(LOG_WARNING, "reload: socket, group and metrics "
			"changes need a restart (which resumes every target); "
			"not applied");
	d->cur.max_hold_ns = n.max_hold_ns;
	d->max_hold_ns = n.max_hold_ns ? n.max_hold_ns :
			 DAEMON_DEFAULT_MAX_HOLD_NS;
	d->cur.verbose = n.verbose;
	d->cur.tenant_classify = n.tenant_classify;
	/* the tenant socket may open, move or close; holds stay */
	dtenant_reload(d, &n);
	/* The modules' options; what they hold stays held. After
	 * max-hold: a module may bound its holds with the new value. */
	dmod_reload(d, &n);
	fmt_ns(hold, sizeof(hold), d->max_hold_ns);
	dlog("reloaded %s: --max-hold %s%s; %u target%s kept",
	     d->cur.config ? d->cur.config : "the flags", hold,
	     n.verbose ? ", verbose" : "", d->n_t, d->n_t == 1 ? "" : "s");
	daemon_opts_free(&n);
done:
	if (err)
		fclose(err);
	if (out)
		fclose(out);
	free(buf);
	notify_send("READY=1");
}
