// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the pure parts of the hook plan (user/trace/attach.c): reading a
 * kallsyms file, the module-qualified kprobe target when a name is not
 * unique, and per-hook reasons. The kallsyms files are fixtures written
 * here; no kernel is asked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "attach.h"

static char ksyms[] = "/tmp/gp-test-kallsyms.XXXXXX";

static void write_ksyms(const char *text)
{
	FILE *f = fopen(ksyms, "w");

	fputs(text, f);
	fclose(f);
}

TEST(kallsyms_prefilter_follows_the_hook_table)
{
	/* first letters no hook of gp_hooks has */
	static const struct gp_hook hooks[] = {
		{ "dqm_lock_hw", "x", 0 },
		{ "unmap_queues_cpsch", "y", 0 },
	};
	int total[2] = {}, amd[2] = {};
	FILE *f;

	write_ksyms("ffffffffc0001000 t dqm_lock_hw\t[amdgpu]\n"
		    "ffffffffc0002000 t unmap_queues_cpsch\t[amdgpu]\n"
		    "ffffffff81000000 T unmap_queues_cpsch\n"
		    "ffffffff81000010 d dqm_lock_hw\n");
	f = fopen(ksyms, "r");
	gp_kallsyms_scan(f, hooks, 2, total, amd);
	fclose(f);
	CHECK(total[0] == 1 && amd[0] == 1);	/* data symbol: not a hook */
	CHECK(total[1] == 2 && amd[1] == 1);
}

TEST(name_also_outside_amdgpu_takes_the_amdgpu_prefixed_kprobe)
{
	struct gp_attach a = { .kallsyms_path = ksyms };

	/* hook 0 twice (vmlinux and amdgpu), hook 1 only in amdgpu */
	write_ksyms("ffffffff81000000 T kfd_ioctl_create_queue\n"
		    "ffffffffc0001000 t kfd_ioctl_create_queue\t[amdgpu]\n"
		    "ffffffffc0002000 t kfd_ioctl_destroy_queue\t[amdgpu]\n");
	gp_plan_refused(&a, 0, -EPERM);
	gp_plan_refused(&a, 1, -EPERM);
	CHECK(a.plan[0].how == GP_HOW_KPROBE);
	CHECK_STR(a.plan[0].target, "amdgpu:kfd_ioctl_create_queue");
	CHECK_STR(a.plan[1].target, "kfd_ioctl_destroy_queue");
	/* not in kallsyms at all: absent */
	gp_plan_refused(&a, 2, -EPERM);
	CHECK(a.plan[2].how == GP_HOW_ABSENT);
}

TEST(fentry_refusal_reasons_are_per_hook)
{
	struct gp_attach a = { .kallsyms_path = ksyms };

	write_ksyms("ffffffffc0001000 t kfd_ioctl_create_queue\t[amdgpu]\n"
		    "ffffffffc0002000 t kfd_ioctl_destroy_queue\t[amdgpu]\n");
	gp_plan_refused(&a, 0, -EPERM);
	gp_plan_refused(&a, 1, -EINVAL);
	CHECK(a.plan[0].why && strstr(a.plan[0].why, "not permitted"));
	CHECK(a.plan[1].why && strstr(a.plan[1].why, "Invalid argument"));
}

int main(void)
{
	int fd = mkstemp(ksyms);

	if (fd < 0)
		return 1;
	close(fd);
	RUN(kallsyms_prefilter_follows_the_hook_table);
	RUN(name_also_outside_amdgpu_takes_the_amdgpu_prefixed_kprobe);
	RUN(fentry_refusal_reasons_are_per_hook);
	unlink(ksyms);
	return tap_done();
}
