// SPDX-License-Identifier: GPL-2.0
/*
 * Per-hook choice between fentry, kprobe and absent, made once at start
 * (retsnoop habit) and reported by --check. Facts come from amdgpu's
 * module BTF, one trial fentry load per function (the libbpf-tools
 * fentry_can_attach idea) and, only when a kprobe is needed, one pass over
 * /proc/kallsyms. available_filter_functions is never read: it takes ~10 s
 * under TCG and kallsyms answers the same question here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "json.h"

#define MOD "amdgpu"
#define MOD_BTF "/sys/kernel/btf/" MOD

const struct gp_hook gp_hooks[] = {
	{ "kfd_ioctl_create_queue", "create", GP_HOOK_RET | GP_HOOK_REDUCED },
	{ "kfd_ioctl_destroy_queue", "destroy", GP_HOOK_RET | GP_HOOK_REDUCED },
	{ "kfd_procfs_add_queue", "qadd", 0 },
	{ "kfd_procfs_del_queue", "qdel", 0 },
	{ "evict_process_queues_cpsch", "evict_c", GP_HOOK_RET },
	{ "evict_process_queues_nocpsch", "evict_nc", GP_HOOK_RET },
	{ "restore_process_queues_cpsch", "restore_c", GP_HOOK_RET },
	{ "restore_process_queues_nocpsch", "restore_nc", GP_HOOK_RET },
	{ "kfd_process_evict_queues", "pevict", GP_HOOK_RET },
	{ "kfd_ioctl_set_debug_trap", "dbg",
	  GP_HOOK_RET | GP_HOOK_REDUCED | GP_HOOK_DEBUG },
	{ "suspend_queues", "suspend", GP_HOOK_RET | GP_HOOK_DEBUG },
	{ "resume_queues", "resume", GP_HOOK_RET | GP_HOOK_DEBUG },
	{ "pm_send_unmap_queue", "unmap", GP_HOOK_RET | GP_HOOK_HW },
	{ "amdkfd_fence_wait_timeout", "fence", GP_HOOK_RET | GP_HOOK_HW },
	{ "mes_v11_0_remove_hw_queue", "mes11_rm", GP_HOOK_RET | GP_HOOK_HW },
	{ "mes_v11_0_add_hw_queue", "mes11_add", GP_HOOK_RET | GP_HOOK_HW },
	{ "mes_v12_0_remove_hw_queue", "mes12_rm", GP_HOOK_RET | GP_HOOK_HW },
	{ "mes_v12_0_add_hw_queue", "mes12_add", GP_HOOK_RET | GP_HOOK_HW },
};
const int gp_nhooks = sizeof(gp_hooks) / sizeof(gp_hooks[0]);


const char *gp_how_name(enum gp_how how)
{
	switch (how) {
	case GP_HOW_FENTRY:
		return "fentry";
	case GP_HOW_KPROBE:
		return "kprobe";
	default:
		return "absent";
	}
}

void gp_kallsyms_scan(FILE *f, const struct gp_hook *hooks, int n,
		      int *total, int *amdgpu)
{
	char line[512], name[256], mod[64];
	bool first[256] = {};

	/* Cheap reject on the first byte, from the table itself. */
	for (int i = 0; i < n; i++)
		first[(unsigned char)hooks[i].func[0]] = true;
	while (fgets(line, sizeof(line), f)) {
		char type;
		int got;

		mod[0] = '\0';
		got = sscanf(line, "%*s %c %255s [%63[^]]]", &type, name, mod);
		if (got < 2 || (type != 't' && type != 'T') ||
		    !first[(unsigned char)name[0]])
			continue;
		for (int i = 0; i < n; i++) {
			if (strcmp(name, hooks[i].func))
				continue;
			total[i]++;
			if (!strcmp(mod, MOD))
				amdgpu[i]++;
		}
	}
}

