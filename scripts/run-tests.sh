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
# fuzz  the socket protocol, maps and ELF parsers under libFuzzer, time-bounded
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

# The suites that boot guests run on lanes of their own beside the others
# when they are asked for with them: vm (three guests under TCG, the
# largest part of the run) and bench (its quick mode boots one guest). On
# a loaded machine more busy lanes get more of the cores (two CPU hogs and
# one lane: 2/3 of a core; three lanes: 1.2 cores), and the guests' limits
# follow their progress, not the wall clock. Each lane builds into
# folders of its own (vm: $OUT/vm-lane; bench: its own, under
# .output/bench), so no two lanes write one file. A lane's TAP is printed
# and counted after the other suites'. GP_TEST_SERIAL=1 runs every suite
# one after another.
lane_pids=()
lane_outs=()
lane_names=()
lane_start=$(date +%s)
stop_lanes() {
	local p
	for p in "${lane_pids[@]}"; do kill -- -"$p" 2>/dev/null; done
	rm -f "$log" "${lane_outs[@]}"
}
trap stop_lanes EXIT
if [ "${GP_TEST_SERIAL:-0}" != 1 ]; then
	for side in vm bench; do
		[ $# -gt 1 ] && printf '%s\n' "$@" | grep -qx "$side" || continue
		# once, before two lanes could race to mount it
		[ ${#lane_pids[@]} -gt 0 ] || mount_tracing
		rest=()
		for s in "$@"; do [ "$s" = "$side" ] || rest+=("$s"); done
		set -- "${rest[@]}"
		lane_names+=("$side")
		lane_outs+=("$(mktemp "/tmp/gptests-$side.XXXXXX")")
		# its own session, so an interrupted run takes its guests down
		env=(GP_TEST_SERIAL=1)
		[ "$side" = bench ] || env+=(VM_OUTPUT="$OUT/vm-lane")
		env "${env[@]}" setsid "$top/scripts/run-tests.sh" "$side" \
			> "${lane_outs[-1]}" 2>&1 &
		lane_pids+=($!)
		echo "# the $side suite runs beside these suites; its results follow theirs"
	done
fi

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

for i in "${!lane_pids[@]}"; do
	wait "${lane_pids[$i]}"
	rc=$?
	out=${lane_outs[$i]}
	# the lane's own sum is left out: the total below counts its lines
	grep -v '^[0-9]* passed, [0-9]* failed' "$out" | tee -a "$log"
	grep -q '^ok \|^not ok ' "$out" ||
		fail_line "${lane_names[$i]} suite (run beside the others) exited with status $rc and reported nothing"
	# its output file was last written when the lane ended
	echo "# the ${lane_names[$i]} suite ended $(( $(stat -c %Y "$out") - lane_start )) s after the run began"
done
lane_pids=()

passed=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
skipped=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
failed=$(grep -c '^not ok' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
