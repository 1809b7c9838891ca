/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which KFD hook attaches how on this kernel: fentry/fexit when amdgpu has
 * module BTF and the kernel accepts a trampoline on the function, else
 * kprobe/kretprobe when the symbol is in kallsyms, else absent (skipped,
 * with one line saying why). Reduced mode uses only the UAPI-only kprobe
 * set. The probe object names its programs fe_/fx_/kp_/kr_<stem>; in reduced mode
 * only the ioctl hooks' kp_/kr_ programs, which need no amdgpu BTF.
 *
 *	gp_attach_plan(&a, force_kprobes, reduced);	before open
 *	gp_attach_prepare(&a, obj);			after open
 *	(load)
 *	gp_attach_links(&a, obj);			after load
 *	gp_attach_report(&a, stderr, false);
 *	gp_attach_fini(&a);
 */
#ifndef GP_ATTACH_H
#define GP_ATTACH_H

#include <stdbool.h>
#include <stdio.h>

struct bpf_object;
struct bpf_link;
struct btf;

#define GP_HOOK_RET	(1U << 0)	/* has a return probe */
#define GP_HOOK_REDUCED	(1U << 1)	/* has a reduced-mode variant */
#define GP_HOOK_DEBUG	(1U << 2)	/* KFD debug API (6.5+) */
#define GP_HOOK_HW	(1U << 3)	/* HWS/MES step: absent is normal */

struct gp_hook {
	const char *func;	/* kernel function in amdgpu */
	const char *stem;	/* program names: fe_<stem>, kp_<stem>, ... */
	unsigned int flags;
};

extern const struct gp_hook gp_hooks[];
extern const int gp_nhooks;

enum gp_how {
	GP_HOW_ABSENT = 0,	/* not on this kernel, or skipped */
	GP_HOW_FENTRY,
	GP_HOW_KPROBE,
};

struct gp_plan {
	enum gp_how how;
	char target[96];	/* what is attached: "func" or "amdgpu:func" */
	const char *why;	/* why absent, or why kprobe and not fentry */
	bool attached;		/* all its programs attached */
	int err;		/* attach error, if not */
	char why_buf[96];	/* this hook's own reason, when built */
};

struct gp_attach {
	bool module_btf;	/* /sys/kernel/btf/amdgpu readable */
	bool amdgpu_loaded;	/* amdgpu in /proc/modules */
	bool reduced;		/* UAPI-only programs */
	bool reduced_forced;
	bool force_kprobes;
	bool kallsyms_read;
	const char *kallsyms_path;	/* NULL: /proc/kallsyms (tests set it,
					 * before gp_attach_plan) */
	int ksym_total[32];	/* per hook: symbols of that name */
	int ksym_amdgpu[32];	/* ... of them in amdgpu */
	bool exit_attached;	/* sched_process_exit cleanup */
	int fentry_load_err;	/* the fentry load failed (-errno) and every
				 * hook was demoted to a kprobe; 0: no */
	struct btf *vmlinux_btf;
	struct btf *mod_btf;
	int mod_btf_fd;		/* for the fentry probe loads */
	struct gp_plan plan[32];
	struct bpf_link *links[80];
	int nlinks;
	int attached;		/* hooks fully attached */
};

/*
 * Looks at the kernel (BTF, kallsyms once, trial fentry loads). libbpf >=
 * 1.0 returns NULL (never an ERR_PTR) when BTF cannot be read.
 */
int gp_attach_plan(struct gp_attach *a, bool force_kprobes, bool reduced);
/* Autoload and attach targets of every program, before load. */
void gp_attach_prepare(struct gp_attach *a, struct bpf_object *obj);
/* Attaches what the plan kept; returns the number of hooks attached. */
int gp_attach_links(struct gp_attach *a, struct bpf_object *obj);
/* Turns every fentry hook into a kprobe one (the fentry load failed). */
void gp_attach_demote(struct gp_attach *a, const char *why);
/* One line per hook; JSON: one object per hook. */
/* Skipped hooks, one line each, to f (not in JSON mode: --check has
 * them); in reduced mode only the reduced-mode hooks (one notice covers
 * the others). */
void gp_attach_say_skipped(const struct gp_attach *a, FILE *f);
void gp_attach_report(const struct gp_attach *a, FILE *f, bool json,
		      bool after_attach);
const char *gp_how_name(enum gp_how how);
/* Hook i takes a kprobe because its fentry trial load failed with err. */
void gp_plan_refused(struct gp_attach *a, int i, int err);
/* Count each hook's name among f's text symbols (kallsyms format), and
 * those of them in amdgpu; total and amdgpu have n entries. */
void gp_kallsyms_scan(FILE *f, const struct gp_hook *hooks, int n,
		      int *total, int *amdgpu);
void gp_attach_fini(struct gp_attach *a);

#endif