static void read_kallsyms(struct gp_attach *a)
{
	FILE *f;

	if (a->kallsyms_read)
		return;
	a->kallsyms_read = true;
	f = fopen(a->kallsyms_path ? a->kallsyms_path : "/proc/kallsyms",
		  "re");
	if (!f)
		return;
	gp_kallsyms_scan(f, gp_hooks, gp_nhooks, a->ksym_total,
			 a->ksym_amdgpu);
	fclose(f);
}

/* The fd of amdgpu's BTF object in the kernel (for trial loads). */
static int module_btf_fd(void)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		int fd;

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) &&
		    !strcmp(name, MOD))
			return fd;
		close(fd);
	}
	return -1;
}

/* Would the kernel accept an fentry program on this function? */
static int fentry_trial(struct gp_attach *a, int btf_id)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = a->mod_btf_fd);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gp_trial", "GPL", insns, 2,
			   &o);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void plan_kprobe(struct gp_attach *a, int i, const char *why)
{
	struct gp_plan *p = &a->plan[i];
	const char *fn = gp_hooks[i].func;

	read_kallsyms(a);
	if (!a->ksym_amdgpu[i]) {
		p->how = GP_HOW_ABSENT;
		p->why = gp_hooks[i].flags & GP_HOOK_DEBUG ?
			 "not in this kernel (KFD debug API needs 6.5+)" :
			 "not in this kernel";
		return;
	}
	p->how = GP_HOW_KPROBE;
	p->why = why;
	/* Another symbol of that name elsewhere: qualify with the module. */
	if (a->ksym_total[i] > 1)
		snprintf(p->target, sizeof(p->target), "%s:%s", MOD, fn);
	else
		snprintf(p->target, sizeof(p->target), "%s", fn);
}

void gp_plan_refused(struct gp_attach *a, int i, int err)
{
	struct gp_plan *p = &a->plan[i];

	snprintf(p->why_buf, sizeof(p->why_buf),
		 "fentry refused by the kernel: %s", strerror(-err));
	plan_kprobe(a, i, p->why_buf);
}

int gp_attach_plan(struct gp_attach *a, bool force_kprobes, bool reduced)
{
	const char *ksyms = a->kallsyms_path;
	int trial_err = 0;

	memset(a, 0, sizeof(*a));
	a->kallsyms_path = ksyms;
	a->mod_btf_fd = -1;
	a->force_kprobes = force_kprobes;
	a->reduced_forced = reduced;
	a->amdgpu_loaded = access(MOD_BTF, F_OK) == 0;
	if (!a->amdgpu_loaded) {
		FILE *f = fopen("/proc/modules", "re");
		char line[256];

		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, MOD " ", sizeof(MOD)))
				a->amdgpu_loaded = true;
		if (f)
			fclose(f);
	}
	a->vmlinux_btf = btf__load_vmlinux_btf();
	if (a->vmlinux_btf && !access(MOD_BTF, R_OK))
		a->mod_btf = btf__parse_split(MOD_BTF, a->vmlinux_btf);
	a->module_btf = a->mod_btf != NULL;
	a->reduced = reduced || !a->module_btf;
	if (a->module_btf && !a->reduced && !force_kprobes)
		a->mod_btf_fd = module_btf_fd();

	for (int i = 0; i < gp_nhooks; i++) {
		const struct gp_hook *h = &gp_hooks[i];
		struct gp_plan *p = &a->plan[i];
		int id = -1;

		if (a->reduced) {
			if (!(h->flags & GP_HOOK_REDUCED)) {
				p->how = GP_HOW_ABSENT;
				p->why = "skipped in reduced mode (needs "
					 "amdgpu BTF)";
				continue;
			}
			plan_kprobe(a, i, a->reduced_forced ?
				    "reduced mode (--reduced)" :
				    "reduced mode (no amdgpu module BTF)");
			continue;
		}
		id = btf__find_by_name_kind(a->mod_btf, h->func, BTF_KIND_FUNC);
		if (id <= 0) {
			/* Module BTF lists every out-of-line function. */
			p->how = GP_HOW_ABSENT;
			p->why = h->flags & GP_HOOK_DEBUG ?
				 "not in this kernel (KFD debug API needs "
				 "6.5+)" : "not in this kernel";
			continue;
		}
		if (force_kprobes) {
			plan_kprobe(a, i, "kprobes forced (--kprobes)");
			continue;
		}
		trial_err = a->mod_btf_fd < 0 ? -ENOENT :
			    fentry_trial(a, id);
		if (trial_err) {
			gp_plan_refused(a, i, trial_err);
			continue;
		}
		/*
		 * libbpf 1.4 resolves fentry targets by bare name, vmlinux
		 * first: a vmlinux function of the same name would win, so
		 * such a hook takes a module-qualified kprobe instead.
		 */
		if (btf__find_by_name_kind(a->vmlinux_btf, h->func,
					   BTF_KIND_FUNC) > 0) {
			plan_kprobe(a, i, "name also in vmlinux: fentry "
				    "cannot name the module");
			continue;
		}
		p->how = GP_HOW_FENTRY;
		snprintf(p->target, sizeof(p->target), "%s", h->func);
	}
	return 0;
}

