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
		"$K/daemonset.yaml" "$K/inference-pod.yaml" "$K/servicemonitor.yaml"
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

# sm_check DAEMONSET SERVICEMONITOR RULES: the ServiceMonitor reaches the
# DaemonSet's metrics port and names the job the alert rules expect
sm_check() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys, yaml
ds_docs = list(yaml.safe_load_all(open(sys.argv[1])))
sm_docs = list(yaml.safe_load_all(open(sys.argv[2])))
rules = open(sys.argv[3]).read()
kind = lambda docs, k: next(d for d in docs if d and d["kind"] == k)
ds, cm = kind(ds_docs, "DaemonSet"), kind(ds_docs, "ConfigMap")
svc, sm = kind(sm_docs, "Service"), kind(sm_docs, "ServiceMonitor")
bad = []
sub = lambda a, b: all(b.get(k) == v for k, v in a.items())
pod = ds["spec"]["template"]
if not sub(svc["spec"]["selector"], pod["metadata"]["labels"]):
    bad.append("the Service selects no DaemonSet pod")
if not sub(sm["spec"]["selector"]["matchLabels"], svc["metadata"]["labels"]):
    bad.append("the ServiceMonitor selects no Service")
if svc["metadata"]["namespace"] not in sm["spec"]["namespaceSelector"]["matchNames"]:
    bad.append("the ServiceMonitor does not look in the Service's namespace")
ports = {p["name"]: p["containerPort"] for c in pod["spec"]["containers"]
         for p in c.get("ports", [])}
conf = re.search(r"^metrics \S+:(\d+)$", cm["data"]["gpreempt.conf"], re.M)
for p in svc["spec"]["ports"]:
    if ports.get(p["targetPort"]) != p["port"] or int(conf.group(1)) != p["port"]:
        bad.append(f"Service port {p['name']}: not the daemon's metrics port")
if [e["port"] for e in sm["spec"]["endpoints"]] != [p["name"] for p in svc["spec"]["ports"]]:
    bad.append("the ServiceMonitor's endpoint is not the Service's port")
# the operator names the job after the Service
if f'job="{svc["metadata"]["name"]}"' not in rules:
    bad.append(f'the alert rules do not use job="{svc["metadata"]["name"]}"')
print("\n".join(bad) or "consistent")
sys.exit(1 if bad else 0)
PY
}

@test "k8s: the ServiceMonitor reaches the DaemonSet's metrics port and names the alerts' job" {
	/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "no python3-yaml"
	R=$TOP/packaging/prometheus/gpreempt-alerts.yml
	run -0 sm_check "$K/daemonset.yaml" "$K/servicemonitor.yaml" "$R"
	[ "$output" = consistent ]
	# the Service itself passes the API models' check (the ServiceMonitor
	# is the operator's CRD, which python3-kubernetes has no model of)
	if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
		sed -n '/^---$/,/^---$/p' "$K/servicemonitor.yaml" | sed '$d' > "$BATS_TEST_TMPDIR/svc.yaml"
		run -0 "$K/check-manifests" "$BATS_TEST_TMPDIR/svc.yaml"
		[[ "$output" == *"1 documents checked, 0 problems"* ]]
	fi
	# and a broken one fails: another port, another selector, another job
	sed 's/targetPort: metrics/targetPort: http/' "$K/servicemonitor.yaml" > "$BATS_TEST_TMPDIR/b1.yaml"
	run -1 sm_check "$K/daemonset.yaml" "$BATS_TEST_TMPDIR/b1.yaml" "$R"
	[[ "$output" == *"not the daemon's metrics port"* ]]
	sed '/^  selector:$/,/^  ports:$/s/name: gpreempt/name: gpreempt-x/' "$K/servicemonitor.yaml" > "$BATS_TEST_TMPDIR/b2.yaml"
	run -1 sm_check "$K/daemonset.yaml" "$BATS_TEST_TMPDIR/b2.yaml" "$R"
	[[ "$output" == *"selects no DaemonSet pod"* ]]
	sed 's/job="gpreempt"/job="gpreempt-node"/' "$R" > "$BATS_TEST_TMPDIR/r.yml"
	run -1 sm_check "$K/daemonset.yaml" "$K/servicemonitor.yaml" "$BATS_TEST_TMPDIR/r.yml"
	[[ "$output" == *'do not use job="gpreempt"'* ]]
}
