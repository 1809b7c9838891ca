// SPDX-License-Identifier: GPL-2.0
/*
 * l3-analyze: the co-location kit's analysis step, separate from the GPU
 * runs so it is tested on the host (tests/unit/test_snapshot_l3.c).
 *   l3-analyze [--min-cycles N] DIR
 * reads DIR/runs/NAME/, writes DIR/summary.txt, DIR/summary.json (NDJSON)
 * and DIR/plots/ (data + plots.gp), prints the summary. Exit 0: every
 * verdict passed; 1: one failed; 2: nothing to judge or bad usage;
 * 3: I/O error. scripts/l3-colocate.sh builds it with
 *   cc -O2 -Itests/kit tests/kit/l3-analyze.c tests/kit/l3an.c
 *      tests/kit/l3an_out.c -lm
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l3an.h"

int main(int argc, char **argv)
{
	struct l3_opts o;
	char path[4096];
	FILE *txt, *json;
	const char *dir = NULL;
	int r, i;

	l3_opts_default(&o);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--min-cycles") && i + 1 < argc)
			o.min_cycles = strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else
			break;
	}
	if (!dir || i < argc) {
		fprintf(stderr, "usage: l3-analyze [--min-cycles N] DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	txt = fopen(path, "we");
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	json = fopen(path, "we");
	if (!txt || !json) {
		fprintf(stderr, "l3-analyze: cannot write in %s: %s\n", dir,
			strerror(errno));
		return 3;
	}
	r = l3_analyze(dir, &o, txt, json, true);
	fclose(txt);
	fclose(json);
	if (r < 0) {
		fprintf(stderr, "l3-analyze: %s: %s\n", dir, strerror(-r));
		return 3;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	txt = fopen(path, "re");
	while (txt && (i = fgetc(txt)) != EOF)
		putchar(i);
	if (txt)
		fclose(txt);
	return r;
}