void gp_attach_demote(struct gp_attach *a, const char *why)
{
	for (int i = 0; i < gp_nhooks; i++)
		if (a->plan[i].how == GP_HOW_FENTRY)
			plan_kprobe(a, i, why);
}

static struct bpf_program *prog(struct bpf_object *obj, const char *pfx,
				const char *stem)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", pfx, stem);
	return bpf_object__find_program_by_name(obj, name);
}

/* The entry and return program names of hook i under its plan. */
static void prefixes(const struct gp_attach *a, int i, const char **in,
		     const char **out)
{
	if (a->plan[i].how == GP_HOW_FENTRY) {
		*in = "fe_";
		*out = "fx_";
	} else {		/* kprobes, and the reduced mode */
		*in = "kp_";
		*out = "kr_";
	}
}

void gp_attach_prepare(struct gp_attach *a, struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p),
						     "tp_exit"));
	for (int i = 0; i < gp_nhooks; i++) {
		const struct gp_hook *h = &gp_hooks[i];
		struct bpf_program *pi, *po = NULL;
		const char *in, *out;

		if (a->plan[i].how == GP_HOW_ABSENT)
			continue;
		prefixes(a, i, &in, &out);
		pi = prog(obj, in, h->stem);
		if (h->flags & GP_HOOK_RET)
			po = prog(obj, out, h->stem);
		if (!pi || ((h->flags & GP_HOOK_RET) && !po)) {
			a->plan[i].how = GP_HOW_ABSENT;
			a->plan[i].why = "no program for it in the object";
			continue;
		}
		bpf_program__set_autoload(pi, true);
		if (po)
			bpf_program__set_autoload(po, true);
		if (a->plan[i].how == GP_HOW_FENTRY) {
			bpf_program__set_attach_target(pi, 0, a->plan[i].target);
			if (po)
				bpf_program__set_attach_target(po, 0,
							a->plan[i].target);
		}
	}
}

static struct bpf_link *attach_one(struct gp_attach *a, int i,
				   struct bpf_program *p, bool ret)
{
	if (a->plan[i].how == GP_HOW_FENTRY)
		return bpf_program__attach(p);
	return bpf_program__attach_kprobe(p, ret, a->plan[i].target);
}

int gp_attach_links(struct gp_attach *a, struct bpf_object *obj)
{
	struct bpf_program *p;
	struct bpf_link *l;

	for (int i = 0; i < gp_nhooks; i++) {
		const struct gp_hook *h = &gp_hooks[i];
		struct gp_plan *pl = &a->plan[i];
		const char *in, *out;
		int n = 0, want;

		if (pl->how == GP_HOW_ABSENT)
			continue;
		prefixes(a, i, &in, &out);
		want = h->flags & GP_HOOK_RET ? 2 : 1;
		for (int k = 0; k < want; k++) {
			p = prog(obj, k ? out : in, h->stem);
			l = p ? attach_one(a, i, p, k) : NULL;
			if (!l) {
				pl->err = -errno;
				break;
			}
			a->links[a->nlinks++] = l;
			n++;
		}
		pl->attached = n == want;
		if (pl->attached)
			a->attached++;
	}
	p = bpf_object__find_program_by_name(obj, "tp_exit");
	l = p ? bpf_program__attach(p) : NULL;
	if (l) {
		a->links[a->nlinks++] = l;
		a->exit_attached = true;
	}
	return a->attached;
}

