/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kubernetes pod attribution from a process's cgroup v2 path (the "0::"
 * line of /proc/PID/cgroup): the pod's UID, the container id and the
 * pod's QoS class, for both of the kubelet's cgroup drivers. The kubelet
 * names them so (pkg/kubelet/cm: cgroup_manager_linux.go,
 * qos_container_manager_linux.go; the runtimes name the leaf):
 *
 *   cgroupfs: /kubepods[/burstable|/besteffort]/pod<uid>[/<cid>]
 *             (the leaf: containerd and docker a bare id, CRI-O crio-<id>)
 *   systemd:  /kubepods.slice[/kubepods-<qos>.slice]
 *             /kubepods[-<qos>]-pod<uid with '_' for '-'>.slice
 *             [/<cri-containerd|docker|crio>-<cid>.scope]
 *
 * Guaranteed pods sit directly under kubepods; the root may be nested
 * (kind's /kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-...,
 * a --cgroup-root such as /k8s/kubepods), and a container may create
 * cgroups of its own below its leaf (still that container). Pure: no I/O.
 *
 * What a process controls (its own cgroup namespace, cgroups it creates
 * under its leaf) cannot move it into another pod's path: the path is
 * the host's view, read by the caller from /proc with the host's cgroup
 * namespace; this parser only reads it.
 */
#ifndef GP_PODCG_H
#define GP_PODCG_H

#include "err.h"

enum pod_qos {
	POD_QOS_GUARANTEED = 1,
	POD_QOS_BURSTABLE,
	POD_QOS_BESTEFFORT,
};

struct pod_ref {
	char uid[37];		/* 8-4-4-4-12, lowercase hex and dashes */
	char container[65];	/* 64 hex; "" when the path ends at the pod
				 * (or in CRI-O's conmon scope) */
	char runtime[16];	/* "containerd", "docker", "crio", or "" */
	enum pod_qos qos;
};

/*
 * 1: path is inside a pod, *p filled; 0: not a pod's cgroup (no pod, *p
 * zeroed: a system service, a login session, a QoS-level cgroup); -1: a
 * kubepods path that does not parse, e says which component and why
 * (exit GP_EXIT_USAGE), *p zeroed.
 */
int pod_parse_cgroup(const char *path, struct pod_ref *p, struct gp_err *e);
/* "guaranteed", "burstable", "besteffort" (the QoS label's value) */
const char *pod_qos_name(enum pod_qos q);

#endif
