// SPDX-License-Identifier: GPL-2.0
/*
 * What `gpreempt-ctl bugreport` reads of the machine (ctl_bugreport_sys.h):
 * versions, the KFD topology, the pinned trace's histograms, the kernel
 * log's amdgpu/KFD lines and the KFD and gpreempt processes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/types.h>

#include <bpf/bpf.h>

#include "ctl_bugreport_buf.h"
#include "ctl_bugreport_sys.h"
#include "gpreempt.h"
#include "hist.h"

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Processes with /dev/kfd open, and gpreempt's own: pid, comm, cmdline. */
void br_processes(bool redact)
{
	struct br_buf *b = br_item("processes.txt");
	char path[64], link[64], comm[64] = "";
	struct dirent *de, *fe;
	DIR *d, *fd;

	if (!b || !(d = opendir("/proc")))
		return;
	br_printf(b, "# pid comm cmdline: processes with /dev/kfd open, and "
		  "gpreempt's own%s\n", redact ? " (command lines redacted)" : "");
	while ((de = readdir(d))) {
		struct br_buf c = {};
		bool kfd = false;
		ssize_t n;
		size_t i;

		int pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		if ((fd = opendir(path))) {
			while (!kfd && (fe = readdir(fd))) {
				if (snprintf(path, sizeof(path), "/proc/%d/fd/%s",
					     pid, fe->d_name) >= (int)sizeof(path))
					continue;
				n = readlink(path, link, sizeof(link) - 1);
				kfd = n > 0 && (link[n] = 0,
						!strcmp(link, "/dev/kfd"));
			}
			closedir(fd);
		}
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		memset(comm, 0, sizeof(comm));
		if ((n = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			ssize_t r = read((int)n, comm, sizeof(comm) - 1);

			close((int)n);
			if (r > 0 && comm[r - 1] == '\n')
				comm[r - 1] = 0;
		}
		if (!kfd && !has_prefix(comm, "gpreempt-"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		br_file(&c, path, 4096);
		for (i = 0; c.p && i < c.len; i++)
			if (!c.p[i] || c.p[i] == '\n')
				c.p[i] = ' ';
		while (c.len && c.p[c.len - 1] == ' ')
			c.p[--c.len] = 0;
		if (c.len) {
			br_append(&br_cmdlines, c.p, c.len + 1);
			br_printf(b, "%d %s%s ", pid, comm,
				  kfd ? " (kfd)" : "");
			if (redact)
				br_printf(b, "[cmdline redacted]\n");
			else {
				br_append(b, c.p, c.len);
				br_printf(b, "\n");
			}
		}
		free(c.p);
	}
	closedir(d);
}

/* Versions: the kernel's, amdgpu's, firmware, ROCm libraries. */
void br_versions(const char *self)
{
	static const char *const params[] = { "sched_policy", "cwsr_enable",
		"hws_max_conc_proc", "queue_preemption_timeout_ms", "mes" };
	static const char *const libdirs[] = { "/opt/rocm/lib",
		"/opt/rocm/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64",
		"/usr/local/lib" };
	static const char *const libs[] = { "libhsa-runtime64.so",
		"libamdhip64.so", "libhsakmt.so", "librocm-core.so",
		"librocm_smi64.so", "libamd_comgr.so" };
	struct br_buf *b = br_item("versions.txt");
	char path[512];
	struct utsname u;
	struct dirent *de, *fe;
	DIR *d, *fd;
	size_t i, j;

	if (!b)
		return;
	br_printf(b, "gpreempt-ctl: %s\n", self);
	if (!uname(&u))
		br_printf(b, "\nuname: %s %s %s %s\n", u.sysname, u.release,
			  u.version, u.machine);
	br_printf(b, "\n/proc/version: ");
	br_file(b, "/proc/version", 4096);
	/* an in-tree amdgpu has no version of its own: the kernel's */
	br_printf(b, "\namdgpu initstate: ");
	if (br_file(b, "/sys/module/amdgpu/initstate", 64))
		br_printf(b, "(none: built in, or not loaded)\n");
	br_printf(b, "amdgpu version: ");
	if (br_file(b, "/sys/module/amdgpu/version", 256))
		br_printf(b, "(none: in-tree, see the kernel's)\n");
	br_printf(b, "amdgpu srcversion: ");
	if (br_file(b, "/sys/module/amdgpu/srcversion", 256))
		br_printf(b, "(none)\n");
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		snprintf(path, sizeof(path),
			 "/sys/module/amdgpu/parameters/%s", params[i]);
		br_printf(b, "amdgpu.%s: ", params[i]);
		if (br_file(b, path, 256))
			br_printf(b, "(unreadable)\n");
	}
	br_printf(b, "\n# firmware (/sys/class/drm/card*/device/fw_version)\n");
	if ((d = opendir("/sys/class/drm"))) {
		while ((de = readdir(d))) {
			if (!has_prefix(de->d_name, "card") ||
			    strchr(de->d_name, '-'))
				continue;
			if (snprintf(path, sizeof(path), "/sys/class/drm/%s/"
				     "device/fw_version", de->d_name) >=
			    (int)sizeof(path) || !(fd = opendir(path)))
				continue;
			while ((fe = readdir(fd))) {
				if (fe->d_name[0] == '.')
					continue;
				if (snprintf(path, sizeof(path), "/sys/class/drm/"
					     "%s/device/fw_version/%s", de->d_name,
					     fe->d_name) >= (int)sizeof(path))
					continue;
				br_printf(b, "%s %s: ", de->d_name, fe->d_name);
				if (br_file(b, path, 256))
					br_printf(b, "(unreadable)\n");
			}
			closedir(fd);
		}
		closedir(d);
	}
	br_printf(b, "\n# ROCm libraries found\n");
	for (i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		if (!(d = opendir(libdirs[i])))
			continue;
		while ((de = readdir(d)))
			for (j = 0; j < sizeof(libs) / sizeof(libs[0]); j++)
				if (has_prefix(de->d_name, libs[j]))
					br_printf(b, "%s/%s\n", libdirs[i],
						  de->d_name);
		closedir(d);
	}
	br_printf(b, "/opt/rocm/.info/version: ");
	if (br_file(b, "/opt/rocm/.info/version", 256))
		br_printf(b, "(none)\n");
}

/* The KFD topology tree, file by file, under topology/. */
void br_topology(const char *dir, const char *rel, int depth)
{
	char path[512], name[256];
	struct dirent *de;
	struct br_buf *b;
	DIR *d;

	if (depth > 5 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path) || snprintf(name, sizeof(name), "%s/%s",
		    rel, de->d_name) >= (int)sizeof(name))
			continue;
		if (de->d_type == DT_DIR) {
			br_topology(path, name, depth + 1);
		} else if (de->d_type == DT_REG && br_n_items() < BR_TOPO_FILES &&
			   (b = br_item(name))) {
			br_file(b, path, BR_FILE_MAX);
		}
	}
	closedir(d);
}

