// SPDX-License-Identifier: GPL-2.0
/*
 * L0: pod attribution from cgroup v2 paths (base/podcg.c), on the shapes
 * the kubelet's two cgroup drivers and the runtimes give them (podcg.h
 * cites where), and on malformed ones: bad input is a clear error and
 * fills nothing; a process outside any pod gets no pod.
 */
#include <string.h>

#include "podcg.h"
#include "tap.h"

#define UID "0b8c3a4e-6f2a-4f1e-9d3c-1234567890ab"
#define UIDU "0b8c3a4e_6f2a_4f1e_9d3c_1234567890ab"
#define CID "4c7d2a9f1e3b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f"

static struct pod_ref p;
static struct gp_err e;

static void pod(const char *path, const char *cid, const char *rt,
		enum pod_qos q)
{
	memset(&e, 0, sizeof(e));
	CHECK(pod_parse_cgroup(path, &p, &e) == 1);
	CHECK_STR(p.uid, UID);
	CHECK_STR(p.container, cid);
	CHECK_STR(p.runtime, rt);
	CHECK(p.qos == q);
	if (tap_cur_failed)
		printf("# path %s: %s\n", path, e.msg);
}

static void none(const char *path)
{
	memset(&p, 0x5a, sizeof(p));
	CHECK(pod_parse_cgroup(path, &p, &e) == 0);
	CHECK(p.uid[0] == 0 && p.container[0] == 0 && p.qos == 0);
}

static void malformed(const char *path, const char *why)
{
	memset(&e, 0, sizeof(e));
	CHECK(pod_parse_cgroup(path, &p, &e) == -1);
	CHECK(e.exit == 2);
	CHECK(strstr(e.msg, why) != NULL);
	if (!strstr(e.msg, why))
		printf("# %s -> %s\n", path, e.msg);
	CHECK(p.uid[0] == 0 && p.container[0] == 0 && p.qos == 0);
}

TEST(cgroupfs_driver)
{
	pod("/kubepods/pod" UID "/" CID, CID, "", POD_QOS_GUARANTEED);
	pod("/kubepods/burstable/pod" UID "/" CID, CID, "",
	    POD_QOS_BURSTABLE);
	pod("/kubepods/besteffort/pod" UID "/" CID, CID, "",
	    POD_QOS_BESTEFFORT);
	pod("/kubepods/burstable/pod" UID "/crio-" CID, CID, "crio",
	    POD_QOS_BURSTABLE);
	/* --cgroup-root /k8s, and a cgroup the container made below */
	pod("/k8s/kubepods/besteffort/pod" UID "/" CID "/worker", CID, "",
	    POD_QOS_BESTEFFORT);
	/* the pod's own cgroup: a pod, no container */
	pod("/kubepods/burstable/pod" UID, "", "", POD_QOS_BURSTABLE);
}

TEST(systemd_driver)
{
	pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	    UIDU ".slice/cri-containerd-" CID ".scope", CID, "containerd",
	    POD_QOS_BURSTABLE);
	pod("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
	    "pod" UIDU ".slice/docker-" CID ".scope", CID, "docker",
	    POD_QOS_BESTEFFORT);
	pod("/kubepods.slice/kubepods-pod" UIDU ".slice/crio-" CID ".scope",
	    CID, "crio", POD_QOS_GUARANTEED);
	/* kind: the kubelet's own slice above */
	pod("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-"
	    "besteffort.slice/kubelet-kubepods-besteffort-pod" UIDU
	    ".slice/cri-containerd-" CID ".scope", CID, "containerd",
	    POD_QOS_BESTEFFORT);
	/* CRI-O's monitor: in the pod, not in a container */
	pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	    UIDU ".slice/crio-conmon-" CID ".scope", "", "",
	    POD_QOS_BURSTABLE);
	pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	    UIDU ".slice", "", "", POD_QOS_BURSTABLE);
	CHECK_STR(pod_qos_name(POD_QOS_BESTEFFORT), "besteffort");
}

TEST(a_process_outside_any_pod_gets_no_pod)
{
	none("/");
	none("/user.slice/user-1000.slice/session-2.scope");
	none("/system.slice/containerd.service");
	none("/system.slice/docker-" CID ".scope");	/* docker, no k8s */
	none("/kubepods");
	none("/kubepods/burstable");		/* QoS level */
	none("/kubepods.slice/kubepods-besteffort.slice");
	none("/notkubepods.slice/x");
}

TEST(malformed_paths_are_clear_errors_and_fill_nothing)
{
	malformed("", "not an absolute cgroup path");
	malformed("kubepods/pod" UID, "not an absolute cgroup path");
	malformed("/kubepods//pod" UID, "an empty component");
	malformed("/kubepods/pod" UID "/", "an empty component");
	malformed("/kubepods/burstable/podNOTAUID/" CID, "not pod<uid>");
	malformed("/kubepods/burstable/pod" UIDU "/" CID, "not pod<uid>");
	malformed("/kubepods/burstable/pod0B8C3A4E-6F2A-4F1E-9D3C-"
		  "1234567890AB/" CID, "not pod<uid>");
	malformed("/kubepods/burstable/pod" UID "/" CID "z",
		  "not a container id");
	malformed("/kubepods/burstable/pod" UID "/abc", "not a container id");
	/* systemd: the dashed UID, a QoS the pod slice does not repeat */
	malformed("/kubepods.slice/kubepods-burstable.slice/kubepods-"
		  "burstable-pod" UID ".slice", "not a pod slice");
	malformed("/kubepods.slice/kubepods-burstable.slice/kubepods-"
		  "besteffort-pod" UIDU ".slice", "not a pod slice");
	malformed("/kubepods.slice/kubepods-burstable.slice/kubepods-"
		  "burstable-pod" UIDU ".slice/runc-" CID ".scope",
		  "not a container scope");
	malformed("/kubepods.slice/kubepods-pod" UIDU ".slice/cri-"
		  "containerd-" CID, "not a container scope");
	{
		char longp[5000];

		memset(longp, 'a', sizeof(longp));
		longp[0] = '/';
		longp[sizeof(longp) - 1] = 0;
		malformed(longp, "longer than PATH_MAX");
		longp[300] = 0;
		malformed(longp, "longer than NAME_MAX");
	}
}

int main(void)
{
	RUN(cgroupfs_driver);
	RUN(systemd_driver);
	RUN(a_process_outside_any_pod_gets_no_pod);
	RUN(malformed_paths_are_clear_errors_and_fill_nothing);
	return tap_done();
}
