// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector's ELF reader: the .dynsym offsets of a GPU runtime
 * library's entry points (libamdhip64's or libcuda's: detect_libs.c) in a
 * file the online tenant controls, read by root. So:
 *  - no mmap (libelf's ELF_C_READ_MMAP): a tenant truncating its library
 *    during the scan made the daemon die of SIGBUS. pread into private
 *    buffers instead: a truncated file reads short, and says so;
 *  - every count bounded before it is used (program headers, sections,
 *    .dynsym sections, symbols, string table) and every byte read counted
 *    against a budget: a crafted ELF (60,000 program headers, 100 .dynsym
 *    sections sharing one table) made libelf's walk spin for minutes;
 *  - offsets and sizes checked against the file's size, so nothing reads
 *    past what fstat saw.
 * Only ELF64 in host byte order: what a HIP or CUDA driver library is on
 * x86_64/aarch64.
 * The bounds are far above trixie's libamdhip64 5.7.1 (readelf: 10
 * program headers, 29 sections, one .dynsym of 1,744 symbols, .dynstr
 * 77 KiB; 24.5 MB file).
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detect_launch.h"

#define ELF_MAX_PHDRS 64
#define ELF_MAX_SHDRS 1024
#define ELF_MAX_SYMS (1u << 20)
#define ELF_MAX_STRTAB (16u << 20)
#define ELF_BUDGET (64u << 20)	/* bytes read per file, all told */
#define ELF_SYM_CHUNK 1024

struct rd {
	int fd;
	const struct gp_dl_entry *ent;	/* the runtime's table */
	uint64_t size;		/* fstat's, at the start */
	uint64_t left;		/* of the budget */
	const char *why;	/* the first refusal */
};

/* n bytes at off, all inside the file and the budget, or false (why). */
static bool rd(struct rd *r, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	ssize_t k;

	if (off > r->size || n > r->size - off) {
		r->why = "is cut short (an offset or size past its end)";
		return false;
	}
	if (n > r->left) {
		r->why = "needs more than the 64 MiB read budget";
		return false;
	}
	r->left -= n;
	while (got < n) {
		k = pread(r->fd, (char *)buf + got, n - got, off + got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->why = "changed while it was read (truncated)";
			return false;
		}
		got += k;
	}
	return true;
}

static int match(const struct gp_dl_entry *ent, const char *name)
{
	int i;

	for (i = 0; i < GP_ENT_MAX; i++) {
		const struct gp_dl_entry *en = &ent[i];

		if (!en->sym)
			continue;
		if (en->prefix ? !strncmp(name, en->sym, strlen(en->sym))
			       : !strcmp(name, en->sym))
			return i;
	}
	return -1;
}

/* File offset of an address: its executable PT_LOAD segment's, inside
 * the file (0: none). */
static uint64_t to_off(const Elf64_Phdr *ph, int n, uint64_t va,
		       uint64_t size)
{
	uint64_t o;
	int i;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz) {
			o = va - ph[i].p_vaddr;
			return ph[i].p_offset < size && o < size - ph[i].p_offset ?
			       o + ph[i].p_offset : 0;
		}
	return 0;
}

struct elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[ELF_MAX_PHDRS];
	Elf64_Shdr sh[ELF_MAX_SHDRS];
	Elf64_Sym sym[ELF_SYM_CHUNK];
	int nph;
};

static bool headers(struct rd *r, struct elf *e)
{
	static const unsigned char host =
		__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;

	if (!rd(r, &e->eh, sizeof(e->eh), 0) ||
	    memcmp(e->eh.e_ident, ELFMAG, SELFMAG)) {
		r->why = "is not an ELF file";
		return false;
	}
	if (e->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh.e_ident[EI_DATA] != host) {
		r->why = "is not a 64-bit ELF in this host's byte order";
		return false;
	}
	if (e->eh.e_phnum > ELF_MAX_PHDRS || e->eh.e_shnum > ELF_MAX_SHDRS ||
	    (e->eh.e_phnum && e->eh.e_phentsize != sizeof(Elf64_Phdr)) ||
	    (e->eh.e_shnum && e->eh.e_shentsize != sizeof(Elf64_Shdr))) {
		r->why = "has too many or malformed program or section headers";
		return false;
	}
	e->nph = e->eh.e_phnum;
	return rd(r, e->ph, e->nph * sizeof(Elf64_Phdr), e->eh.e_phoff) &&
	       rd(r, e->sh, e->eh.e_shnum * sizeof(Elf64_Shdr),
		  e->eh.e_shoff);
}

