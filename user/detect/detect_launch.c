// SPDX-License-Identifier: GPL-2.0
/*
 * The launch detector's user side: find the process's libamdhip64, the
 * entry points' file offsets in its .dynsym, and the pid-scoped uprobes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "detect_launch.h"
#include "detect.skel.h"

/*
 * HIP 5.7.1 (Debian trixie libamdhip64-5, nm -D --defined-only): every
 * entry below is exported; hipExtModuleLaunchKernel only C++-mangled
 * (_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjm...), the
 * path rocBLAS/hipBLASLt GEMMs take. No .symtab: internal ihip*
 * functions have no names to probe.
 */
const struct gp_dl_entry gp_dl_entries[GP_ENT_MAX] = {
	[GP_ENT_LAUNCH] = { "hipLaunchKernel" },
	[GP_ENT_LAUNCH_SPT] = { "hipLaunchKernel_spt" },
	[GP_ENT_EXT_LAUNCH] = { "hipExtLaunchKernel" },
	[GP_ENT_MODULE] = { "hipModuleLaunchKernel" },
	[GP_ENT_EXT_MODULE] = { "_Z24hipExtModuleLaunchKernel", true },
	[GP_ENT_COOP] = { "hipLaunchCooperativeKernel" },
	[GP_ENT_COOP_SPT] = { "hipLaunchCooperativeKernel_spt" },
	[GP_ENT_MODULE_COOP] = { "hipModuleLaunchCooperativeKernel" },
	[GP_ENT_GRAPH] = { "hipGraphLaunch" },
	[GP_ENT_GRAPH_SPT] = { "hipGraphLaunch_spt" },
	[GP_ENT_DEV_SYNC] = { "hipDeviceSynchronize", false, true },
	[GP_ENT_STREAM_SYNC] = { "hipStreamSynchronize", false, true },
	[GP_ENT_EVENT_SYNC] = { "hipEventSynchronize", false, true },
};

static bool is_hip(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strncmp(b ? b + 1 : path, "libamdhip64", 11);
}

struct map_line {
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	char path[PATH_MAX];
};

static bool parse_map(const char *s, struct map_line *m)
{
	int pos = 0;

	m->path[0] = 0;
	if (sscanf(s, "%llx-%llx %7s %llx %x:%x %llu %n", &m->start, &m->end,
		   m->perms, &m->off, &m->maj, &m->min, &m->ino, &pos) < 7)
		return false;
	if (pos) {
		snprintf(m->path, sizeof(m->path), "%s", s + pos);
		m->path[strcspn(m->path, "\n")] = 0;
	}
	return true;
}

static FILE *open_maps(const char *proc_root, pid_t pid)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%d/maps", proc_root, pid);
	return fopen(p, "re");
}

int gp_dl_scan(const char *proc_root, pid_t pid, struct gp_dl_lib *lib)
{
	char line[PATH_MAX + 128];
	struct map_line m;
	struct stat st;
	bool found = false;
	FILE *f;
	int err;

	memset(lib, 0, sizeof(*lib));
	lib->pid = pid;
	f = open_maps(proc_root, pid);
	if (!f) {
		err = -errno;
		snprintf(lib->reason, sizeof(lib->reason),
			 "cannot read /proc/%d/maps: %s", pid, strerror(-err));
		return err;
	}
	while (fgets(line, sizeof(line), f))
		if (parse_map(line, &m) && m.ino && is_hip(m.path)) {
			found = true;
			break;
		}
	fclose(f);
	if (!found) {
		snprintf(lib->reason, sizeof(lib->reason),
			 "no libamdhip64 mapped (not a HIP process, or HIP not loaded yet)");
		return -ENOENT;
	}
	snprintf(lib->path, sizeof(lib->path), "%s", m.path);
	lib->dev = makedev(m.maj, m.min);
	lib->ino = m.ino;
	if (strstr(m.path, " (deleted)")) {
		snprintf(lib->reason, sizeof(lib->reason),
			 "%.160s was deleted after it was mapped: restart the process to watch it",
			 m.path);
		return -ESTALE;
	}
	/* through the process's root: a container's file is reachable too */
	snprintf(lib->open_path, sizeof(lib->open_path), "%s/%d/root%s",
		 proc_root, pid, m.path);
	if (stat(lib->open_path, &st)) {
		err = -errno;
		snprintf(lib->reason, sizeof(lib->reason), "cannot stat %.160s: %s",
			 m.path, strerror(-err));
		return err;
	}
	if (st.st_ino != lib->ino || major(st.st_dev) != m.maj ||
	    minor(st.st_dev) != m.min) {
		snprintf(lib->reason, sizeof(lib->reason),
			 "%.160s is no longer the mapped file (replaced): restart the process to watch it",
			 m.path);
		return -ESTALE;
	}
	return gp_dl_resolve(lib->open_path, lib->off, &lib->nlaunch,
			     lib->reason, sizeof(lib->reason));
}

