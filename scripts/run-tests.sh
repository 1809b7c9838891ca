#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run gpreempt's test suites and sum them. Every suite prints TAP; a test
# binary that dies without reporting a failure counts as one.
#
#   scripts/run-tests.sh [all|structure|unit|bpf|bats|fuzz|doc|vm]...
#
# structure  the include lines keep the layers (tests/structure)
# unit  L0: C unit tests of pure logic (tests/unit)
# bpf   L1: BPF logic under BPF_PROG_TEST_RUN in the host kernel (tests/bpf)
# bats  CLI tests of the real binaries on the host (tests/bats)
# fuzz  the socket protocol parser under libFuzzer, time-bounded
# doc   every shell block of README.md and docs/*.md, as its tag says (host,
#       6.12 guest), and no tracked file names a path outside the tree
# vm    L2: the static tools against real KFD in QEMU, every kernel
#       (KERNELS="6.1 6.12 7.x" and VMTESTS="GLOB ..." narrow it)
# bench quick mode of the benchmarks (bench/run.sh --quick): they ran and
#       gave sane numbers; never a timing threshold
# The last line is "N passed, N failed, N skipped"; exit 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
OUT=${OUTPUT:-.output}
log=$(mktemp /tmp/gptests.XXXXXX)
trap 'rm -f "$log"' EXIT

[ $# -gt 0 ] || set -- all
[ "$1" = all ] && set -- structure unit bpf bats fuzz doc vm bench

# Record one synthetic TAP failure (build breaks, crashed binaries).
fail_line() { echo "not ok - $*" | tee -a "$log"; }

run_tap() { # name cmd...
	local name=$1 out rc
	shift
	out=$(mktemp)
	"$@" 2>&1 | tee "$out" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
		fail_line "$name exited with status $rc without reporting a failure"
	fi
	rm -f "$out"
}

build() {
	if ! make -s OUTPUT="$OUT" tests; then
		fail_line "build (make tests) failed: see the compiler output above"
		return 1
	fi
}

mount_tracing() {
	# libbpf reads tracepoint ids from tracefs; fresh machines lack it.
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
}

suite_bins() { # dir-of-sources
	local src
	for src in "$1"/test_*.c; do
		[ -e "$src" ] || continue
		src=$(basename "$src" .c)
		echo "# --- $src"
		run_tap "$src" "$OUT/tests/$src"
	done
}

built=0
for suite in "$@"; do
	echo "# ===== suite: $suite"
	case $suite in
	unit|bpf|bats)
		if [ $built = 0 ]; then build || continue; built=1; fi ;;
	esac
	case $suite in
	structure) run_tap structure tests/structure/check-layers.sh ;;
	unit) suite_bins tests/unit ;;
	bpf) mount_tracing; suite_bins tests/bpf ;;
	bats)
		mount_tracing
		run_tap "build of the tools for bats" make -s OUTPUT="$OUT" \
			BINDIR="$OUT/bin" "$OUT/bin/gpreempt-trace" \
			"$OUT/bin/gpreempt-ctl"
		GP_BIN=$top/$OUT/bin run_tap bats bats --tap tests/bats ;;
	fuzz)
		if [ -x tests/fuzz/run.sh ]; then
			run_tap fuzz tests/fuzz/run.sh
		fi ;;
	doc)
		mount_tracing
		run_tap paths tests/doc/paths.sh
		run_tap doc tests/doc/doctest.sh ;;
	vm)
		args=()
		for k in ${KERNELS:-}; do args+=(-k "$k"); done
		for t in ${VMTESTS:-}; do args+=(-t "$t"); done
		run_tap vm scripts/vm.sh test "${args[@]}" ;;
	bench) mount_tracing; run_tap bench bench/run.sh --quick ;;
	*) fail_line "unknown suite '$suite'" ;;
	esac
done

passed=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
skipped=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
failed=$(grep -c '^not ok' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