/* The one .dynsym's entries: 1 seen, 0 none, -1 refused (r->why). */
static int dynsym(struct rd *r, struct elf *e,
		  unsigned long long off[GP_ENT_MAX])
{
	const Elf64_Shdr *ds = NULL, *ss;
	uint64_t n, i, k, c;
	char *str;
	int j, m;

	for (j = 0; j < e->eh.e_shnum; j++) {
		if (e->sh[j].sh_type != SHT_DYNSYM)
			continue;
		if (ds) {
			r->why = "has more than one .dynsym";
			return -1;
		}
		ds = &e->sh[j];
	}
	if (!ds)
		return 0;
	if (ds->sh_entsize != sizeof(Elf64_Sym) || ds->sh_link >= e->eh.e_shnum ||
	    e->sh[ds->sh_link].sh_type != SHT_STRTAB) {
		r->why = "has a malformed .dynsym";
		return -1;
	}
	ss = &e->sh[ds->sh_link];
	n = ds->sh_size / sizeof(Elf64_Sym);
	if (n > ELF_MAX_SYMS || !ss->sh_size || ss->sh_size > ELF_MAX_STRTAB) {
		r->why = "has a .dynsym or .dynstr over the bounds";
		return -1;
	}
	str = malloc(ss->sh_size + 1);
	if (!str) {
		r->why = "cannot be read (out of memory)";
		return -1;
	}
	if (!rd(r, str, ss->sh_size, ss->sh_offset)) {
		free(str);
		return -1;
	}
	str[ss->sh_size] = 0;
	for (i = 0; i < n; i += c) {
		c = n - i < ELF_SYM_CHUNK ? n - i : ELF_SYM_CHUNK;
		if (ds->sh_offset > UINT64_MAX - i * sizeof(Elf64_Sym) ||
		    !rd(r, e->sym, c * sizeof(Elf64_Sym),
			ds->sh_offset + i * sizeof(Elf64_Sym))) {
			free(str);
			return -1;
		}
		for (k = 0; k < c; k++) {
			const Elf64_Sym *s = &e->sym[k];

			if (!s->st_value || s->st_shndx == SHN_UNDEF ||
			    ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
			    s->st_name >= ss->sh_size)
				continue;
			m = match(r->ent, str + s->st_name);
			if (m >= 0 && !off[m])
				off[m] = to_off(e->ph, e->nph, s->st_value,
						 r->size);
		}
	}
	free(str);
	return 1;
}

int gp_dl_resolve_fd(int fd, const char *name, int rt,
		     unsigned long long off[GP_ENT_MAX], int *nlaunch,
		     char *reason, size_t len)
{
	char miss[GP_DL_REASON] = "";
	struct rd r = { .fd = fd, .left = ELF_BUDGET };
	const struct gp_dl_entry *ent;
	struct elf *e;
	struct stat st;
	size_t used = 0;
	int i, seen;

	memset(off, 0, sizeof(off[0]) * GP_ENT_MAX);
	*nlaunch = 0;
	if (rt < 0 || rt >= GP_RT_MAX) {
		snprintf(reason, len, "%.160s: no such GPU runtime (%d)", name,
			 rt);
		return -EINVAL;
	}
	r.ent = ent = gp_dl_runtimes[rt].entries;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(reason, len, "%.160s is not a regular file", name);
		return -EACCES;
	}
	r.size = st.st_size;
	e = malloc(sizeof(*e));
	if (!e) {
		snprintf(reason, len, "%.160s: out of memory", name);
		return -ENOMEM;
	}
	seen = headers(&r, e) ? dynsym(&r, e, off) : -1;
	free(e);
	if (seen < 0) {
		snprintf(reason, len, "%.160s %s", name, r.why);
		return -ENOEXEC;
	}
	for (i = 0; i < GP_ENT_NLAUNCH; i++)
		if (off[i])
			(*nlaunch)++;
	if (!seen || !*nlaunch) {
		snprintf(reason, len,
			 "%.160s has %s: no launch entry point to probe "
			 "(stripped, or not %s)", name,
			 seen ? "none of the launch symbols in .dynsym" :
			 "no .dynsym", gp_dl_runtimes[rt].name);
		return -ENOEXEC;
	}
	for (i = 0; i < GP_ENT_MAX; i++)
		if (!off[i] && ent[i].sym && used < sizeof(miss))
			used += snprintf(miss + used, sizeof(miss) - used,
					 "%s%s", used ? "," : "", ent[i].sym);
	if (used)
		snprintf(reason, len, "missing:%s", miss);
	else
		reason[0] = 0;
	return 0;
}
