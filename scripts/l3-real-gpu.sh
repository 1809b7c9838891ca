#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# L3: run on a machine WITH an AMD GPU (ROCm installed, hipcc on PATH), as
# root, from a built tree (make). Nothing here is run by CI: no machine of
# the project has an AMD GPU. It checks what the VM cannot:
#  1. gpreempt-trace sees the workload's real queues being created;
#  2. gpreempt-ctl suspends them (every queue reported ok), the workload's
#     progress stops for the hold, and it continues after the resume;
#  3. gpreempt-trace records the suspend and resume with a queue count and
#     a duration, and the map shows the queues.
#   scripts/l3-real-gpu.sh [--hold SECONDS] [--workload "CMD"]
# CMD must print "tick <boot ns> <progress counter>" lines like
# tests/l3/spin.hip does. Artifacts go to a directory printed at the end;
# send it with a bug report.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
hold=2
workload=""
while [ $# -gt 0 ]; do
	case $1 in
	--hold) hold=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	*) echo "usage: $0 [--hold SECONDS] [--workload CMD]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 3; }
[ -c /dev/kfd ] || { echo "no /dev/kfd: is amdgpu loaded? (L3 needs a GPU)" >&2; exit 4; }

art=$(mktemp -d /tmp/gpreempt-l3.XXXXXX)
trace="$top/gpreempt-trace"
ctl="$top/gpreempt-ctl"
pass=0
fail=0
check() { # name cond-exit-status
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1));
	else echo "FAIL $1"; fail=$((fail + 1)); fi
}
cleanup() {
	[ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null
	[ -n "${tpid:-}" ] && kill -INT "$tpid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

{ uname -a; cat /sys/module/amdgpu/parameters/sched_policy 2>/dev/null; } > "$art/host.txt"
"$ctl" check > "$art/ctl-check.txt" 2>&1
check "gpreempt-ctl check" $?
"$trace" --check > "$art/trace-check.txt" 2>&1
check "gpreempt-trace --check" $?

if [ -z "$workload" ]; then
	command -v hipcc >/dev/null || { echo "hipcc not found: install ROCm or pass --workload" >&2; exit 1; }
	hipcc -O2 -o "$art/spin" "$top/tests/l3/spin.hip" || exit 1
	workload="$art/spin $((hold * 3 + 6))"
fi

"$trace" -j --ready-file "$art/trace.ready" > "$art/trace.ndjson" 2> "$art/trace.err" &
tpid=$!
for _ in $(seq 100); do [ -e "$art/trace.ready" ] && break; sleep 0.1; done
check "tracer attached" "$([ -e "$art/trace.ready" ]; echo $?)"

$workload > "$art/workload.out" 2>&1 &
wpid=$!
for _ in $(seq 100); do grep -q '^tick' "$art/workload.out" && break; sleep 0.1; done
check "workload makes progress" "$(grep -q '^tick' "$art/workload.out"; echo $?)"

"$ctl" -j list --pid "$wpid" > "$art/list.ndjson" 2>&1
check "gpreempt-ctl list shows the workload's queues" \
	"$(jq -e 'select(.type == "process" and .queues > 0)' \
	   "$art/list.ndjson" >/dev/null; echo $?)"

t0=$(awk '{ printf "%d", $1 * 1e9 }' /proc/uptime)
"$ctl" -j suspend --pid "$wpid" --for "${hold}s" > "$art/suspend.ndjson" 2>&1
rc=$?
t1=$(awk '{ printf "%d", $1 * 1e9 }' /proc/uptime)
check "suspend --for ${hold}s exits 0 (every queue ok)" "$rc"

# Progress inside the hold window (skip 300 ms at each edge) must be flat.
flat=$(awk -v a=$((t0 + 300000000)) -v b=$((t1 - 300000000)) '
	$1 == "tick" && $2 > a && $2 < b { if (min == "") min = $3; max = $3 }
	END { print (min != "" && max == min) ? 0 : 1 }' "$art/workload.out")
check "workload progress stalls while suspended" "$flat"
sleep 1
after=$(awk -v b="$t1" '$1 == "tick" && $2 > b' "$art/workload.out" | wc -l)
check "workload continues after resume" "$([ "$after" -gt 0 ]; echo $?)"

kill -INT "$tpid"; wait "$tpid"; tpid=""
check "tracer saw queue creation by the workload" \
	"$(jq -e --argjson p "$wpid" 'select(.op == "create" and .pid == $p and .ret == 0)' \
	   "$art/trace.ndjson" >/dev/null; echo $?)"
check "tracer saw the suspend, with queues done > 0" \
	"$(jq -e --argjson p "$wpid" 'select(.op == "suspend" and .target_pid == $p and .queues_done > 0)' \
	   "$art/trace.ndjson" >/dev/null; echo $?)"
check "tracer saw the resume" \
	"$(jq -e --argjson p "$wpid" 'select(.op == "resume" and .target_pid == $p)' \
	   "$art/trace.ndjson" >/dev/null; echo $?)"

echo "$pass passed, $fail failed; artifacts in $art"
[ "$fail" = 0 ]
