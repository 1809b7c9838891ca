// SPDX-License-Identifier: GPL-2.0
/* Pod attribution from a cgroup v2 path: see podcg.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "podcg.h"

#define COMP_MAX 256	/* a cgroup name is a file name: NAME_MAX */
#define PATH_MAX_ 4096
#define CID_LEN 64

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A pod UID of 36 characters at s, with sep ('-' or '_') between its
 * 8-4-4-4-12 hex groups: copied to out with dashes. */
static bool uid_of(const char *s, size_t n, char sep, char *out)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !is_hex(s + i, 1))
			return false;
		out[i] = dash ? '-' : s[i];
	}
	out[36] = 0;
	return true;
}

static bool starts(const char *s, size_t n, const char *pre)
{
	size_t l = strlen(pre);

	return n >= l && !memcmp(s, pre, l);
}

static bool ends(const char *s, size_t n, const char *suf)
{
	size_t l = strlen(suf);

	return n >= l && !memcmp(s + n - l, suf, l);
}

/* The container leaf: [runtime-]<64 hex>[.scope]. */
static int leaf(const char *s, size_t n, bool systemd, struct pod_ref *p)
{
	static const struct { const char *pre, *rt; } rts[] = {
		{ "cri-containerd-", "containerd" }, { "docker-", "docker" },
		{ "crio-", "crio" },
	};
	const char *rt = systemd ? NULL : "";

	if (systemd) {
		if (!ends(s, n, ".scope"))
			return -1;
		n -= strlen(".scope");
		/* CRI-O's monitor, not a container's process */
		if (starts(s, n, "crio-conmon-") &&
		    n == strlen("crio-conmon-") + CID_LEN)
			return 0;
	}
	for (size_t i = 0; i < sizeof(rts) / sizeof(rts[0]); i++)
		if (starts(s, n, rts[i].pre)) {
			rt = rts[i].rt;
			s += strlen(rts[i].pre);
			n -= strlen(rts[i].pre);
			break;
		}
	if (!rt || n != CID_LEN || !is_hex(s, n))
		return -1;
	memcpy(p->container, s, n);
	p->container[n] = 0;
	snprintf(p->runtime, sizeof(p->runtime), "%s", rt);
	return 0;
}

static int bad(struct gp_err *e, struct pod_ref *p, const char *path,
	       const char *why)
{
	memset(p, 0, sizeof(*p));
	return gp_err_set(e, GP_EXIT_USAGE, 0, "cgroup path '%.200s': %s",
			  path, why);
}

int pod_parse_cgroup(const char *path, struct pod_ref *p, struct gp_err *e)
{
	const char *c[PATH_MAX_ / 2], *s;
	size_t len[PATH_MAX_ / 2], n = 0, i, root;
	char rootname[COMP_MAX], want[COMP_MAX + 32];
	bool systemd;

	memset(p, 0, sizeof(*p));
	if (!path || path[0] != '/')
		return bad(e, p, path ? path : "", "not an absolute cgroup "
			   "path (the part after '0::' in /proc/PID/cgroup)");
	if (strnlen(path, PATH_MAX_) == PATH_MAX_)
		return bad(e, p, path, "longer than PATH_MAX");
	for (s = path + 1; *s; ) {
		const char *slash = strchr(s, '/');
		size_t l = slash ? (size_t)(slash - s) : strlen(s);

		if (!l || l >= COMP_MAX)
			return bad(e, p, path, l ? "a component longer than "
				   "NAME_MAX" : "an empty component ('//' or "
				   "a trailing '/')");
		c[n] = s;
		len[n++] = l;
		s += l + (slash ? 1 : 0);
		if (slash && !*s)
			return bad(e, p, path, "an empty component ('//' or "
				   "a trailing '/')");
	}
	/* the kubepods root: "kubepods", or a slice ending "kubepods.slice" */
	for (root = 0; root < n; root++)
		if ((len[root] == 8 && !memcmp(c[root], "kubepods", 8)) ||
		    (ends(c[root], len[root], "kubepods.slice") &&
		     (len[root] == 14 || c[root][len[root] - 15] == '-')))
			break;
	if (root == n)
		return 0;		/* not under kubepods: no pod */
	systemd = c[root][len[root] - 1] == 'e';	/* ".slice" */
	i = root + 1;
	if (i == n)
		return 0;		/* the root itself */
	memcpy(rootname, c[root], len[root] - (systemd ? 6 : 0));
	rootname[len[root] - (systemd ? 6 : 0)] = 0;
	p->qos = POD_QOS_GUARANTEED;
	for (int q = POD_QOS_BURSTABLE; q <= POD_QOS_BESTEFFORT; q++) {
		if (systemd)
			snprintf(want, sizeof(want), "%s-%s.slice", rootname,
				 pod_qos_name(q));
		else
			snprintf(want, sizeof(want), "%s", pod_qos_name(q));
		if (len[i] == strlen(want) && !memcmp(c[i], want, len[i])) {
			p->qos = q;
			i++;
			break;
		}
	}
	if (i == n) {			/* a QoS-level cgroup: no pod */
		p->qos = 0;
		return 0;
	}
	/* the pod */
	if (systemd)
		snprintf(want, sizeof(want), "%s%s%s-pod", rootname,
			 p->qos == POD_QOS_GUARANTEED ? "" : "-",
			 p->qos == POD_QOS_GUARANTEED ? "" :
			 pod_qos_name(p->qos));
	else
		snprintf(want, sizeof(want), "pod");
	if (!starts(c[i], len[i], want) ||
	    !uid_of(c[i] + strlen(want), len[i] - strlen(want) -
		    (systemd && ends(c[i], len[i], ".slice") ? 6 : 0),
		    systemd ? '_' : '-', p->uid) ||
	    (systemd && !ends(c[i], len[i], ".slice")))
		return bad(e, p, path, systemd ? "under kubepods but not a "
			   "pod slice of its QoS class (<root>[-<qos>]-pod"
			   "<uid with _>.slice)" : "under kubepods but not "
			   "pod<uid> (8-4-4-4-12 lowercase hex)");
	if (++i == n)
		return 1;		/* the pod's own cgroup */
	if (leaf(c[i], len[i], systemd, p))
		return bad(e, p, path, systemd ? "in a pod but not a "
			   "container scope (cri-containerd-, docker- or "
			   "crio-<64 hex>.scope)" : "in a pod but not a "
			   "container id (64 lowercase hex, or crio-<id>)");
	return 1;
}

const char *pod_qos_name(enum pod_qos q)
{
	switch (q) {
	case POD_QOS_GUARANTEED:
		return "guaranteed";
	case POD_QOS_BURSTABLE:
		return "burstable";
	case POD_QOS_BESTEFFORT:
		return "besteffort";
	}
	return "";
}
