#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the launch probe costs the probed process, on the host with real
# uprobes (docs/arbiter.md, "Launch detection: what a trap costs and the
# levers"). The probed process is tests/rocr/hip-launch on trixie's
# libamdhip64 5.7.1 through trixie's loader; with no GPU each launch
# returns 100 at once, so a launch is the library's call alone (~50 ns)
# and the trap is the probe's worst case relative to a real launch.
#
#  traps    a burst of N launches with hipLaunchKernel probed (pid-scoped
#           perf uprobe, bench/trap_count.bpf.c counting the program's
#           runs): traps per burst, and ns/launch probed against unprobed
#           in the same run (the ratio)
#  stall    requests of K launches + hipDeviceSynchronize, an idle gap
#           between them, for SECS; per-request p50/p99/max while nothing
#           is probed, while the probes are held armed, and while they
#           are armed and disarmed (pid-scoped, perf_event_open/close, or
#           one uprobe_multi link, or tracefs events kept registered
#           whose pid-scoped perf events are opened and closed: the
#           kernel then only applies and removes the breakpoint) at 100
#           and 1,000 edges a second.
#           The toggled probes are the launch entry points the loop does
#           NOT call (so no trap is counted in its times: what is left is
#           the arming itself); rounds interleaved, R of them.
#
#   bench/detect-cost.sh [--quick]
# Raw JSON lines in $BENCH_OUTPUT/detect-cost.jsonl (default .output/bench).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${BENCH_OUTPUT:-$top/.output/bench}")
cd "$top"
R=${BENCH_DC_R:-3}		# interleaved rounds
SECS=${BENCH_DC_SECS:-3}	# per stall case and round
K=${BENCH_DC_K:-128}		# launches per request
GAP=${BENCH_DC_GAP:-100}	# us idle between requests
BURSTS=${BENCH_DC_BURSTS:-"1000 10000 100000"}
cases="none held perf100 perf1000 multi100 multi1000 tf100 tf1000"
# quick: that it runs (bench/run.sh --quick), one case of each arming
if [ "${1:-}" = --quick ]; then
	R=1; SECS=0.5; BURSTS=1000; cases="none perf100 multi100 tf1000"
fi
LIBDIR=$(scripts/rocr.sh path libdir)
HIP=$(scripts/rocr.sh path hiplibdir)
LIB=$(realpath "$HIP/libamdhip64.so.5")
# the 10 launch entry points today's detector probes, less hipLaunchKernel
OTHERS="hipLaunchKernel_spt,hipExtLaunchKernel,hipModuleLaunchKernel,_Z24hipExtModuleLaunchKernel*,hipLaunchCooperativeKernel,hipLaunchCooperativeKernel_spt,hipModuleLaunchCooperativeKernel,hipGraphLaunch,hipGraphLaunch_spt"
W=${BENCH_DC_W:-$(mktemp -d)}
RAW=$OUT/detect-cost.jsonl
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$OUT/build"
scripts/rocr.sh build-hip "$OUT/build" > /dev/null
make -s -f bench/bench.mk OUTPUT="$OUT/build" "$OUT/build/uprobe-arm"
ARM=$OUT/build/uprobe-arm
: > "$RAW"

waitfile() { # file [pattern]
	local i
	for ((i = 0; i < 6000; i++)); do
		if [ -e "$1" ] && { [ -z "${2:-}" ] || grep -q -- "$2" "$1"; }; then
			return 0
		fi
		sleep 0.1
	done
	echo "bench/detect-cost.sh: timed out waiting for $1" >&2
	exit 1
}

hip() { # name args...: start hip-launch paused before its round
	local name=$1
	shift
	rm -f "$W/$name".*
	"$LIBDIR/ld-linux-x86-64.so.2" --library-path "$HIP:$LIBDIR" \
		"$OUT/build/hip-launch" -f launch -r "$W/$name.ready" \
		-g "$W/$name.go" "$@" > "$W/$name.out" &
	pids+=($!)
	echo $! > "$W/$name.pid"
	waitfile "$W/$name.ready"
}
finish() { # name: run its round, wait for the line, keep it
	touch "$W/$1.go"
	waitfile "$W/$1.out" '"step":"round"'
	wait "$(cat "$W/$1.pid")"
	grep '"step":"round"' "$W/$1.out" | sed "s/^/{\"case\":\"$1\",\"run\":/; s/\$/}/" >> "$RAW"
}
field() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$W/$1.out" | tail -n1; }
reqf() { sed -n "s/.*\"req\":{[^}]*\"$2\":\([0-9]*\).*/\1/p" "$W/$1.out"; }

