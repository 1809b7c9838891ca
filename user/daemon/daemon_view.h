/* SPDX-License-Identifier: GPL-2.0 */
/* What one client may see of the daemon's holds (issue 24: tenants). */
#ifndef GP_DAEMON_VIEW_H
#define GP_DAEMON_VIEW_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * May a client see a hold in `status`? An admin sees every hold; a tenant
 * only those a tenant of its own uid made, so that one team's pids and
 * comms are not shown to another team sharing the socket, and uid 0 on
 * the tenant socket (a tenant) does not see root's or the arbiter's
 * (hold_by_tenant: struct target's tenant).
 */
static inline bool view_shows_hold(bool admin, uid_t client_uid,
				   uid_t hold_uid, bool hold_by_tenant)
{
	return admin || (hold_by_tenant && hold_uid == client_uid);
}

#endif
