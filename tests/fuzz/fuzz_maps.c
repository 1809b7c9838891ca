// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the launch detector's /proc/PID/maps reader
 * (user/detect/detect_launch.c): any bytes, read as a maps file (whole
 * lines, whatever their length) and as one line, must parse or be
 * refused cleanly, never read out of bounds; what is found names a
 * libamdhip64 mapping with an inode, its message path is escaped (no
 * control byte) and its raw path is a copy of the line's.
 *
 *   tests/fuzz/run.sh [SECONDS]     build, run, print TAP
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_launch.h"

static void check_found(const struct gp_dl_map *m)
{
	size_t i;

	assert(m->ino && m->rt >= 0 && m->rt < GP_RT_MAX);
	assert(m->also < GP_RT_MAX && m->also != m->rt);
	for (i = 0; m->path[i]; i++)
		assert((unsigned char)m->path[i] >= 0x20 && m->path[i] != 0x7f);
	assert(i < sizeof(m->path));
	assert(strlen(m->raw) < sizeof(m->raw));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gp_dl_map m;
	char *line = malloc(size + 1);
	FILE *f;

	if (!line)
		return 0;
	/* one line, with its one NUL: a private copy for ASan */
	memcpy(line, data, size);
	line[size] = 0;
	if (gp_dl_parse_map(line, size + 1, &m) && m.ino && m.rt >= 0)
		check_found(&m);
	free(line);
	/* a whole file, through stdio as the daemon reads it */
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (size && gp_dl_maps_find(f, &m) == 1)
		check_found(&m);
	fclose(f);
	return 0;
}
