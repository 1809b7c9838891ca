#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# L3 co-location kit: does gpreempt protect an online service from a
# training job on THIS GPU? Run on a host with an AMD GPU and ROCm, as
# root, from a built tree (make). Nothing here runs in CI (no machine of
# the project has an AMD GPU); its analysis step is tested on the host
# (tests/unit/test_snapshot_l3.c).
#
#   sudo scripts/l3-colocate.sh [--duration S] [--rate REQ/S] [--burst K]
#        [--min-cycles N] [--warmup S] [--workloads auto|hip|torch] [--out DIR]
#        [--runs "online-alone offline-alone both-plain both-notify
#                 both-launch both-queues"]
#   scripts/l3-colocate.sh --analyze-only DIR     (re-analyse, no GPU)
#
# Online: Poisson requests, each a burst of big-grid kernels (Case A):
# tests/l3/online.hip, or ResNet-50 batch 1 (tests/l3/online_resnet.py)
# when PyTorch with ROCm is importable. Offline: a small-grid loop
# reporting progress (Case B): tests/l3/offline.hip, or a small
# transformer training loop (tests/l3/offline_transformer.py).
# Six runs of --duration each: online alone, offline alone, both without
# gpreempt, both under the arbiter with notify (the online program says
# busy/idle on the daemon socket), both under the arbiter detecting
# launches, both under the arbiter watching queues (neither changes the
# online program). gpreempt-trace -j records every run.
# The same rows as the CUDA benchmark (bench/cuda/colocate.sh: alone,
# offline, shared, notify, launch; its MPS row has no AMD counterpart and
# queues none on NVIDIA): with python3, bench/cuda/report.py writes its
# table from this run, OUT/report.md (online p50/p99 as ratios to alone,
# offline to alone and to the ceiling, suspends/s, suspend and resume
# p50/p99 from the daemon's log, busy-to-suspended), printed at the end
# of a run; --analyze-only writes it and says where.
#
# Output DIR (default /tmp/gpreempt-colocate.XXXXXX; send it with a bug
# report): host.txt (kernel, GPU, firmware, ROCm), snapshot-*.json,
# debugfs-*.txt (raw MQD/HQD dumps), runs/NAME/{online,offline,trace}
# .ndjson + logs, summary.txt, summary.json (NDJSON: run, phase, verdict),
# plots/ (data, plots.gp, PNGs when gnuplot is installed).
#
# Exit: 0 every verdict passed, 1 a verdict failed, 2 bad usage or nothing
# to judge, 3 not root, 4 no /dev/kfd, 5 no ROCm workload (no hipcc and
# no PyTorch with ROCm), 6 the tree is not built (or no cc), 7 the
# analysis could not write its output.
#
# The PyTorch check: L3_PYTHON=PATH uses that interpreter (a venv's
# python) for the check and the PyTorch workloads; L3_PYTHON=none skips
# the check (HIP workloads), as --workloads hip does.
# Test hooks (tests/bats/l3kit.bats runs the whole kit with stand-ins from
# tests/kit/standin, no GPU): L3_KFD (device path checked instead of
# /dev/kfd), L3_BIN (folder of gpreempt-ctl and gpreempt-trace), L3_HIPCC.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kit=l3-colocate
. "$top/scripts/l3-lib.sh"
duration=30
burst=8
min_cycles=100
warmup=3
workloads=auto
runs="online-alone offline-alone both-plain both-notify both-launch both-queues"

l3_parse "--duration duration --rate rate --burst burst --min-cycles min_cycles
	--warmup warmup --workloads workloads --out out --runs runs
	--analyze-only analyze_only" "$@"
case $workloads in auto|hip|torch) ;; *) l3_die 2 "--workloads auto|hip|torch" ;; esac
l3_numbers "$duration" "$rate" "$burst" "$min_cycles" "$warmup"

