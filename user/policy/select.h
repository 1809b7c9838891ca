/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process selectors for the arbiter's classes (--online SEL, --offline
 * SEL) and the classifier over a process description.
 *   pid=N            that process
 *   comm=NAME        /proc/PID/comm, exact (the kernel cuts it to 15)
 *   cmdline=SUBSTR   /proc/PID/cmdline, arguments joined by spaces:
 *                    inference and training are both often "python3"
 *   cgroup=PATH      cgroup v2 path prefix, whole components: a
 *                    container or a Kubernetes pod
 *   uid=N            the real uid
 * Conditions joined by commas must all hold: "uid=1001,cmdline=serve.py".
 * comm and cmdline are the process's own to choose (prctl, argv): a
 * selector made of them only is "spoofable" (docs/reliability.md); a
 * process an online selector matches only that way and an offline one
 * matches too is offline.
 * Run-time overrides (the socket's "classify pid=N class=...") win over
 * selectors, "none" included.
 */
#ifndef GP_SELECT_H
#define GP_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "policy.h"

#define GP_SEL_MAX 32
#define GP_SEL_STR 256
#define GP_OVERRIDE_MAX 64

enum gp_sel_kind { GP_SEL_PID, GP_SEL_COMM, GP_SEL_CMDLINE, GP_SEL_CGROUP,
		   GP_SEL_UID };

/* One condition of a selector. */
struct gp_cond {
	enum gp_sel_kind kind;
	long num;		/* pid or uid */
	char str[GP_SEL_STR];	/* comm, substring, cgroup path */
};

/* A selector: conditions that must all hold ("uid=1001,cmdline=x"). */
#define GP_SEL_CONDS 4
struct gp_sel {
	int n;
	struct gp_cond c[GP_SEL_CONDS];
	bool spoofable;		/* only conditions the process controls */
	char spec[GP_SEL_STR + 16];	/* as written, for messages */
};

struct gp_proc_desc {
	int pid;
	uid_t uid;
	char comm[16];
	char cmdline[1024];	/* NULs turned into spaces, cut */
	char cgroup[512];	/* the v2 ("0::") path */
	uint64_t start;		/* start time (/proc/PID/stat field 22):
				 * with pid, names one process */
};

struct gp_classifier {
	int n_online, n_offline, n_over;
	struct gp_sel online[GP_SEL_MAX], offline[GP_SEL_MAX];
	struct {
		int pid;
		uint64_t start;	/* a reused pid is another process */
		uid_t uid;	/* its owner: the per-uid bound */
		enum gp_pclass cls;
	} over[GP_OVERRIDE_MAX];
};

/* Run-time classes one non-root owner's processes may have at once. */
#define GP_OVERRIDE_PER_UID 16

/* "comm=python3" -> sel. 0, or -EINVAL with the reason in err. */
int gp_sel_parse(const char *s, struct gp_sel *sel, char *err, size_t len);
bool gp_sel_match(const struct gp_sel *sel, const struct gp_proc_desc *d);

/* Adds a selector to a class. 0 or -EINVAL/-ENOSPC with err. */
int gp_classifier_add(struct gp_classifier *c, enum gp_pclass cls,
		      const char *spec, char *err, size_t len);
/*
 * Run-time class for the process d describes (overrides selectors). 0,
 * or -ENOSPC (table full) / -EDQUOT (bounded: GP_OVERRIDE_PER_UID of its
 * owner's processes have one).
 */
int gp_classifier_set(struct gp_classifier *c, const struct gp_proc_desc *d,
		      enum gp_pclass cls, bool bounded);
/* The first spoofable selector of class cls, or NULL. */
const struct gp_sel *gp_classifier_spoofable(const struct gp_classifier *c,
					     enum gp_pclass cls);
void gp_classifier_forget(struct gp_classifier *c, int pid);
/*
 * The class of a process: 0 and *cls, or -EEXIST when it matches both an
 * online and an offline selector; err then names both.
 */
int gp_classify(const struct gp_classifier *c, const struct gp_proc_desc *d,
		enum gp_pclass *cls, char *err, size_t len);

/* "online", "offline", "none"; parse returns -EINVAL on anything else. */
const char *gp_pclass_name(enum gp_pclass c);
int gp_pclass_parse(const char *s, enum gp_pclass *c);

#endif