void gp_attach_report(const struct gp_attach *a, FILE *f, bool json,
		      bool after_attach)
{
	struct json j;

	if (json) {
		json_begin(&j, f);
		json_str(&j, "type", "probes");
		json_bool(&j, "amdgpu_loaded", a->amdgpu_loaded);
		json_bool(&j, "module_btf", a->module_btf);
		json_str(&j, "mode", a->reduced ? "reduced" : "full");
		json_bool(&j, "kprobes_forced", a->force_kprobes);
		if (after_attach) {
			json_u64(&j, "attached", a->attached);
			json_bool(&j, "exit_cleanup", a->exit_attached);
		}
		json_end(&j);
		for (int i = 0; i < gp_nhooks; i++) {
			const struct gp_plan *p = &a->plan[i];

			json_begin(&j, f);
			json_str(&j, "type", "hook");
			json_str(&j, "func", gp_hooks[i].func);
			json_str(&j, "how", gp_how_name(p->how));
			if (p->how != GP_HOW_ABSENT)
				json_str(&j, "target", p->target);
			if (p->why)
				json_str(&j, "why", p->why);
			if (after_attach && p->how != GP_HOW_ABSENT) {
				json_bool(&j, "attached", p->attached);
				if (!p->attached)
					json_s64(&j, "errno", -p->err);
			}
			json_end(&j);
		}
		return;
	}
	fprintf(f, "amdgpu module: %s; module BTF: %s; mode: %s\n",
		a->amdgpu_loaded ? "loaded" : "not loaded",
		a->module_btf ? "yes" : "no",
		a->reduced ? (a->reduced_forced ?
			      "reduced (UAPI arguments only, --reduced)" :
			      "reduced (UAPI arguments only: no amdgpu BTF)")
			   : "full (CO-RE)");
	for (int i = 0; i < gp_nhooks; i++) {
		const struct gp_plan *p = &a->plan[i];

		fprintf(f, "  %-31s %-7s", gp_hooks[i].func,
			gp_how_name(p->how));
		if (after_attach && p->how != GP_HOW_ABSENT)
			fprintf(f, p->attached ? " attached" : " FAILED: %s",
				strerror(-p->err));
		if (p->why)
			fprintf(f, "%s%s", after_attach &&
				p->how != GP_HOW_ABSENT ? ": " : " ", p->why);
		fputc('\n', f);
	}
}

void gp_attach_fini(struct gp_attach *a)
{
	for (int i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	a->nlinks = 0;
	btf__free(a->mod_btf);
	btf__free(a->vmlinux_btf);
	if (a->mod_btf_fd >= 0)
		close(a->mod_btf_fd);
	a->mod_btf = a->vmlinux_btf = NULL;
	a->mod_btf_fd = -1;
}

/* Skipped hooks: see attach.h. */
void gp_attach_say_skipped(const struct gp_attach *a, FILE *f)
{
	for (int i = 0; i < gp_nhooks; i++) {
		const struct gp_plan *p = &a->plan[i];

		/* reduced mode: one notice for all of them, printed later */
		if (a->reduced && !(gp_hooks[i].flags & GP_HOOK_REDUCED))
			continue;
		if (p->how == GP_HOW_ABSENT &&
		    !(gp_hooks[i].flags & GP_HOOK_HW))
			fprintf(f, "gpreempt-trace: %s: %s, skipped\n",
				gp_hooks[i].func, p->why);
		else if (p->how != GP_HOW_ABSENT && !p->attached)
			fprintf(f, "gpreempt-trace: %s: attach failed: "
				"%s\n", gp_hooks[i].func, strerror(-p->err));
	}
}