# --- traps: a burst of N launches, probed and not ---
echo "# traps per burst of N launches (hipLaunchKernel probed, pid-scoped perf uprobe)"
printf '%-8s %8s %12s %12s %8s\n' N traps "ns/unprobed" "ns/probed" ratio
for n in $BURSTS; do
	hip base -n "$n"
	finish base
	hip probed -n "$n"
	rm -f "$W/arm.ready"
	"$ARM" -p "$(cat "$W/probed.pid")" -l "$LIB" -s hipLaunchKernel \
		-R "$W/arm.ready" < <(waitfile "$W/probed.out" '"step":"round"') \
		> "$W/arm.out" &
	apid=$!
	waitfile "$W/arm.ready"
	finish probed
	wait "$apid"
	sed "s/^/{\"case\":\"traps\",\"n\":$n,\"arm\":/; s/\$/}/" "$W/arm.out" >> "$RAW"
	traps=$(sed -n 's/.*"traps":\([0-9]*\).*/\1/p' "$W/arm.out")
	[ "$traps" = "$n" ] || {	# one trap a probed call, no more, no less
		echo "bench/detect-cost.sh: $traps traps for $n probed calls" >&2
		exit 1
	}
	awk -v n="$n" -v t="$traps" -v b="$(field base seconds)" \
	    -v p="$(field probed seconds)" 'BEGIN {
		printf "%-8d %8d %12.1f %12.1f %8.1f\n", n, t, b * 1e9 / n,
		       p * 1e9 / n, p / b }'
done

# --- stall: request latency while probes are armed and disarmed ---
for ((r = 0; r < R; r++)); do
	for c in $cases; do
		hip "$c" -b "$K" -s -t "$SECS" -i "$GAP"
		rm -f "$W/arm.ready" "$W/arm.out"
		touch "$W/arm.out"
		pid=$(cat "$W/$c.pid")
		apid=
		case $c in
		none) ;;
		held) "$ARM" -p "$pid" -l "$LIB" -s "$OTHERS" -R "$W/arm.ready" \
			-d "$(awk -v s="$SECS" 'BEGIN { print s + 1 }')" > "$W/arm.out" & apid=$! ;;
		perf*) "$ARM" -p "$pid" -l "$LIB" -s "$OTHERS" -R "$W/arm.ready" \
			-r "${c#perf}" -d "$SECS" > "$W/arm.out" & apid=$! ;;
		multi*) "$ARM" -p "$pid" -l "$LIB" -s "$OTHERS" -R "$W/arm.ready" \
			-m -r "${c#multi}" -d "$SECS" > "$W/arm.out" & apid=$! ;;
		tf*) mkdir -p "$W/tracefs"
			unshare -m sh -c 't=$1; shift
				if [ -e /sys/kernel/tracing/uprobe_events ]; then
					t=/sys/kernel/tracing
				else
					mount -t tracefs nodev "$t" || exit 1
				fi
				exec "$@" -t "$t"' - "$W/tracefs" "$ARM" -p "$pid" \
			-l "$LIB" -s "$OTHERS" -R "$W/arm.ready" -r "${c#tf}" \
			-d "$SECS" > "$W/arm.out" & apid=$! ;;
		esac
		[ -z "$apid" ] || waitfile "$W/arm.ready"
		finish "$c"
		if [ -n "$apid" ]; then
			wait "$apid"
			sed "s/^/{\"case\":\"$c-arm\",\"round\":$r,\"arm\":/; s/\$/}/" \
				"$W/arm.out" >> "$RAW"
		fi
		for f in p50_ns p99_ns max_ns; do reqf "$c" "$f" >> "$W/acc.$c.$f"; done
		sed -n 's/.*"arm_ns":{[^}]*"max":\([0-9]*\).*/\1/p' "$W/arm.out" \
			>> "$W/acc.$c.armmax" 2>/dev/null || true
	done
done
echo "# request latency: $K launches + sync, ${GAP} us idle between, ${SECS} s x $R rounds interleaved"
echo "# (us; each cell: median of the rounds [min-max])"
printf '%-10s %22s %22s %26s\n' case p50 p99 max
for c in $cases; do
	line=$(printf '%-10s' "$c")
	for f in p50_ns p99_ns max_ns; do
		line+=$(sort -n "$W/acc.$c.$f" | awk '{ v[NR] = $1 } END {
			printf " %8.1f [%6.1f-%7.1f]", v[int((NR + 1) / 2)] / 1e3,
			       v[1] / 1e3, v[NR] / 1e3 }')
	done
	echo "$line"
done
echo "# arm/disarm times per case and round (ns; all in ${RAW#"$top"/})"
grep -h '"mode":"toggle"' "$RAW" | sed -n 's/.*"case":"\([a-z0-9]*\)-arm".*"rate":\([0-9]*\),"achieved":\([0-9.]*\).*"arm_ns":{"n":[0-9]*,"mean":\([0-9]*\),"p50":[0-9]*,"p99":\([0-9]*\),"max":\([0-9]*\)},"disarm_ns":{"n":[0-9]*,"mean":\([0-9]*\),"p50":[0-9]*,"p99":\([0-9]*\),"max":\([0-9]*\)}.*/\1 rate \2 achieved \3 arm mean\/p99\/max \4 \5 \6 disarm \7 \8 \9/p'
