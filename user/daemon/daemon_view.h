/* SPDX-License-Identifier: GPL-2.0 */
/* What one client may see of the daemon's holds (issue 24: tenants). */
#ifndef GP_DAEMON_VIEW_H
#define GP_DAEMON_VIEW_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * May a client see a hold in `status`? An admin sees every hold; a tenant
 * only those its own uid made, so that one team's pids and comms are not
 * shown to another team sharing the socket.
 */
static inline bool view_shows_hold(bool admin, uid_t client_uid,
				   uid_t hold_uid)
{
	return admin || hold_uid == client_uid;
}

#endif
