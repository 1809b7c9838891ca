// SPDX-License-Identifier: GPL-2.0
/* L0: `status` shows a tenant its own holds only (daemon_view.h). */
#include "daemon_view.h"
#include "tap.h"

TEST(admin_sees_every_hold)
{
	CHECK(view_shows_hold(true, 0, 0, false));
	CHECK(view_shows_hold(true, 0, 1001, true));
	CHECK(view_shows_hold(true, 1002, 1001, true));
}

TEST(tenant_sees_its_own_hold)
{
	CHECK(view_shows_hold(false, 1001, 1001, true));
}

TEST(tenant_does_not_see_others_holds)
{
	CHECK(!view_shows_hold(false, 1001, 1002, true));
	CHECK(!view_shows_hold(false, 1001, 0, false));
}

/* uid 0 on the tenant socket is a tenant: root's and the arbiter's holds
 * (made by an admin) are not its own, though their uid is 0. */
TEST(tenant_root_does_not_see_admin_holds)
{
	CHECK(!view_shows_hold(false, 0, 0, false));
	CHECK(view_shows_hold(false, 0, 0, true));
}

int main(void)
{
	RUN(admin_sees_every_hold);
	RUN(tenant_sees_its_own_hold);
	RUN(tenant_does_not_see_others_holds);
	RUN(tenant_root_does_not_see_admin_holds);
	return tap_done();
}
