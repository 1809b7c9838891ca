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

[ $# -gt 0 ] || set -- all
[ "$1" = all ] && set -- structure unit bpf bats fuzz doc vm bench

# The vm suite (three guests under TCG, about half the run's CPU time)
# runs beside the other suites when it is asked for with them: on a
# loaded machine two busy lanes get more of the cores than one (two CPU
# hogs and one lane: 2/3 of a core; two lanes: a whole core), and the
# guests' limits follow their progress, not the wall clock. Its own copy
# of the static tools ($OUT/vm-lane) keeps the two lanes' builds apart.
# Its TAP is printed and counted after the others. GP_TEST_SERIAL=1 runs
# every suite one after another.
lane_pid=
lane_out=
if [ "${GP_TEST_SERIAL:-0}" != 1 ] && [ $# -gt 1 ] &&
   printf '%s\n' "$@" | grep -qx vm; then
	rest=()
	for s in "$@"; do [ "$s" = vm ] || rest+=("$s"); done
	set -- "${rest[@]}"
	lane_out=$(mktemp /tmp/gptests-vm.XXXXXX)
	lane_start=$(date +%s)
	# its own session, so an interrupted run takes the guests down with it
	GP_TEST_SERIAL=1 VM_OUTPUT=$OUT/vm-lane setsid "$top/scripts/run-tests.sh" vm > "$lane_out" 2>&1 &
	lane_pid=$!
	echo "# the vm suite runs beside these suites; its results follow theirs"
fi
stop_lane() {
	[ -z "$lane_pid" ] || kill -- -"$lane_pid" 2>/dev/null
	rm -f "$log" "$lane_out"
}
trap stop_lane EXIT

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

if [ -n "$lane_pid" ]; then
	wait "$lane_pid"
	rc=$?
	lane_pid=
	# the lane's own sum is left out: the total below counts its lines
	grep -v '^[0-9]* passed, [0-9]* failed' "$lane_out" | tee -a "$log"
	grep -q '^ok \|^not ok ' "$lane_out" ||
		fail_line "vm suite (run beside the others) exited with status $rc and reported nothing"
	echo "# the vm suite took $(( $(date +%s) - lane_start )) s beside the others"
fi

passed=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
skipped=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
failed=$(grep -c '^not ok' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
