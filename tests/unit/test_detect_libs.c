// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the launch detector's GPU runtime libraries (detect_libs.c): which
 * runtime a mapped file's name says, which one a process's maps choose
 * (HIP first when both are mapped, the other named), an edge's cookie as
 * its entry's name; and the ELF reader (detect_elf.c) on the STAND-IN
 * libcuda.so.1 (tests/cuda/standin_launch.c, built beside this test by
 * the Makefile): every CUDA entry found, at the address the dynamic
 * loader gives the same symbol.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "detect_launch.h"
#include "tap.h"

static int rt_of(const char *p)
{
	return gp_dl_runtime_of(p, strlen(p));
}

TEST(runtime_by_base_name)
{
	CHECK(rt_of("/usr/lib/x86_64-linux-gnu/libcuda.so.1") == GP_RT_CUDA);
	CHECK(rt_of("/usr/local/nvidia/lib64/libcuda.so.580.159.04") ==
	      GP_RT_CUDA);
	CHECK(rt_of("libcuda.so") == GP_RT_CUDA);
	CHECK(rt_of("/opt/rocm/lib/libamdhip64.so.6") == GP_RT_HIP);
	CHECK(rt_of("/venv/torch/lib/libamdhip64.so") == GP_RT_HIP);
	/* the runtime API (linked into the application) is not the driver */
	CHECK(rt_of("/venv/nvidia/cuda_runtime/lib/libcudart.so.12") == -1);
	CHECK(rt_of("/usr/lib/libcudnn.so.9") == -1);
	/* a folder's name says nothing */
	CHECK(rt_of("/opt/libcuda.so.1/libc.so.6") == -1);
	CHECK(rt_of("/opt/libamdhip64/libc.so.6") == -1);
	CHECK(rt_of("") == -1);
}

TEST(maps_line_says_runtime)
{
	static const char l[] = "7f12a0000000-7f12a0400000 r-xp 00200000 "
		"08:01 1234 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n";
	struct gp_dl_map m;

	CHECK(gp_dl_parse_map(l, sizeof(l), &m));
	CHECK(m.rt == GP_RT_CUDA && m.ino == 1234 && m.also == -1);
	CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
}

#define L_CUDA "7f0000000000-7f0000100000 r-xp 00000000 08:01 11 /lib/libcuda.so.1\n"
#define L_HIP "7f1000000000-7f1000100000 r-xp 00000000 08:01 22 /opt/rocm/lib/libamdhip64.so.6\n"
#define L_LIBC "7f2000000000-7f2000100000 r-xp 00000000 08:01 33 /lib/libc.so.6\n"
#define L_ANON "7f3000000000-7f3000100000 rw-p 00000000 00:00 0 \n"

/* gp_dl_maps_find on text: 1/0 and the chosen mapping's inode, also */
static int find(const char *text, unsigned long long *ino, int *also)
{
	struct gp_dl_map m;
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -1;
	r = gp_dl_maps_find(f, &m);
	fclose(f);
	*ino = r == 1 ? m.ino : 0;
	*also = r == 1 ? m.also : -2;
	return r;
}

TEST(maps_choose_first_runtime_hip_first_when_both)
{
	unsigned long long ino;
	int also;

	CHECK(find(L_LIBC L_ANON L_CUDA L_CUDA, &ino, &also) == 1 &&
	      ino == 11 && also == -1);
	CHECK(find(L_HIP L_LIBC, &ino, &also) == 1 && ino == 22 &&
	      also == -1);
	/* both: HIP's, whichever comes first; the other one named */
	CHECK(find(L_CUDA L_LIBC L_HIP, &ino, &also) == 1 && ino == 22 &&
	      also == GP_RT_CUDA);
	CHECK(find(L_HIP L_CUDA, &ino, &also) == 1 && ino == 22 &&
	      also == GP_RT_CUDA);
	CHECK(find(L_LIBC L_ANON, &ino, &also) == 0);
}

