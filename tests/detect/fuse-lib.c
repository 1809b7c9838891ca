// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-lib: a library whose reads never end, for the launch detector's
 * deadline (tests/bats/detect_hostile.bats). Mounts FUSE on MNT and
 * serves it until killed (tests/unit/fuse_proc.h): every file under
 * MNT/1/ stats as a 4 KiB regular file, opens, and has each READ left
 * unanswered, as a stalled FUSE server leaves it. A process can map such
 * a file (MAP_PRIVATE, no page touched); whoever reads it waits.
 *
 *   fuse-lib MNT
 */
#include <stdio.h>

#include "fuse_proc.h"

int main(int argc, char **argv)
{
	struct fuse_proc p = { .stall = { { 1, 0 } }, .nstall = 1 };

	if (argc != 2) {
		fprintf(stderr, "usage: fuse-lib MNT\n");
		return 2;
	}
	p.mnt = argv[1];
	fuse_proc_serve(&p);
	return 1;
}