/* The kernel log's amdgpu/KFD/DRM lines (/dev/kmsg, read to its end). */
void br_kernel_log(void)
{
	struct br_buf *b = br_item("kernel-log.txt"), all = {};
	char rec[8192], *line, *save = NULL;
	int fd;
	ssize_t n;

	if (!b)
		return;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		br_printf(b, "cannot read /dev/kmsg: %s (run as root)\n",
			  strerror(errno));
		return;
	}
	/* one record per read; EAGAIN at the end, EPIPE when overwritten */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE)
		if (n > 0)
			br_append(&all, rec, (size_t)n);
	close(fd);
	for (line = all.p ? strtok_r(all.p, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (strcasestr(line, "amdgpu") || strcasestr(line, "kfd") ||
		    strcasestr(line, "[drm]"))
			br_printf(b, "%s\n", line);
	if (!b->len)
		br_printf(b, "(no amdgpu, KFD or DRM lines)\n");
	free(all.p);
}

/*
 * The running tracer's histograms, pinned beside its queue map. Their
 * slots are in the unit it was started with (rodata it alone knows):
 * printed as its default, microseconds, and said so.
 */
void br_trace_hists(void)
{
	struct gp_out_opts o = { .unit = GP_UNIT_USEC };
	struct br_buf *b;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd;

	if (access(GP_PIN_HISTS, F_OK) || !(b = br_item("trace-histograms.txt")))
		return;
	br_printf(b, "# %s: slots in the tracer's unit (microseconds "
		  "unless it runs with -m)\n", GP_PIN_HISTS);
	fd = bpf_obj_get(GP_PIN_HISTS);
	if (fd < 0) {
		br_printf(b, "cannot open it: %s\n", strerror(errno));
		return;
	}
	f = open_memstream(&text, &len);
	if (f) {
		if (gp_hists_print(f, fd, &o) < 0)
			fprintf(f, "cannot read it\n");
		fclose(f);
		br_append(b, text, len);
		free(text);
	}
	close(fd);
}

