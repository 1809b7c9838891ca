// SPDX-License-Identifier: GPL-2.0
/* L0: the features the daemon's privileges disable (daemon_privs.c). */
#include <string.h>

#include "daemon_privs.h"
#include "tap.h"

static char l[PRIVS_MAX_LINES][PRIVS_LINE];

TEST(root_realtime_debugfs_nothing_off)
{
	struct privs p = { .ptrace = 1, .bpf = 1, .perfmon = 1, .admin = 1,
			   .realtime = 1, .debugfs = 1 };

	CHECK(privs_disabled(&p, l) == 0);
}

TEST(shipped_unit_ptrace_only)
{
	/* the unit as shipped: CAP_SYS_PTRACE, RestrictRealtime=yes */
	struct privs p = { .ptrace = 1 };

	CHECK(privs_disabled(&p, l) == 1);
	CHECK(strstr(l[0], "--detect queues off: no CAP_BPF and CAP_PERFMON"));
	CHECK(strstr(l[0], "detect-queues.conf"));
}

TEST(one_bpf_cap_missing_is_named)
{
	struct privs p = { .ptrace = 1, .bpf = 1, .realtime = 1,
			   .debugfs = 1 };

	CHECK(privs_disabled(&p, l) == 1);
	CHECK(strstr(l[0], "no CAP_PERFMON ("));
	p = (struct privs){ .ptrace = 1, .perfmon = 1, .realtime = 1,
			    .debugfs = 1 };
	CHECK(privs_disabled(&p, l) == 1);
	CHECK(strstr(l[0], "no CAP_BPF ("));
}

TEST(sys_admin_stands_for_bpf_and_perfmon)
{
	struct privs p = { .ptrace = 1, .admin = 1, .realtime = 1,
			   .debugfs = 1 };

	CHECK(privs_disabled(&p, l) == 0);
}

TEST(tracer_without_realtime_or_debugfs)
{
	struct privs p = { .ptrace = 1, .bpf = 1, .perfmon = 1 };

	CHECK(privs_disabled(&p, l) == 2);
	CHECK(strstr(l[0], "/sys/kernel/debug/kfd not readable"));
	CHECK(strstr(l[1], "realtime wakeups off"));
	CHECK(strstr(l[1], "realtime.conf"));
}

TEST(no_ptrace_no_bpf)
{
	struct privs p = { 0 };

	CHECK(privs_disabled(&p, l) == 2);
	CHECK(strstr(l[0], "suspend and resume off: no CAP_SYS_PTRACE"));
	CHECK(strstr(l[1], "--detect queues off"));
}

int main(void)
{
	RUN(root_realtime_debugfs_nothing_off);
	RUN(shipped_unit_ptrace_only);
	RUN(one_bpf_cap_missing_is_named);
	RUN(sys_admin_stands_for_bpf_and_perfmon);
	RUN(tracer_without_realtime_or_debugfs);
	RUN(no_ptrace_no_bpf);
	return tap_done();
}
