#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Kubernetes recipe (packaging/k8s/): the manifests pass yamllint and
# a strict schema check against Debian's python3-kubernetes API models
# (packaging/k8s/check-manifests), which does catch a misspelt field; the
# ConfigMap's daemon options are accepted by the daemon itself; the image
# recipe runs what the package installs. Not run here: a container build
# (no registry but Debian's and npm's) and a cluster (server-side
# validation, admission, the device cgroup).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
K=$TOP/packaging/k8s

@test "k8s: yamllint is clean on the manifests" {
	command -v yamllint >/dev/null || skip "no yamllint (apt-get install yamllint)"
	run -0 yamllint -s -d '{extends: default, rules: {line-length: {max: 100}, document-start: disable}}' \
		"$K/daemonset.yaml" "$K/inference-pod.yaml"
}

@test "k8s: every field is in the Kubernetes API models; a typo fails" {
	/usr/bin/python3 -c 'import kubernetes, yaml' 2>/dev/null ||
		skip "no python3-kubernetes (apt-get install python3-kubernetes)"
	run -0 "$K/check-manifests" "$K/daemonset.yaml" "$K/inference-pod.yaml"
	[[ "$output" == *"4 documents checked, 0 problems"* ]]
	# The checker can fail: a misspelt field and a wrong type.
	sed -e 's/hostPID: true/hostPid: true/' \
	    -e 's/containerPort: 9464/containerPort: "9464x"/' \
		"$K/daemonset.yaml" > "$BATS_TEST_TMPDIR/bad.yaml"
	run -1 "$K/check-manifests" "$BATS_TEST_TMPDIR/bad.yaml"
	[[ "$output" == *".spec.template.spec.hostPid: no such field in V1PodSpec"* ]]
	[[ "$output" == *"containerPort: want int"* ]]
	# and a missing required field (a container without a name)
	sed -e 's/^        - name: gpreempt$/        - nam: gpreempt/' \
		"$K/daemonset.yaml" > "$BATS_TEST_TMPDIR/bad2.yaml"
	run -1 "$K/check-manifests" "$BATS_TEST_TMPDIR/bad2.yaml"
	[[ "$output" == *"name"*"must not be"*"None"* ]]
}

@test "k8s: the ConfigMap's options are accepted by the daemon's parser" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	d=$BATS_TEST_TMPDIR
	sed -n '/gpreempt.conf: |/,/^---/{/gpreempt.conf: |/d;/^---/d;s/^    //p}' \
		"$K/daemonset.yaml" > "$d/gpreempt.conf"
	n=$(grep -c . "$d/gpreempt.conf")
	[ "$n" -ge 5 ]
	run -0 "$CTL" daemon --config "$d/gpreempt.conf" --help
	echo 'bogus 1' >> "$d/gpreempt.conf"
	run -2 "$CTL" daemon --config "$d/gpreempt.conf" --help
	[[ "$output" == *"gpreempt.conf:$((n + 1)): unknown option 'bogus'"* ]]
}

@test "k8s: the inference pod runs as non-root and mounts only the tenant socket's directory, read-only" {
	/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "no python3-yaml"
	c=$BATS_TEST_TMPDIR/check.py
	cat >"$c" <<'PY'
import sys, yaml
pod = yaml.safe_load(open(sys.argv[1]))
docs = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
spec = pod["spec"]
sc = spec["securityContext"]
assert sc["runAsNonRoot"] is True, sc
assert sc["runAsUser"] != 0 and sc["runAsGroup"] != 0, sc
# one volume: the tenant socket's directory, mounted read-only
assert [v["hostPath"]["path"] for v in spec["volumes"]] == \
    ["/run/gpreempt-tenant"], spec["volumes"]
for c in spec["containers"]:
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    for m in c["volumeMounts"]:
        assert m["readOnly"] is True, m
        assert m["mountPath"] == "/run/gpreempt-tenant", m
    env = {e["name"]: e["value"] for e in c["env"]}
    sock = env["GPREEMPT_SOCKET"]
    assert sock.startswith("/run/gpreempt-tenant/"), sock
# the DaemonSet's daemon serves that socket, apart from the admin one
conf = next(d for d in docs if d["kind"] == "ConfigMap")["data"]["gpreempt.conf"]
opts = dict(l.split(None, 1) for l in conf.splitlines() if l.strip())
assert opts["tenant-socket"] == sock, opts
assert not opts["socket"].startswith("/run/gpreempt-tenant/"), opts
ds = next(d for d in docs if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]
paths = [v["hostPath"]["path"] for v in ds["volumes"] if "hostPath" in v]
assert "/run/gpreempt-tenant" in paths and "/run/gpreempt" in paths, paths
print("pod and daemonset agree")
PY
	run -0 /usr/bin/python3 "$c" "$K/inference-pod.yaml" "$K/daemonset.yaml"
	[[ "$output" == *"pod and daemonset agree"* ]]
	# the check fails on a pod that runs as root, mounts the admin
	# socket's directory, or mounts read-write
	t=$BATS_TEST_TMPDIR
	sed -e 's/runAsUser: 1001/runAsUser: 0/' "$K/inference-pod.yaml" >"$t/1.yaml"
	sed -e 's|path: /run/gpreempt-tenant|path: /run/gpreempt|' \
		"$K/inference-pod.yaml" >"$t/2.yaml"
	sed -e 's/readOnly: true/readOnly: false/' "$K/inference-pod.yaml" >"$t/3.yaml"
	for f in 1 2 3; do
		run -1 /usr/bin/python3 "$c" "$t/$f.yaml" "$K/daemonset.yaml"
		[[ "$output" == *AssertionError* ]]
	done
}

@test "k8s: the image installs the .deb and runs what it ships" {
	f=$K/Containerfile
	grep -q '^RUN make deb OUTPUT=/out$' "$f"
	grep -q 'apt-get install .*/tmp/gpreempt_\*.deb' "$f" ||
		grep -q '/tmp/gpreempt_\*.deb \\$' "$f"
	grep -q '^ENTRYPOINT \["/usr/sbin/gpreempt-ctl", "daemon"\]$' "$f"
	# Only Debian's archive, from the image's own sources: no URL, no
	# curl | sh (scripts/debian-mirror.sh finds the mirror).
	! grep -E '[a-z]+://' "$f"
	grep -q 'm=$(debian-mirror.sh) && echo "deb $m bookworm-backports main"' "$f"
	# The image's group id is the one the DaemonSet and the pod use.
	grep -q 'groupadd --system --gid 4242 gpreempt' "$f"
	grep -q 'supplementalGroups: \[4242\]' "$K/inference-pod.yaml"
	# The paths the manifest uses are what the package installs.
	run -0 make -C "$TOP" -s -n install DESTDIR=/x PREFIX=/usr
	[[ "$output" == *"gpreempt-ctl /x/usr/sbin/"* ]]
}