# The analysis: a C program, built here (cc is there: the tree was built).
analyze() { # dir
	local bin=$1/l3-analyze
	cc -O2 -D_GNU_SOURCE -I"$top/tests/kit" -o "$bin" \
		"$top/tests/kit/l3-analyze.c" "$top/tests/kit/l3an.c" \
		"$top/tests/kit/l3an_out.c" -lm || l3_die 6 "cannot build the analysis (cc)"
	"$bin" --min-cycles "$min_cycles" "$1"
	local rc=$?
	[ $rc = 3 ] && l3_die 7 "the analysis could not write in $1"
	table "$1"
	if command -v gnuplot >/dev/null && [ -f "$1/plots/plots.gp" ]; then
		(cd "$1/plots" && gnuplot plots.gp) && echo "plots: $1/plots/*.png"
	else
		echo "plots: gnuplot not installed; data and plots.gp in $1/plots"
	fi
	return $rc
}

# The CUDA benchmark's table (bench/cuda/report.py) of the same rows.
table_print=0
table() { # dir
	if ! command -v python3 >/dev/null; then
		echo "table: python3 not found: the table of bench/cuda/report.py skipped"
	elif python3 "$top/bench/cuda/report.py" "$1" > "$1/report.md" 2> "$1/report.err"; then
		echo "table: $1/report.md (the rows and ratios of bench/cuda/colocate.sh)"
		[ $table_print = 1 ] && cat "$1/report.md"
	else
		echo "table: bench/cuda/report.py failed: $(tail -1 "$1/report.err")"
	fi
	return 0
}

l3_analyze_only "$analyze_only" runs
table_print=1

# Refuse clearly, before touching anything.
l3_need_root "suspending another process's queues needs CAP_SYS_PTRACE and the tracer needs CAP_BPF/CAP_PERFMON"
l3_need_kfd "a real GPU; the VM tests cover the rest"
l3_need_tools trace
python=${L3_PYTHON:-python3}
have_torch=0
if [ "$workloads" != hip ] && [ "$python" != none ]; then
	"$python" -c 'import torch, torchvision, sys; sys.exit(0 if torch.cuda.is_available() and torch.version.hip else 1)' \
		2>/dev/null && have_torch=1
fi
case $workloads in
auto) if [ $have_torch = 1 ]; then workloads=torch
      elif l3_have_hipcc; then workloads=hip
      else l3_die 5 "no ROCm workload: install hipcc (ROCm) or PyTorch for ROCm with torchvision (L3_PYTHON: $python)"; fi ;;
torch) [ $have_torch = 1 ] || l3_die 5 "--workloads torch: PyTorch with ROCm and torchvision not importable by $python (set L3_PYTHON)" ;;
hip) l3_have_hipcc || l3_die 5 "--workloads hip: hipcc not found (install ROCm)" ;;
esac
arbiter=1
"$ctl" daemon --help 2>/dev/null | grep -q -- '--online' || arbiter=0

l3_outdir gpreempt-colocate runs
echo "l3-colocate: output in $out"

# Which GPU and firmware this ran on.
{
	l3_host_lines
	echo "amdgpu sched_policy: $(cat /sys/module/amdgpu/parameters/sched_policy 2>/dev/null)"
	echo "workloads: $workloads; duration ${duration}s; rate ${rate}/s; burst $burst"
	for p in /opt/rocm/.info/version /opt/rocm/.info/version-dev; do
		[ -r "$p" ] && echo "rocm: $(cat "$p")"
	done
	command -v rocminfo >/dev/null && rocminfo 2>&1 | grep -E '^\s+(Name|Marketing Name|Compute Unit):' | head -12
	command -v amd-smi >/dev/null && { amd-smi static 2>&1 | head -60; amd-smi firmware 2>&1 | head -60; }
	command -v amd-smi >/dev/null || { command -v rocm-smi >/dev/null && rocm-smi --showproductname --showfwinfo 2>&1 | head -60; }
} > "$out/host.txt"
"$ctl" snapshot -j -v > "$out/snapshot-start.json" 2>&1
"$ctl" check > "$out/ctl-check.txt" 2>&1
grep -E '"type":"gpu"' "$out/snapshot-start.json" | head -4

# Build the workloads.
if [ $workloads = hip ]; then
	l3_build_hip online offline
	online_cmd=("$out/gp-l3-online" --rate "$rate" --burst "$burst" --duration "$duration")
	offline_cmd=("$out/gp-l3-offline" --duration $((${duration%.*} + 10)))
	online_sel="uid=$(id -u),cmdline=gp-l3-online"
	offline_sel="uid=$(id -u),cmdline=gp-l3-offline"
