// SPDX-License-Identifier: GPL-2.0
/*
 * L0: busy sources typed by kind (user/policy/source.h) and the activity
 * record's source (user/detect/activity.h). Two detectors naming one pid
 * must give two sources: before, notify's scope=pid and the launch
 * detector's were both (1 << 63) | pid (detect.bats has the socket-level
 * test of that bug).
 */
#include <stdint.h>

#include "activity.h"
#include "source.h"
#include "tap.h"

TEST(kinds_never_collide)
{
	static const uint64_t ids[] = { 0, 1, 4242, UINT32_MAX,
					GP_SRC_ID_MASK };
	int a, b, i, j;

	for (a = GP_SRC_NONE + 1; a < GP_SRC__N; a++)
		for (b = GP_SRC_NONE + 1; b < GP_SRC__N; b++)
			for (i = 0; i < 5; i++)
				for (j = 0; j < 5; j++)
					if (a != b)
						CHECK(gp_src(a, ids[i]) !=
						      gp_src(b, ids[j]));
}

TEST(kind_and_id_read_back)
{
	uint64_t s = gp_src(GP_SRC_LAUNCH, 4242);

	CHECK(gp_src_kind(s) == GP_SRC_LAUNCH);
	CHECK(gp_src_id(s) == 4242);
	/* a connection's address: user space fits 56 bits */
	s = gp_src(GP_SRC_CONN, 0x00007fffdeadbeefULL);
	CHECK(gp_src_kind(s) == GP_SRC_CONN);
	CHECK(gp_src_id(s) == 0x00007fffdeadbeefULL);
	CHECK(gp_src_is_notify(s));
	CHECK(gp_src_is_notify(gp_src(GP_SRC_PID, 1)));
	CHECK(!gp_src_is_notify(gp_src(GP_SRC_QUEUES, 1)));
	CHECK(!gp_src_is_notify(gp_src(GP_SRC_LAUNCH, 1)));
}

TEST(activity_source)
{
	struct gp_activity n = { .pid = 7, .busy = true, .kind = GP_SRC_PID,
				 .id = 7 };
	struct gp_activity l = { .pid = 7, .busy = true,
				 .kind = GP_SRC_LAUNCH, .id = 7 };

	CHECK(gp_activity_src(&n) == gp_src(GP_SRC_PID, 7));
	CHECK(gp_activity_src(&n) != gp_activity_src(&l));
}

int main(void)
{
	RUN(kinds_never_collide);
	RUN(kind_and_id_read_back);
	RUN(activity_source);
	return tap_done();
}
