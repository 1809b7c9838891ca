#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what gpreempt needs, from Debian's own packages (bookworm +
# bookworm-backports, from the mirror the machine already uses), and
# cache the guest kernels. Idempotent: a second run installs and
# downloads nothing.
#
#   scripts/setup.sh [demo|test] [--list]
#
# demo: what scripts/demo.sh needs (build, QEMU, the guest kernels).
# test (the default): that and what the suites need besides (BATS, the
# packaging and service checks, Prometheus, the Kubernetes client, the
# fuzzer's runtime, bpftrace for the benchmarks, trixie's ROCm runtime
# for the guests and trixie's hipcc for the kit's compile check, both in
# private roots under /var/cache/gpreempt). --list prints the packages of that set and stops.
set -euo pipefail

mode=test list=
for a in "$@"; do
	case $a in
	demo|test) mode=$a ;;
	--list) list=1 ;;
	*) echo "usage: $0 [demo|test] [--list]" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)

BPO=/etc/apt/sources.list.d/gpreempt-bookworm-backports.sources
# name|release|min-version|max-version (empty bound: none).
# From bookworm-backports: libbpf 1.4 (module BTF CO-RE, kprobe opts),
# bpftool 7.5 (gen skeleton), and the 6.12 UAPI headers whose kfd_ioctl.h
# has the debug-trap API (KFD 1.13+); bookworm's 6.1 headers have 1.11.
# Packaging and service checks (tests/bats/packaging.bats, metrics.bats,
# k8s.bats): dpkg-dev, debhelper, lintian, help2man, man-db, systemd
# (systemd-analyze), prometheus (promtool and a real scraper), yamllint
# and python3-kubernetes (the DaemonSet's schema check); protobuf-compiler
# and python3-protobuf (protoc --decode and a python3 decoder of the
# tracer's Perfetto trace, tests/bats/perfetto.bats)
# and python3-matplotlib (the dashboard's picture, tests/bats/dashboard.bats).
# libelf stays at bookworm's 0.188: backports' 0.192 libelf.a does not
# link statically (it needs eu_search_tree_* from no static library).
PINNED="libbpf1|bookworm-backports|1:1.4|
	libbpf-dev|bookworm-backports|1:1.4|
	bpftool|bookworm-backports|7.5|
	linux-libc-dev|bookworm-backports|6.12|
	libelf1|bookworm|0.188|0.190
	libelf-dev|bookworm|0.188|0.190"
PKGS_DEMO="make gcc clang llvm zlib1g-dev libzstd-dev jq
      qemu-system-x86 busybox-static cpio xz-utils zstd kmod util-linux"
PKGS_TEST="bats curl libclang-rt-14-dev bpftrace
      dpkg-dev debhelper fakeroot lintian help2man man-db systemd
      prometheus yamllint python3-kubernetes protobuf-compiler
      python3-protobuf python3-matplotlib"
PKGS=$PKGS_DEMO
[ "$mode" = demo ] || PKGS="$PKGS $PKGS_TEST"
if [ -n "$list" ]; then
	for spec in $PINNED; do echo "${spec%%|*}"; done
	printf '%s\n' $PKGS
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "setup.sh: run as root (apt-get, /var/cache)" >&2; exit 3; }

have_bpo() {
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/
}

missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
pinned=()
for spec in $PINNED; do
	IFS='|' read -r p rel min max <<< "$spec"
	v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
	if [ -z "$v" ] || dpkg --compare-versions "$v" lt "$min" ||
	   { [ -n "$max" ] && dpkg --compare-versions "$v" ge "$max"; }; then
		pinned+=("$p/$rel")
	fi
done

if [ ${#missing[@]} -gt 0 ] || [ ${#pinned[@]} -gt 0 ]; then
	if ! have_bpo; then
		# the machine's own mirror (GPREEMPT_DEBIAN_MIRROR overrides)
		mirror=$("$top/scripts/debian-mirror.sh")
		echo "setup: adding bookworm-backports from $mirror ($BPO)"
		cat > "$BPO" <<EOS
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	fi
	echo "setup: installing ${missing[*]} ${pinned[*]}"
	apt-get update -qq
	# pkg/release takes just that package from the release; dependencies
	# keep their default (bookworm) candidates.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--allow-downgrades "${missing[@]}" "${pinned[@]}" >/dev/null
else
	echo "setup: all packages present"
fi

"$top/scripts/kernels.sh" fetch
if [ "$mode" = test ]; then
	# Debian trixie's ROCm runtime for the real-runtime VM tests. Its
	# failure does not stop the set-up: the 5*-rocr guest tests then
	# fail, loudly.
	"$top/scripts/rocr.sh" fetch ||
		echo "setup: WARNING: the ROCm runtime could not be fetched; the VM suite's real-runtime tests will fail" >&2
	# trixie's hipcc, private, for the hardware kit's compile check
	"$top/scripts/hipcc.sh" fetch ||
		echo "setup: WARNING: trixie's hipcc could not be fetched; tests/bats/kitbuild.bats will fail" >&2
fi
echo "setup: done ($mode)"
