// SPDX-License-Identifier: GPL-2.0
/* L0: arbiter selectors and classifier; gp_proc_describe on /proc/self
 * (real) and on a written /proc-like tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "proc_desc.h"
#include "select.h"

static char err[512];

static struct gp_proc_desc desc(int pid, uid_t uid, const char *comm,
				const char *cmd, const char *cg)
{
	struct gp_proc_desc d = { .pid = pid, .uid = uid };

	snprintf(d.comm, sizeof(d.comm), "%s", comm);
	snprintf(d.cmdline, sizeof(d.cmdline), "%s", cmd);
	snprintf(d.cgroup, sizeof(d.cgroup), "%s", cg);
	return d;
}

static int parse_err(const char *s)
{
	struct gp_sel sel;

	err[0] = 0;
	return gp_sel_parse(s, &sel, err, sizeof(err));
}

TEST(parse_errors_are_clear)
{
	CHECK(parse_err("name=x") == -EINVAL);
	CHECK_STR(err, "unknown selector 'name=x': use pid=N, comm=NAME, "
		  "cmdline=SUBSTRING, cgroup=PATH or uid=N");
	CHECK(parse_err("python3") == -EINVAL);
	CHECK(strstr(err, "unknown selector 'python3'"));
	CHECK(parse_err("pid=0") == -EINVAL);
	CHECK_STR(err, "selector 'pid=0': not a pid");
	CHECK(parse_err("pid=12x") == -EINVAL);
	CHECK(parse_err("uid=-1") == -EINVAL);
	CHECK_STR(err, "selector 'uid=-1': not a uid");
	CHECK(parse_err("comm=") == -EINVAL);
	CHECK_STR(err, "selector 'comm=' has an empty value");
	CHECK(parse_err("comm=a_very_long_name") == -EINVAL);
	CHECK(strstr(err, "at most 15 characters"));
	CHECK(parse_err("cgroup=kubepods") == -EINVAL);
	CHECK(strstr(err, "starts with '/'"));
	CHECK(parse_err("pid=42") == 0);
	CHECK(parse_err("cmdline=serve.py --port 80") == 0);
	CHECK(parse_err("uid=0") == 0);
}

TEST(match_each_kind)
{
	struct gp_proc_desc d = desc(42, 1000, "python3",
				     "python3 train.py --epochs 3",
				     "/kubepods/pod1/ctr");
	struct gp_sel s;

	gp_sel_parse("pid=42", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("pid=43", &s, err, sizeof(err));
	CHECK(!gp_sel_match(&s, &d));
	gp_sel_parse("comm=python3", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("comm=python", &s, err, sizeof(err));
	CHECK(!gp_sel_match(&s, &d));		/* exact, not prefix */
	gp_sel_parse("cmdline=train.py", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("cmdline=serve.py", &s, err, sizeof(err));
	CHECK(!gp_sel_match(&s, &d));
	gp_sel_parse("uid=1000", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("uid=0", &s, err, sizeof(err));
	CHECK(!gp_sel_match(&s, &d));
}

TEST(cgroup_prefix_whole_components)
{
	struct gp_proc_desc d = desc(1, 0, "x", "", "/kubepods/pod12/ctr");
	struct gp_sel s;

	gp_sel_parse("cgroup=/kubepods/pod12", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("cgroup=/kubepods/pod12/", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	gp_sel_parse("cgroup=/kubepods/pod1", &s, err, sizeof(err));
	CHECK(!gp_sel_match(&s, &d));
	gp_sel_parse("cgroup=/", &s, err, sizeof(err));
	CHECK(gp_sel_match(&s, &d));
	d.cgroup[0] = 0;			/* v1-only host */
	CHECK(!gp_sel_match(&s, &d));
}

TEST(classify_online_offline_none)
{
	struct gp_classifier c = { 0 };
	struct gp_proc_desc srv = desc(10, 1000, "python3",
				       "python3 serve.py", "/");
	struct gp_proc_desc trn = desc(11, 1000, "python3",
				       "python3 train.py", "/");
	struct gp_proc_desc other = desc(12, 0, "bash", "bash", "/");
	enum gp_pclass cls;

	CHECK(gp_classifier_add(&c, GP_CLASS_ONLINE, "cmdline=serve.py",
				err, sizeof(err)) == 0);
	CHECK(gp_classifier_add(&c, GP_CLASS_OFFLINE, "cmdline=train.py",
				err, sizeof(err)) == 0);
	CHECK(gp_classify(&c, &srv, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_ONLINE);
	CHECK(gp_classify(&c, &trn, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_OFFLINE);
	CHECK(gp_classify(&c, &other, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_NONE);
	/* A bad selector adds nothing. */
	CHECK(gp_classifier_add(&c, GP_CLASS_OFFLINE, "bogus", err,
				sizeof(err)) == -EINVAL);
	CHECK(c.n_offline == 1);
}

TEST(classify_conflict_names_both)
{
	struct gp_classifier c = { 0 };
	struct gp_proc_desc d = desc(11, 1000, "python3", "python3 train.py",
				     "/");
	enum gp_pclass cls = GP_CLASS_NONE;

	gp_classifier_add(&c, GP_CLASS_ONLINE, "uid=1000", err, sizeof(err));
	gp_classifier_add(&c, GP_CLASS_OFFLINE, "comm=python3", err,
			  sizeof(err));
	CHECK(gp_classify(&c, &d, &cls, err, sizeof(err)) == -EEXIST);
	CHECK_STR(err, "pid 11 (python3) matches both --online uid=1000 and "
		  "--offline comm=python3: make the selectors disjoint or "
		  "classify it by pid");
	/* A run-time class settles it, "none" included. */
	CHECK(gp_classifier_set(&c, &d, GP_CLASS_OFFLINE, false) == 0);
	CHECK(gp_classify(&c, &d, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_OFFLINE);
	gp_classifier_set(&c, &d, GP_CLASS_NONE, false);
	CHECK(gp_classify(&c, &d, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_NONE);
	CHECK(c.n_over == 1);
	gp_classifier_forget(&c, 11);
	CHECK(gp_classify(&c, &d, &cls, err, sizeof(err)) == -EEXIST);
}

TEST(selector_conditions_all_hold)
{
	struct gp_proc_desc a = desc(20, 1001, "python3", "python3 serve.py",
				     "/kubepods/pod1/c1");
	struct gp_proc_desc b = desc(21, 1002, "python3", "python3 serve.py",
				     "/kubepods/pod2/c1");
	struct gp_sel s;

	CHECK(gp_sel_parse("uid=1001,cmdline=serve.py", &s, err,
			   sizeof(err)) == 0);
	CHECK(s.n == 2 && !s.spoofable);
	CHECK(gp_sel_match(&s, &a));
	CHECK(!gp_sel_match(&s, &b));	/* the same argv, another uid */
	CHECK(gp_sel_parse("cgroup=/kubepods/pod2,comm=python3", &s, err,
			   sizeof(err)) == 0);
	CHECK(!gp_sel_match(&s, &a) && gp_sel_match(&s, &b));
	/* what the process controls, and only that: spoofable */
	CHECK(gp_sel_parse("comm=python3,cmdline=serve.py", &s, err,
			   sizeof(err)) == 0);
	CHECK(s.spoofable);
	CHECK(gp_sel_parse("cmdline=serve.py", &s, err, sizeof(err)) == 0);
	CHECK(s.spoofable);
	CHECK(gp_sel_parse("pid=7", &s, err, sizeof(err)) == 0);
	CHECK(!s.spoofable);
	/* each condition is checked; empty ones and too many refused */
	CHECK(parse_err("uid=1001,bogus=1") == -EINVAL);
	CHECK(parse_err("uid=1001,uid=") == -EINVAL);
	CHECK(parse_err(",") == -EINVAL);
	CHECK(parse_err("uid=1,uid=2,uid=3,uid=4,uid=5") == -EINVAL);
}

TEST(classify_spoofed_online_stays_offline)
{
	struct gp_classifier c = { 0 };
	/* an offline job (uid 1001) that put the online string in its argv */
	struct gp_proc_desc job = desc(30, 1001, "python3",
				       "python3 train.py # serve.py", "/");
	struct gp_proc_desc srv = desc(31, 1002, "python3",
				       "python3 serve.py", "/");
	enum gp_pclass cls;

	gp_classifier_add(&c, GP_CLASS_ONLINE, "cmdline=serve.py", err,
			  sizeof(err));
	gp_classifier_add(&c, GP_CLASS_OFFLINE, "uid=1001", err, sizeof(err));
	CHECK(gp_classifier_spoofable(&c, GP_CLASS_ONLINE) == &c.online[0]);
	CHECK(gp_classifier_spoofable(&c, GP_CLASS_OFFLINE) == NULL);
	CHECK(gp_classify(&c, &job, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_OFFLINE);
	CHECK(gp_classify(&c, &srv, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_ONLINE);
	/* online by a condition it does not control: still a conflict */
	gp_classifier_add(&c, GP_CLASS_ONLINE, "uid=1001,cmdline=serve.py",
			  err, sizeof(err));
	CHECK(gp_classify(&c, &job, &cls, err, sizeof(err)) == -EEXIST);
}

TEST(runtime_class_is_the_process_not_the_pid)
{
	struct gp_classifier c = { 0 };
	struct gp_proc_desc d = desc(40, 1001, "srv", "srv", "/");
	struct gp_proc_desc reused = d;
	enum gp_pclass cls;
	int i;

	d.start = 1000;
	reused.start = 2000;	/* the pid, reused by another process */
	CHECK(gp_classifier_set(&c, &d, GP_CLASS_ONLINE, true) == 0);
	CHECK(gp_classify(&c, &d, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_ONLINE);
	CHECK(gp_classify(&c, &reused, &cls, err, sizeof(err)) == 0);
	CHECK(cls == GP_CLASS_NONE);
	/* classifying the new process replaces the old one's entry */
	CHECK(gp_classifier_set(&c, &reused, GP_CLASS_OFFLINE, true) == 0);
	CHECK(c.n_over == 1);
	/* bounded per owner: 16 of uid 1001's processes, not the table */
	for (i = 1; i < GP_OVERRIDE_PER_UID; i++) {
		d.pid = 100 + i;
		CHECK(gp_classifier_set(&c, &d, GP_CLASS_ONLINE, true) == 0);
	}
	d.pid = 99;
	CHECK(gp_classifier_set(&c, &d, GP_CLASS_ONLINE, true) == -EDQUOT);
	d.uid = 1002;
	CHECK(gp_classifier_set(&c, &d, GP_CLASS_ONLINE, true) == 0);
	/* unbounded (root's request) up to the table */
	d.uid = 1001;
	d.pid = 98;
	CHECK(gp_classifier_set(&c, &d, GP_CLASS_ONLINE, false) == 0);
}

TEST(class_names)
{
	enum gp_pclass c;

	CHECK(gp_pclass_parse("online", &c) == 0 && c == GP_CLASS_ONLINE);
	CHECK(gp_pclass_parse("offline", &c) == 0 && c == GP_CLASS_OFFLINE);
	CHECK(gp_pclass_parse("none", &c) == 0 && c == GP_CLASS_NONE);
	CHECK(gp_pclass_parse("Online", &c) == -EINVAL);
	CHECK_STR(gp_pclass_name(GP_CLASS_OFFLINE), "offline");
}

static void put(const char *dir, const char *name, const char *data,
		size_t n)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fwrite(data, 1, n, f);
	fclose(f);
}

TEST(describe_written_tree)
{
	char root[] = "/tmp/gp-proc-XXXXXX", dir[600], cmd[600];
	static const char cmdline[] = "python3\0train.py\0--lr\0";
	static const char cgroup[] = "12:cpu:/legacy\n0::/kubepods/pod7/c1\n";
	static const char status[] = "Name:\tpython3\nUmask:\t0022\n"
				     "Uid:\t1001\t0\t0\t0\nGid:\t5\n";
	static const char stat[] = "4242 (py) 3 (x) S 1 4242 4242 0 -1 "
				   "4194560 10 0 0 0 5 6 0 0 20 0 1 0 "
				   "123456789 1000 10 18446744073709551615\n";
	struct gp_proc_desc d;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/4242", root);
	mkdir(dir, 0700);
	put(dir, "status", status, sizeof(status) - 1);
	put(dir, "comm", "python3\n", 8);
	put(dir, "cmdline", cmdline, sizeof(cmdline) - 1);
	put(dir, "cgroup", cgroup, sizeof(cgroup) - 1);
	/* the comm may hold ") " itself: fields count from the last ")" */
	put(dir, "stat", stat, sizeof(stat) - 1);
	CHECK(gp_proc_describe(root, 4242, &d) == 0);
	CHECK(d.start == 123456789ULL);
	CHECK(d.pid == 4242 && d.uid == 1001);	/* the real uid */
	CHECK_STR(d.comm, "python3");
	CHECK_STR(d.cmdline, "python3 train.py --lr");
	CHECK_STR(d.cgroup, "/kubepods/pod7/c1");
	CHECK(gp_proc_describe(root, 4243, &d) == -ESRCH);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

TEST(describe_self)
{
	struct gp_proc_desc d;

	CHECK(gp_proc_describe("/proc", getpid(), &d) == 0);
	CHECK(d.uid == getuid());
	CHECK(strstr(d.cmdline, "test_policy_select") != NULL);
	CHECK_STR(d.comm, "test_policy_sel");	/* cut to 15 */
}

int main(void)
{
	RUN(parse_errors_are_clear);
	RUN(match_each_kind);
	RUN(cgroup_prefix_whole_components);
	RUN(classify_online_offline_none);
	RUN(classify_conflict_names_both);
	RUN(selector_conditions_all_hold);
	RUN(classify_spoofed_online_stays_offline);
	RUN(runtime_class_is_the_process_not_the_pid);
	RUN(class_names);
	RUN(describe_written_tree);
	RUN(describe_self);
	return tap_done();
}
