// SPDX-License-Identifier: GPL-2.0
/*
 * gpreempt-ctl: suspend and resume another process's AMD GPU queues
 * through the KFD debug-trap API. Arguments and dispatch only; the
 * commands live in ctl_*.c, the debug session in session.c, the ioctls
 * in kfd.c, the holder daemon in daemon.c.
 */
#include <stdio.h>

#include "ctl_args.h"
#include "ctl_bugreport.h"
#include "ctl_cmd.h"
#include "ctl_snapshot.h"
#include "exitcodes.h"

int main(int argc, char **argv)
{
	struct ctl_args a;
	int r;

	r = ctl_parse(argc, argv, &a, stdout, stderr);
	if (r)
		return r;
	if (a.help)
		return GP_EXIT_OK;
	if (a.n_gpus && (r = ctl_resolve_gpus(&a)))
		return r;
	switch (a.cmd) {
	case CTL_LIST:
		return ctl_cmd_list(&a);
	case CTL_SUSPEND:
		return ctl_cmd_suspend(&a);
	case CTL_RESUME:
		return ctl_cmd_resume(&a);
	case CTL_STATUS:
		return ctl_cmd_status(&a);
	case CTL_CHECK:
		return ctl_cmd_check(&a);
	case CTL_DAEMON:
		return ctl_cmd_daemon(&a);
	case CTL_SNAPSHOT:
		return ctl_snapshot_main(a.sub_argc, a.sub_argv, a.json);
	case CTL_NOTIFY:
		return ctl_cmd_notify(&a);
	case CTL_POLICY:
		return ctl_cmd_policy(&a);
	case CTL_BUGREPORT:
		return ctl_bugreport_main(a.sub_argc, a.sub_argv);
	case CTL_NONE:
		break;
	}
	return GP_EXIT_USAGE;
}
