#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Launch detector cost on the host (docs/arbiter.md): trixie's real
# libamdhip64 5.7.1 through trixie's loader, hipLaunchKernel in a loop
# (no GPU: each call returns 100 at once, so the figure is the call plus
# the probe, the probe's worst case relative to a real launch).
#   unprobed       no detector
#   probed         the detector attached to this process (pid-scoped
#                  uprobes on all 13 entry points)
#   not online     another process mapping the same file while the first
#                  one is probed
# Prints calls/s (median of R runs), ns per call, and each ratio against
# the unprobed baseline measured in the same run.
#   bench/detect.sh [--quick]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${BENCH_OUTPUT:-$top/.output/bench}")
cd "$top"
N=${BENCH_DETECT_N:-2000000}	# unprobed calls per run
NP=${BENCH_DETECT_NP:-50000}	# probed calls per run (a trap each)
R=${BENCH_DETECT_R:-5}
if [ "${1:-}" = --quick ]; then N=200000; NP=2000; R=1; fi
LIBDIR=$(scripts/rocr.sh path libdir)
HIP=$(scripts/rocr.sh path hiplibdir)
W=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$OUT/build"
scripts/rocr.sh build-hip "$OUT/build"
make -s OUTPUT="$OUT/host" "$OUT/host/tests/detect-run"

waitfile() { # file [pattern]
	local i
	for ((i = 0; i < 6000; i++)); do
		if [ -e "$1" ] && { [ -z "${2:-}" ] || grep -q -- "$2" "$1"; }; then
			return 0
		fi
		sleep 0.1
	done
	echo "bench/detect.sh: timed out waiting for $1" >&2
	exit 1
}

hip() { # name calls
	"$LIBDIR/ld-linux-x86-64.so.2" --library-path "$HIP:$LIBDIR" \
		"$OUT/build/hip-launch" -f launch -n "$2" -r "$W/$1.ready" \
		-g "$W/$1.go" > "$W/$1.out" &
	pids+=($!)
	echo $! > "$W/$1.pid"
	waitfile "$W/$1.ready"
}
rate() { sed -n 's/.*"per_s":\([0-9]*\).*/\1/p' "$W/$1.out"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for ((r = 0; r < R; r++)); do
	rm -f "$W"/*.ready "$W"/cmd "$W"/det.*
	hip base "$N"
	touch "$W/base.go"
	waitfile "$W/base.out" '"step":"round"'
	rate base >> "$W/base.rates"
	hip on "$NP"
	hip off "$N"
	mkfifo "$W/cmd"
	"$OUT/host/tests/detect-run" -p "$(cat "$W/on.pid")" -r "$W/det.ready" \
		< "$W/cmd" > "$W/det.out" &
	pids+=($!)
	exec {fd}> "$W/cmd"
	waitfile "$W/det.ready"
	touch "$W/on.go"
	waitfile "$W/on.out" '"step":"round"'
	touch "$W/off.go"
	waitfile "$W/off.out" '"step":"round"'
	exec {fd}>&-
	wait "${pids[-1]}"
	rate on >> "$W/on.rates"
	rate off >> "$W/off.rates"
	# the probed process's calls, and only those, ran the program
	grep -q "\"hits\":$NP,\"stray\":0" "$W/det.out" || {
		echo "bench/detect.sh: unexpected probe counts: $(tail -n1 "$W/det.out")" >&2
		exit 1
	}
done

base=$(median < "$W/base.rates")
echo "# launch detector, host, hipLaunchKernel (no GPU), median of $R"
printf '%-12s %14s %12s %10s\n' case "calls/s" "ns/call" "x base"
for c in base on off; do
	v=$(median < "$W/$c.rates")
	awk -v c="$c" -v v="$v" -v b="$base" 'BEGIN {
		n = c == "base" ? "unprobed" : c == "on" ? "probed" : "not-online"
		printf "%-12s %14d %12.1f %10.3f\n", n, v, 1e9 / v, v / b }'
done
awk -v on="$(median < "$W/on.rates")" -v b="$base" 'BEGIN {
	printf "# added per probed call: %.2f us\n", (1e9 / on - 1e9 / b) / 1000 }'
