// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the launch detector's ELF reader
 * (user/detect/detect_elf.c): any bytes, as the file the online tenant
 * mapped, read through a memfd with pread as the daemon reads it. Every
 * input is refused with a reason or gives offsets inside the file; none
 * reads out of bounds or runs long (-timeout).
 *
 *   tests/fuzz/run.sh [SECONDS]     build, run, print TAP
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "detect_launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	unsigned long long off[GP_ENT_MAX];
	char reason[GP_DL_REASON];
	int n, err, i, rt;

	if (fd < 0)
		fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	assert(fd >= 0);
	assert(!ftruncate(fd, 0));
	assert(pwrite(fd, data, size, 0) == (ssize_t)size);
	/* each runtime's table (detect_libs.c) over the same bytes */
	for (rt = 0; rt < GP_RT_MAX; rt++) {
		err = gp_dl_resolve_fd(fd, "lib", rt, off, &n, reason,
				       sizeof(reason));
		assert(strlen(reason) < sizeof(reason));
		if (err) {
			assert(err < 0 && reason[0]);
			continue;
		}
		assert(n > 0 && n <= GP_ENT_NLAUNCH);
		/* every offset found is inside the file (a uprobe's place),
		 * and only where the runtime has an entry */
		for (i = 0; i < GP_ENT_MAX; i++)
			assert(off[i] < size &&
			       (!off[i] || gp_dl_runtimes[rt].entries[i].sym));
	}
	return 0;
}