/* File offset of a symbol's address: its PT_LOAD segment's mapping. */
static unsigned long long to_off(Elf *e, GElf_Addr va)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && va >= ph.p_vaddr &&
		    va < ph.p_vaddr + ph.p_filesz)
			return va - ph.p_vaddr + ph.p_offset;
	return 0;
}

static int match(const char *name)
{
	int i;

	for (i = 0; i < GP_ENT_MAX; i++) {
		const struct gp_dl_entry *en = &gp_dl_entries[i];

		if (en->prefix ? !strncmp(name, en->sym, strlen(en->sym))
			       : !strcmp(name, en->sym))
			return i;
	}
	return -1;
}

static int scan_dynsym(Elf *e, unsigned long long off[GP_ENT_MAX])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *data;
	int i, n, k, seen = 0;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; data && i < n; i++) {
			if (!gelf_getsym(data, i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			k = match(elf_strptr(e, sh.sh_link, sym.st_name) ?: "");
			if (k >= 0 && !off[k])
				off[k] = to_off(e, sym.st_value);
		}
		seen = 1;
	}
	return seen;
}

int gp_dl_resolve(const char *file, unsigned long long off[GP_ENT_MAX],
		  int *nlaunch, char *reason, size_t len)
{
	char miss[GP_DL_REASON] = "";
	size_t used = 0;
	int fd, i, err = 0, seen;
	Elf *e;

	memset(off, 0, sizeof(off[0]) * GP_ENT_MAX);
	*nlaunch = 0;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(reason, len, "cannot open %.160s: %s", file, strerror(-err));
		return err;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(reason, len, "%.160s is not an ELF file", file);
		err = -ENOEXEC;
		goto out;
	}
	seen = scan_dynsym(e, off);
	for (i = 0; i < GP_ENT_NLAUNCH; i++)
		if (off[i])
			(*nlaunch)++;
	if (!seen || !*nlaunch) {
		snprintf(reason, len,
			 "%.160s has %s: no launch entry point to probe (stripped, or not HIP)",
			 file, seen ? "none of the launch symbols in .dynsym" : "no .dynsym");
		err = -ENOEXEC;
		goto out;
	}
	for (i = 0; i < GP_ENT_MAX; i++)
		if (!off[i] && used < sizeof(miss))
			used += snprintf(miss + used, sizeof(miss) - used,
					 "%s%s", used ? "," : "",
					 gp_dl_entries[i].sym);
	if (used)
		snprintf(reason, len, "missing:%s", miss);
	else
		reason[0] = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

unsigned long long gp_dl_entry_addr(const char *proc_root,
				    const struct gp_dl_lib *lib, int e)
{
	char line[PATH_MAX + 128];
	struct map_line m;
	unsigned long long a = 0, off = lib->off[e];
	FILE *f = open_maps(proc_root, lib->pid);

	while (f && off && fgets(line, sizeof(line), f))
		if (parse_map(line, &m) && m.ino == lib->ino &&
		    off >= m.off && off < m.off + (m.end - m.start)) {
			a = m.start + off - m.off;
			break;
		}
	if (f)
		fclose(f);
	return a;
}
