/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File offsets of named functions in a shared library's .dynsym (the
 * offsets a uprobe takes), for the probe drivers of the tests and the
 * benchmark (tests/detect/arm-run.c, bench/uprobe-arm.c), which take
 * any library's names (libamdhip64's, libcuda's). A name ending in '*'
 * is a prefix (C++-mangled names). The detector's own resolver, with
 * its reasons, is gp_dl_resolve().
 */
#ifndef GP_TESTS_DYNSYM_H
#define GP_TESTS_DYNSYM_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

static inline int dynsym_match(const char *want, const char *name)
{
	size_t n = strlen(want);

	if (n && want[n - 1] == '*')
		return !strncmp(name, want, n - 1);
	return !strcmp(name, want);
}

/* The executable PT_LOAD that holds va: va's file offset (0: none). */
static inline unsigned long dynsym_off(Elf *e, GElf_Addr va)
{
	GElf_Phdr ph;
	size_t np, j;

	if (elf_getphdrnum(e, &np))
		return 0;
	for (j = 0; j < np; j++)
		if (gelf_getphdr(e, j, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && va >= ph.p_vaddr &&
		    va < ph.p_vaddr + ph.p_filesz)
			return va - ph.p_vaddr + ph.p_offset;
	return 0;
}

/* off[k] for names[k], k < n: 0 when all are found, -ENOENT if one is
 * missing (its off[k] stays 0), -errno when lib cannot be read. */
static inline int dynsym_resolve(const char *lib, char *const names[], int n,
				 unsigned long off[])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, cnt;
	int fd, k, found = 0;
	Elf *e;

	memset(off, 0, n * sizeof(off[0]));
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < cnt; i++) {
			const char *nm;

			if (!gelf_getsym(d, i, &s) || !s.st_value ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			for (k = 0; nm && k < n; k++)
				if (!off[k] && dynsym_match(names[k], nm) &&
				    (off[k] = dynsym_off(e, s.st_value)))
					found++;
		}
	}
	elf_end(e);
	close(fd);
	return found == n ? 0 : -ENOENT;
}

#endif