TEST(cookie_names_its_entry)
{
	CHECK_STR(gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_CUDA, GP_ENT_LAUNCH)),
		  "cuLaunchKernel");
	CHECK_STR(gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_CUDA,
						 GP_ENT_EXT_LAUNCH)),
		  "cuLaunchKernelEx");
	CHECK_STR(gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_CUDA,
						 GP_ENT_DEV_SYNC)),
		  "cuCtxSynchronize");
	CHECK_STR(gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_HIP, GP_ENT_LAUNCH)),
		  "hipLaunchKernel");
	/* HIP's cookies are the slots themselves, as before */
	CHECK(GP_ENT_COOKIE(GP_RT_HIP, GP_ENT_MODULE) == GP_ENT_MODULE);
	/* slots a runtime lacks, and what is no library entry */
	CHECK(!gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_CUDA, GP_ENT_MODULE)));
	CHECK(!gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_HIP,
					      GP_ENT_STREAM_SYNC_SPT)));
	CHECK(!gp_dl_entry_name(GP_ENT_WAIT_EVENTS));
	CHECK(!gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_MAX, GP_ENT_LAUNCH)));
	CHECK(!gp_dl_entry_name(GP_ENT_COOKIE(GP_RT_CUDA, GP_ENT_MAX)));
}

TEST(tables_launch_then_sync)
{
	int r, i;

	/* a uretprobe exactly in the sync slots, every launch slot a
	 * uprobe: BPF tells them apart by program, user space by slot */
	for (r = 0; r < GP_RT_MAX; r++)
		for (i = 0; i < GP_ENT_MAX; i++)
			CHECK(!gp_dl_runtimes[r].entries[i].sym ||
			      gp_dl_runtimes[r].entries[i].retprobe ==
			      (i >= GP_ENT_NLAUNCH));
}

static char standin[PATH_MAX];

TEST(elf_reader_finds_cuda_entries_in_standin)
{
	unsigned long long off[GP_ENT_MAX];
	char reason[GP_DL_REASON];
	struct link_map *lm;
	int n, i, found = 0;
	void *h, *sym;

	CHECK(gp_dl_resolve(standin, GP_RT_CUDA, off, &n, reason,
			    sizeof(reason)) == 0);
	printf("# %s: %d launch entries, reason \"%s\"\n", standin, n, reason);
	CHECK(n == 8);
	CHECK_STR(reason, "");
	h = dlopen(standin, RTLD_NOW | RTLD_LOCAL);
	CHECK(h && !dlinfo(h, RTLD_DI_LINKMAP, &lm));
	if (!h)
		return;
	for (i = 0; i < GP_ENT_MAX; i++) {
		const char *s = gp_dl_runtimes[GP_RT_CUDA].entries[i].sym;

		if (!s) {
			CHECK(!off[i]);
			continue;
		}
		found++;
		sym = dlsym(h, s);
		/* the file offset is the loader's address less the base
		 * (one executable PT_LOAD whose offset is its vaddr) */
		CHECK(sym && off[i] &&
		      off[i] == (unsigned long long)((char *)sym -
						    (char *)lm->l_addr));
	}
	CHECK(found == 12);
	dlclose(h);
}

TEST(elf_reader_standin_is_not_hip)
{
	unsigned long long off[GP_ENT_MAX];
	char reason[GP_DL_REASON];
	int n;

	CHECK(gp_dl_resolve(standin, GP_RT_HIP, off, &n, reason,
			    sizeof(reason)) == -ENOEXEC);
	CHECK(strstr(reason, "none of the launch symbols in .dynsym: no "
		     "launch entry point to probe (stripped, or not HIP)"));
	CHECK(gp_dl_resolve(standin, GP_RT_MAX, off, &n, reason,
			    sizeof(reason)) == -EINVAL);
}

int main(void)
{
	char *slash;
	ssize_t k = readlink("/proc/self/exe", standin, sizeof(standin) - 1);

	standin[k > 0 ? k : 0] = 0;
	slash = strrchr(standin, '/');
	snprintf(slash ? slash + 1 : standin,
		 sizeof(standin) - (slash ? slash + 1 - standin : 0),
		 "standin-launch/libcuda.so.1");
	RUN(runtime_by_base_name);
	RUN(maps_line_says_runtime);
	RUN(maps_choose_first_runtime_hip_first_when_both);
	RUN(cookie_names_its_entry);
	RUN(tables_launch_then_sync);
	RUN(elf_reader_finds_cuda_entries_in_standin);
	RUN(elf_reader_standin_is_not_hip);
	return tap_done();
}
