#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The launch detector's cost to an online CUDA server, on the lent NVIDIA
# GPU (L3n: NVIDIA's driver and PyTorch; never AMD's figures). Issue 34;
# docs/arbiter.md, "Launch detection: what a trap costs and the levers".
#
#   bench/cuda-detect-cost.sh build    here: the probe tools, glibc dynamic
#                                      and libbpf/libelf/zlib static (the
#                                      GPU machine has no libbpf, no clang)
#                                      into .output/cuda
#   bench/cuda-detect-cost.sh run      there, as root: the benchmark
#
# run: one PyTorch process per workload (bench/cuda_loop.py: eager, 128
# launches a request; launchbound, > 50,000 launches/s; graph, one graph
# replay a request), each request ending in a synchronize. Per workload,
# R rounds, and in each round the cases one after the other on the same
# process (interleaved), SECS each:
#   none    no probe
#   today   pid-scoped perf uprobes on libcuda's launch entry points and
#           sync calls, held armed (every call traps, as with today's
#           detector; its sync probes are uretprobes, a second trap per
#           sync that this case does not take; bench/uprobe-arm counts
#           the traps)
#   armed   the armed-while-idle prototype (tests/detect/arm-run: launch
#           probes in only while idle, sync probes always)
# Prints one JSON line per workload, case and round, then a table of
# p50/p99 per case with the spread over rounds. Env: R (3), SECS (3),
# CUDA_LIB (libcuda.so.1 of the process, found in its maps), PY (python3);
# LOOP, LIBPAT, LAUNCH and SYNC let a stand-in workload replace PyTorch.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=$top/.output/cuda
LAUNCH=${LAUNCH:-"cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchKernelEx_ptsz cuLaunchCooperativeKernel cuLaunchCooperativeKernel_ptsz cuGraphLaunch cuGraphLaunch_ptsz"}
SYNC=${SYNC:-"cuCtxSynchronize cuStreamSynchronize cuStreamSynchronize_ptsz cuEventSynchronize"}
LOOP=${LOOP:-bench/cuda_loop.py}	# a stand-in may replace it (LIBPAT too)
LIBPAT=${LIBPAT:-'libcuda\.so'}

build() {
	local libs="-Wl,-Bstatic -lbpf -lelf -lz -lzstd -Wl,-Bdynamic"

	mkdir -p "$B"
	make -s -f bench/bench.mk OUTPUT="$B" LDLIBS="$libs" "$B/uprobe-arm"
	make -s OUTPUT="$B" "$B/detect_arm.skel.h"
	cc -O2 -g -std=gnu11 -Wall -Werror -D_GNU_SOURCE -I"$B" -Ibpf \
		-Iuser/detect tests/detect/arm-run.c user/detect/detect_armed.c \
		$libs -o "$B/arm-run"
	ldd "$B/uprobe-arm" "$B/arm-run"
}

[ "${1:-}" = build ] && { build; exit 0; }
[ "${1:-}" = run ] || { echo "usage: $0 build|run" >&2; exit 2; }

R=${R:-3}
SECS=${SECS:-3}
PY=${PY:-python3}
[ -x "$B/uprobe-arm" ] && [ -x "$B/arm-run" ] ||
	{ echo "no $B/uprobe-arm or arm-run: run '$0 build' first" >&2; exit 1; }
TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/uprobe_events" ] || mount -t tracefs nodev "$TRACEFS"
W=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT
mkfifo "$W/hold"	# the probes' input: held open while a round runs

waitline() { # file pattern [count]
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "${3:-1}" ] &&
			return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1" >&2
	cat "$1" >&2
	exit 1
}

waitfile() { # file
	local i
	for ((i = 0; i < 600; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	cat "$W/arm.out" >&2
	exit 1
}

# the names of list that lib exports, comma-separated
present() {
	"$PY" - "$1" $2 <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(",".join(n for n in sys.argv[2:] if hasattr(lib, n)))
EOF
}

echo "# $(date -u +%FT%TZ) $(uname -r) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
echo "# R=$R SECS=$SECS"
for wl in eager launchbound graph; do
	mkfifo "$W/$wl.in"
	"$PY" "$LOOP" "$wl" < "$W/$wl.in" > "$W/$wl.out" 2> "$W/$wl.err" &
	pids+=($!)
	pid=$!
	exec {fd}> "$W/$wl.in"
	waitline "$W/$wl.out" '"ready"'
	lib=${CUDA_LIB:-$(awk -v p="$LIBPAT" '$NF ~ p { print $NF; exit }' "/proc/$pid/maps")}
	lib=/proc/$pid/root$lib
	launch=$(present "$lib" "$LAUNCH")
	sync=$(present "$lib" "$SYNC")
	echo "# $wl: pid $pid, $lib; launch: $launch; sync: $sync"
	n=0
	for ((r = 0; r < R; r++)); do
		for c in none today armed; do
			apid=
			rm -f "$W/arm.ready"
			case $c in
			today)	"$B/uprobe-arm" -p "$pid" -l "$lib" -s "$launch,$sync" \
					-R "$W/arm.ready" < "$W/hold" > "$W/arm.out" &
				apid=$! ;;
			armed)	"$B/arm-run" -p "$pid" -l "$lib" -L "$launch" -S "$sync" \
					-T "$TRACEFS" -r "$W/arm.ready" < "$W/hold" \
					> "$W/arm.out" 2>&1 &
				apid=$! ;;
			esac
			if [ -n "$apid" ]; then
				exec {hfd}> "$W/hold"
				waitfile "$W/arm.ready"
			fi
			echo "round $SECS $c" >&"$fd"
			n=$((n + 1))
			waitline "$W/$wl.out" '"tag"' "$n"
			line=$(grep '"tag"' "$W/$wl.out" | tail -n1)
			if [ -n "$apid" ]; then
				exec {hfd}>&-
				wait "$apid" || true
				probe=$(tail -n1 "$W/arm.out")
				echo "${line%\}},\"round\":$r,\"probe\":$probe}"
			else
				echo "${line%\}},\"round\":$r}"
			fi
		done
	done | tee "$W/$wl.res"
	echo quit >&"$fd"
	exec {fd}>&-
	wait "$pid" || true
done
echo "# per workload and case: p50 and p99 (us), median of $R rounds [min-max]; launches/s"
cat "$W"/*.res | "$PY" -c '
import json, sys, statistics as st
rows = {}
for l in sys.stdin:
    if not l.startswith("{"):
        continue
    d = json.loads(l)
    rows.setdefault((d["workload"], d["tag"]), []).append(d)
for (wl, tag), v in sorted(rows.items()):
    f = lambda k: "%8.1f [%7.1f-%7.1f]" % (st.median(x[k] for x in v),
                                          min(x[k] for x in v), max(x[k] for x in v))
    traps = [x["probe"].get("traps") for x in v if "probe" in x]
    print("%-12s %-6s p50 %s p99 %s launches/s %9d traps %s" % (
        wl, tag, f("p50_us"), f("p99_us"),
        st.median(x["launches_per_s"] for x in v), traps))
'