else
	online_cmd=("$python" "$top/tests/l3/online_resnet.py" --rate "$rate" --duration "$duration")
	offline_cmd=("$python" "$top/tests/l3/offline_transformer.py" --duration $((${duration%.*} + 10)))
	online_sel="uid=$(id -u),cmdline=online_resnet.py"
	offline_sel="uid=$(id -u),cmdline=offline_transformer.py"
fi

l3_trap

run() { # name
	local name=$1 d=$out/runs/$1 tpid fpid dpid="" sock mode
	mkdir -p "$d"
	echo "== run $name (${duration}s)"
	# when it began, and the UTC day of the daemon's HH:MM:SS log lines
	printf 'start_real_ns: %s\nutc_date: %s\n' "$(date +%s%N)" "$(date -u +%F)" > "$d/meta.txt"
	"$trace" -j --ready-file "$d/trace.ready" > "$d/trace.ndjson" 2> "$d/trace.err" &
	tpid=$!; pids+=("$tpid")
	wait_for 30 test -e "$d/trace.ready" || { echo "   tracer did not start: $(cat "$d/trace.err")"; return 1; }
	case $name in offline-alone|both-*)
		"${offline_cmd[@]}" > "$d/offline.ndjson" 2> "$d/offline.err" &
		fpid=$!; pids+=("$fpid")
		# let training reach steady state before measuring online
		sleep "$warmup"
		# the measured part begins (offline-alone's window; /proc/uptime
		# is CLOCK_BOOTTIME, the workloads' clock, in 10 ms steps)
		awk '{ printf "{\"type\":\"ready\",\"t_ns\":%.0f}\n", $1 * 1e9 }' \
			/proc/uptime > "$d/marks.ndjson" ;;
	esac
	sock=""
	case $name in both-notify|both-launch|both-queues)
		mode=${name#both-}
		sock=$d/arbiter.sock
		# TZ=UTC: its log's times are placed by bench/cuda/report.py
		TZ=UTC "$ctl" daemon --socket "$sock" --ready "$d/daemon.ready" \
			--online "$online_sel" --offline "$offline_sel" \
			--detect "$mode" > "$d/daemon.log" 2>&1 &
		dpid=$!; pids+=("$dpid")
		wait_for 30 test -e "$d/daemon.ready" || { echo "   daemon did not start: $(tail -3 "$d/daemon.log")"; return 1; }
		;;
	esac
	case $name in offline-alone)
		sleep "$duration" ;;
	*)
		if [ "$name" = both-notify ]; then
			"${online_cmd[@]}" --notify-socket "$sock" > "$d/online.ndjson" 2> "$d/online.err"
		else
			"${online_cmd[@]}" > "$d/online.ndjson" 2> "$d/online.err"
		fi
		echo "   online exit $?: $(wc -l < "$d/online.ndjson") requests" ;;
	esac
	if [ -n "$dpid" ]; then
		"$ctl" policy -j --socket "$sock" > "$d/policy.ndjson" 2>&1
		"$ctl" snapshot -j -v > "$d/snapshot.json" 2>&1
		cat /sys/kernel/debug/kfd/mqds > "$d/debugfs-mqds.txt" 2>&1
		cat /sys/kernel/debug/kfd/hqds > "$d/debugfs-hqds.txt" 2>&1
		kill -TERM "$dpid"; wait "$dpid"
		echo "   daemon exit $?"
	fi
	echo "end_real_ns: $(date +%s%N)" >> "$d/meta.txt"
	cleanup
	# nothing may stay suspended or traced
	if grep -q '"type":"error"' "$d/trace.ndjson" 2>/dev/null; then
		echo "   tracer reported errors (see trace.ndjson)"
	fi
}

for r in $runs; do
	case $r in
	both-notify|both-launch|both-queues)
		if [ $arbiter = 0 ]; then
			echo "== run $r skipped: this gpreempt-ctl daemon has no --online/--offline (arbiter not built)"
			continue
		fi ;;
	online-alone|offline-alone|both-plain) ;;
	*) l3_die 2 "unknown run '$r'" ;;
	esac
	run "$r"
done
"$ctl" snapshot -j -v > "$out/snapshot-end.json" 2>&1
l3_finish
