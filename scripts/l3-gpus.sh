#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# L3 per-GPU kit: does an online kernel on GPU A keep its latency while
# offline work on GPU B is suspended and resumed, and does it not with
# node-wide suspension? Needs a host with two or more AMD GPU nodes (cards
# or CPX partitions), ROCm's hipcc, root, a built tree (make). Nothing here
# runs in CI (no machine of the project has an AMD GPU); the analysis
# (--analyze-only) is tested on the host (tests/bats/l3kit.bats).
#
#   sudo scripts/l3-gpus.sh [--duration S] [--rate REQ/S] [--burst K]
#        [--hold-ms MS] [--period-ms MS] [--out DIR]
#   scripts/l3-gpus.sh --analyze-only DIR     (re-analyse, no GPU)
#
# GPU A and B: the first two GPU nodes of the KFD topology (their gpu_ids
# are printed). Workloads (tests/l3): online.hip on A; offline.hip once on
# A (off-a) and once on B (off-b). Three runs of --duration:
#   baseline  nothing is suspended
#   per-gpu   every --period-ms, off-b's queues on B are suspended for
#             --hold-ms: gpreempt-ctl suspend --gpu B (what --scope gpu does
#             for a request on B)
#   node      the same toggles, but every queue of both offline processes
#             (what --scope node does: GPU A's runlist is re-run too)
# Verdicts (VERDICT lines, and summary.json NDJSON):
#   online_p99_per_gpu   online p99 under per-GPU toggles <= 1.10 x baseline
#   off_a_per_gpu        off-a's progress under per-GPU toggles >= 0.95 x
#                        baseline (training on A is left running)
#   per_gpu_vs_node      online p99 per-GPU <= node (the claim's contrast)
# Exit: 0 every verdict passed, 1 a verdict failed, 2 bad usage or nothing
# to judge, 3 not root, 4 no /dev/kfd, 5 no hipcc, 6 the tree is not built,
# 8 fewer than two GPU nodes.
# Test hooks: L3_KFD (device path checked instead of /dev/kfd), L3_BIN,
# L3_HIPCC, L3_TOPO (topology root instead of /sys/class/kfd/kfd/topology).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kit=l3-gpus
. "$top/scripts/l3-lib.sh"
duration=20
burst=8
hold_ms=20
period_ms=100

l3_parse "--duration duration --rate rate --burst burst --hold-ms hold_ms
	--period-ms period_ms --out out --analyze-only analyze_only" "$@"
l3_numbers "$duration" "$rate" "$burst" "$hold_ms" "$period_ms"

# p50 p99 (ms) of online requests, and offline iterations per second.
online_pct() { # online.ndjson
	jq -r 'select(.type == "request" and (.error | not))
	       | (.end_ns - .start_ns) / 1e6' "$1" 2>/dev/null | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print "nan nan 0"; exit }
			i = int(NR * 0.99); if (i < NR * 0.99) i++
			printf "%.3f %.3f %d\n", v[int((NR + 1) / 2)], v[i], NR }'
}
offline_rate() { # offline.ndjson
	jq -r 'select(.type == "progress") | "\(.t_ns) \(.iters)"' "$1" 2>/dev/null |
		awk 'NR == 1 { t0 = $1; i0 = $2 } { t = $1; i = $2 }
		     END { if (NR < 2 || t == t0) print "nan"
			   else printf "%.1f\n", (i - i0) / ((t - t0) / 1e9) }'
}

verdict() { # name value limit pass(0/1) json
	local r=FAIL
	[ "$4" = 1 ] && r=PASS
	[ "$r" = FAIL ] && fails=$((fails + 1))
	printf 'VERDICT %-20s %10s %10s  %s\n' "$1" "$2" "$3" "$r"
	printf '{"type":"verdict","name":"%s","value":"%s","limit":"%s","result":"%s"}\n' \
		"$1" "$2" "$3" "$r" >> "$5"
}

