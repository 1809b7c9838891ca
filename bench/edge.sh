#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Edge-to-suspend latency (issue 21), in the 6.12 guest with the HIP disk:
# an unmodified program's first hipLaunchKernel after idle -> the daemon
# (--detect launch) has suspended a real ROCr offline process (the
# tracer's suspend event: KFD's suspend_queues() returned, inside the
# daemon's SUSPEND_QUEUES ioctl, which then only unlocks and copies its
# arguments back). The baseline,
# same boot, same daemon and offline process: the notify path, "busy" ->
# "ok" (bench/arb-lat). Reports p50/p99 of each and launch/notify ratios.
# Guest half and clocks: bench/guest-edge.sh. Method: docs/benchmarks.md.
# Its own boot (the HIP disk), so bench/run.sh runs it in full mode only.
#	bench/edge.sh [--quick]     (BENCH_EDGE_N rounds, default 30; --quick 3)
#	bench/edge.sh --report      the table again, from the last raw output
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# absolute, so a BENCH_OUTPUT given from anywhere names the same place
OUT=$(realpath -m "${BENCH_OUTPUT:-$top/.output/bench}")
RAW=$OUT/edge-vm.raw
cd "$top"
N=${BENCH_EDGE_N:-30}
[ "${1:-}" = --quick ] && N=3

. "$top/bench/pct.sh"

# Per launch round: the first suspend event at or after the program's
# stamp (moved to the boot clock), and before the next round's stamp.
edge_lat() {
	awk '$1 == "BENCH" && $2 == "edge-t0" { t[$3] = $4 + $5; n = $3 > n ? $3 : n }
	$1 == "BENCH" && $2 == "edge-ev" && $3 == "suspend" { s[++m] = $4 }
	END {
		for (i = 1; i <= n; i++) {
			best = 0
			for (j = 1; j <= m; j++)
				if (s[j] >= t[i] && (i == n || s[j] < t[i + 1]) &&
				    (!best || s[j] < best)) best = s[j]
			if (best) print best - t[i]
		}
	}' "$RAW"
}

report() {
	local e50 e99 en a50 a99 an
	edge_lat > "$OUT/edge-launch.ns"
	awk '$1 == "BENCH" && $2 == "arb" && $5 > 0 { print $5 }' "$RAW" > "$OUT/edge-notify.ns"
	read -r e50 e99 < <(pct < "$OUT/edge-launch.ns")
	read -r a50 a99 < <(pct < "$OUT/edge-notify.ns")
	en=$(wc -l < "$OUT/edge-launch.ns") an=$(wc -l < "$OUT/edge-notify.ns")
	printf '%-44s %6s %10s %10s\n' path n "p50 us" "p99 us"
	printf '%-44s %6s %10s %10s\n' "first launch -> suspended (launch)" "${en:-0}" "$e50" "$e99"
	printf '%-44s %6s %10s %10s\n' "notify busy -> ok (baseline)" "${an:-0}" "$a50" "$a99"
	awk -v e5="$e50" -v e9="$e99" -v a5="$a50" -v a9="$a99" 'BEGIN {
		if (e5 + 0 > 0 && a5 + 0 > 0 && a9 + 0 > 0)
			printf "# launch/notify: p50 %.2fx, p99 %.2fx\n", e5 / a5, e9 / a9 }'
	grep "^BENCH info" "$RAW" | sed 's/^BENCH info /# guest: /' || true
	grep "^BENCH skip" "$RAW" | sed 's/^BENCH skip /# skipped: /' || true
	# both paths measured, or the run failed
	[ "${en:-0}" -gt 0 ] && [ "${an:-0}" -gt 0 ]
}
if [ "${1:-}" = --report ]; then
	report
	exit
fi

mkdir -p "$OUT/build"
make -s -f bench/bench.mk OUTPUT="$OUT/build" "$OUT/build/arb-lat"
echo "# edge-to-suspend: VM 6.12 with the HIP disk, $N rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
VM_OUTPUT=${VM_OUTPUT:-$OUT/vm} VM_HIP=1 VM_EXTRA_BINS="$OUT/build/arb-lat" \
	VM_APPEND="gpb.edgen=$N ${VM_APPEND:-}" \
	scripts/vm.sh run -s bench/guest-edge.sh -k 6.12 2>&1 |
	tr -d '\r' > "$RAW" || true
grep -q "^BENCH end edge" "$RAW" ||
	{ echo "bench/edge.sh: the guest part did not finish: $RAW" >&2; exit 1; }
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
report