analyze() { # dir
	local d=$1 json=$1/summary.json r b g n ob og
	fails=0
	: > "$json"
	for r in baseline per-gpu node; do
		[ -s "$d/runs/$r/online.ndjson" ] || l3_die 2 "$d/runs/$r/online.ndjson missing: nothing to judge"
	done
	read -r _ b _ <<< "$(online_pct "$d/runs/baseline/online.ndjson")"
	read -r _ g _ <<< "$(online_pct "$d/runs/per-gpu/online.ndjson")"
	read -r _ n _ <<< "$(online_pct "$d/runs/node/online.ndjson")"
	ob=$(offline_rate "$d/runs/baseline/off-a.ndjson")
	og=$(offline_rate "$d/runs/per-gpu/off-a.ndjson")
	for r in baseline per-gpu node; do
		printf 'run %-9s online p50/p99 %s ms (%s requests), off-a %s it/s, off-b %s it/s\n' "$r" \
			"$(online_pct "$d/runs/$r/online.ndjson" | awk '{ print $1 "/" $2 }')" \
			"$(online_pct "$d/runs/$r/online.ndjson" | awk '{ print $3 }')" \
			"$(offline_rate "$d/runs/$r/off-a.ndjson")" \
			"$(offline_rate "$d/runs/$r/off-b.ndjson")"
		printf '{"type":"run","run":"%s","online_p99_ms":"%s"}\n' "$r" \
			"$(online_pct "$d/runs/$r/online.ndjson" | awk '{ print $2 }')" >> "$json"
	done
	verdict online_p99_per_gpu "$g" "$(awk -v b="$b" 'BEGIN { printf "%.3f", b * 1.10 }')" \
		"$(awk -v g="$g" -v b="$b" 'BEGIN { print (g == g && b == b && g <= b * 1.10) }')" "$json"
	verdict off_a_per_gpu "$og" "$(awk -v b="$ob" 'BEGIN { printf "%.1f", b * 0.95 }')" \
		"$(awk -v g="$og" -v b="$ob" 'BEGIN { print (g == g && b == b && g >= b * 0.95) }')" "$json"
	verdict per_gpu_vs_node "$g" "$n" \
		"$(awk -v g="$g" -v n="$n" 'BEGIN { print (g == g && n == n && g <= n) }')" "$json"
	[ $fails = 0 ]
}

l3_analyze_only "$analyze_only" runs

l3_need_root "suspending another process's queues needs CAP_SYS_PTRACE"
l3_need_kfd "real GPUs"
l3_need_tools
l3_need_hipcc
# GPU nodes in topology order: ROCr enumerates its GPU agents in this
# order, so ROCR_VISIBLE_DEVICES=k launches on the k-th (the kit's only
# use of an index; gpreempt itself names GPUs by gpu_id).
topo=${L3_TOPO:-/sys/class/kfd/kfd/topology}
gpus=()
for n in $(ls "$topo/nodes" | sort -n); do
	id=$(cat "$topo/nodes/$n/gpu_id" 2>/dev/null)
	[ -n "$id" ] && [ "$id" != 0 ] && gpus+=("$id")
done
[ ${#gpus[@]} -ge 2 ] || l3_die 8 "fewer than two GPU nodes in $topo: per-GPU arbitration needs two"
gpu_a=${gpus[0]} gpu_b=${gpus[1]}

l3_outdir gpreempt-gpus runs
echo "l3-gpus: GPU A gpu_id $gpu_a, GPU B gpu_id $gpu_b; output in $out"
l3_build_hip online offline
l3_trap

toggler() { # mode off-a-pid off-b-pid
	local hold="${hold_ms}ms"
	while :; do
		if [ "$1" = per-gpu ]; then
			"$ctl" suspend --no-daemon -p "$3" --gpu "$gpu_b" --for "$hold" >/dev/null 2>&1
		else
			"$ctl" suspend --no-daemon -p "$2" --for "$hold" >/dev/null 2>&1 &
			"$ctl" suspend --no-daemon -p "$3" --for "$hold" >/dev/null 2>&1
			wait
		fi
		sleep "$(awk -v p="$period_ms" 'BEGIN { printf "%.3f", p / 1000 }')"
	done
}

run() { # name
	local d=$out/runs/$1 fa fb tg=""
	mkdir -p "$d"
	echo "== run $1 (${duration}s)"
	ROCR_VISIBLE_DEVICES=0 "$out/gp-l3-offline" --duration $((${duration%.*} + 10)) > "$d/off-a.ndjson" 2> "$d/off-a.err" &
	fa=$!; pids+=("$fa")
	ROCR_VISIBLE_DEVICES=1 "$out/gp-l3-offline" --duration $((${duration%.*} + 10)) > "$d/off-b.ndjson" 2> "$d/off-b.err" &
	fb=$!; pids+=("$fb")
	sleep 3	# training at steady state
	if [ "$1" != baseline ]; then
		toggler "$1" "$fa" "$fb" &
		tg=$!; pids+=("$tg")
	fi
	ROCR_VISIBLE_DEVICES=0 "$out/gp-l3-online" --rate "$rate" --burst "$burst" \
		--duration "$duration" > "$d/online.ndjson" 2> "$d/online.err"
	echo "   online exit $?: $(wc -l < "$d/online.ndjson") requests"
	[ -n "$tg" ] && kill "$tg" 2>/dev/null
	cleanup
}
for r in baseline per-gpu node; do run "$r"; done
l3_finish
