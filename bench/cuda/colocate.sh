#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CUDA co-location benchmark (L3n: another vendor's preemption, the
# CUDA driver's process lock; never an AMD figure): does gpreempt keep an
# online service's latency while a training job shares the NVIDIA GPU,
# and what does the training keep? One invocation runs interleaved
# rounds of these rows (each its own fresh processes, a bounded time):
#   alone    the online server alone
#   offline  the offline trainer alone
#   shared   both, no arbitration (the driver's default time-slicing)
#   notify   both under `gpreempt-ctl daemon --detect notify`; the server
#            says busy/idle on the daemon's socket (--notify)
#   launch   both under `gpreempt-ctl daemon --detect launch`; the server
#            says nothing
#   mps      both as clients of a private CUDA MPS server
# then prints the report (bench/cuda/report.py) and writes it to
# OUT/report.md.
#
#   bench/cuda/colocate.sh A|B [--rounds N] [--duration S] [--rate R]
#        [--rows alone,offline,shared,notify,launch,mps] [--budget S]
#        [--offline-batch N] [--online-batch N] [--smoke] [--out DIR]
#
# Case A: offline trains resnet50 (bf16 autocast, channels_last, batch
# 256: images/s); online serves a ~270 M-parameter Llama-style decoder,
# batch 1, 128-token prompt, 8 greedy tokens (rate 4/s). Case B: offline
# trains a ~250 M-parameter GPT-2-style model (16 x 1024 tokens a step:
# tokens/s); online serves resnet50 bf16 at batch 1 (rate 80/s). Random
# weights from configs: nothing is downloaded. Workloads:
# bench/cuda/online_server.py and offline_trainer.py (their headers give
# their output lines).
# A row with both: the trainer starts, the server starts and warms up,
# waits for the trainer's warm-up to end (its ready file), then serves
# --duration seconds of steady arrivals (open loop) and drains for at
# most --drain; the trainer is stopped after the server. The offline
# throughput is counted over the server's measured window.
# Rounds: --rounds at most (default 2), each all the rows in the order
# given; a round starts only if, at the pace of the rounds so far, it
# ends within --budget seconds of the start (default 450: a device
# command's 8 minutes, less the report). --duration (default 10 s) is a
# row's measured time; each row also pays ~20 s of start-up (PyTorch,
# transformers, the model, warm-up: measured on the H200), so a round of
# the six rows takes ~190 s. --smoke: 1 round of 8 s rows.
# Calibration (smoke run on the H200, driver 580.159.04, torch 2.11):
# Case A's server alone took ~200 ms a request with 16 tokens (86% busy
# at 4/s: CPU-bound decode steps), hence 8 tokens (~100 ms, ~40% busy);
# Case B's took 5.8 ms p50 (49% busy at 80/s). Offline alone: resnet50
# 4,640 images/s (13.5 GB), the GPT-2-style model 93,100 tokens/s (38 GB).
# A lock waits for the work the trainer has already submitted: at most
# one step, as each ends with loss.item() (~55 ms in A, ~175 ms in B at
# those rates); a smaller --offline-batch shortens the wait.
#
# The daemon rows run `$GP_BIN daemon --socket OUT/.../gp.sock --ready F
#   --online uid=UID,cmdline=online_server.py (UID: the runner's own)
#   --offline uid=UID,cmdline=offline_trainer.py
#   --detect notify|launch --metrics 127.0.0.1:PORT $GP_DAEMON_ARGS`
# with TZ=UTC (its log lines' HH:MM:SS.mmm are then UTC), and before
# stopping it save `policy`, `policy -j` and a /metrics scrape (a
# daemon that refuses --metrics is started again without it).
# GP_BIN: the gpreempt-ctl binary, or the folder that holds it (default:
# ./gpreempt-ctl of this tree); needed only by the notify and launch
# rows (without it they are skipped, and say so).
# Other environment: GPB_PYTHON (default python3), GP_DAEMON_ARGS,
# GPB_METRICS_PORT (9479; with a port the daemon refuses, 0, the row
# runs without metrics), GPB_MPS_CONTROL (nvidia-cuda-mps-control),
# GPB_WORKLOADS (a folder with stand-in online_server.py and
# offline_trainer.py: the test hook of tests/bats/cudabench.bats),
# GPB_COMMIT (the commit named in the report when OUT's tree has no git).
#
# Output OUT (default a new /tmp/gpb-cuda-CASE.XXXXXX): host.txt
# (nvidia-smi, driver, date, commit, arguments), rR/ROW/ for round R:
# online.ndjson, offline.ndjson, *.err, meta.txt (row start, UTC date,
# status), daemon.log, policy.txt, policy.json, metrics.txt,
# mps-log/; raw.tgz (the rR folders); report.md. After a daemon row,
# a trainer still LOCKED once the daemon has stopped (a CUDA lock outlives
# its locker) is reported (meta.txt left_locked, the row's status) and
# unlocked by bench/cuda/cudalock.py before it is stopped. Progress lines on
# stdout ("[+SECONDS] ...").
# Exit: 0 the report was written, 1 no row completed, 2 bad usage,
# 3 no Python (or no nvidia-smi, except with GPB_WORKLOADS), 130 stopped
# by SIGTERM/SIGINT (the rows done so far are reported: run it under
# `timeout` with room for the report, e.g. timeout 470 for 8 minutes).
set -uo pipefail
export PYTHONUNBUFFERED=1

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
	awk 'NR < 3 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"
}
die() { echo "colocate.sh: $2" >&2; exit "$1"; }

case ${1:-} in
-h|--help) usage; exit 0 ;;
A|B) case_=$1; shift ;;
'') die 2 "which case? A or B (see --help)" ;;
*) die 2 "unknown case '$1': A or B (see --help)" ;;
esac

rounds=2 duration=10 drain=3 rate="" budget=450 out="" smoke=0
rows=alone,offline,shared,notify,launch,mps
offline_batch="" online_batch="" warmup_requests=6
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--smoke) smoke=1; shift; continue ;;
	--rounds|--duration|--rate|--rows|--budget|--out|--offline-batch|\
	--online-batch|--drain)
		[ $# -ge 2 ] || die 2 "$1 needs a value" ;;
	*) die 2 "unknown option '$1' (see --help)" ;;
	esac
	case $1 in
	--rounds) rounds=$2 ;;
	--duration) duration=$2 ;;
	--drain) drain=$2 ;;
	--rate) rate=$2 ;;
	--rows) rows=$2 ;;
	--budget) budget=$2 ;;
	--out) out=$2 ;;
	--offline-batch) offline_batch=$2 ;;
	--online-batch) online_batch=$2 ;;
	esac
	shift 2
done
if [ $smoke = 1 ]; then
	rounds=1 duration=8 drain=3 warmup_requests=5
fi
num() { # name value: a positive number
	case $2 in ''|*[!0-9.]*|*.*.*|.) die 2 "$1: not a positive number: '$2'" ;; esac
}
int() {
	case $2 in ''|*[!0-9]*) die 2 "$1: not a whole number: '$2'" ;; esac
	[ "$2" -ge 1 ] || die 2 "$1: must be at least 1"
}
int --rounds "$rounds"
num --duration "$duration"
num --drain "$drain"
int --budget "$budget"
[ -z "$rate" ] || num --rate "$rate"
[ -z "$offline_batch" ] || int --offline-batch "$offline_batch"
[ -z "$online_batch" ] || int --online-batch "$online_batch"
IFS=, read -r -a rowlist <<< "$rows"
[ ${#rowlist[@]} -gt 0 ] || die 2 "--rows: empty"
for r in "${rowlist[@]}"; do
	case $r in alone|offline|shared|notify|launch|mps) ;;
	*) die 2 "--rows: unknown row '$r' (alone,offline,shared,notify,launch,mps)" ;;
	esac
done

if [ "$case_" = A ]; then
	on_args=(--model llm --rate "${rate:-4}" --new-tokens 8 --batch "${online_batch:-1}")
	off_args=(--model cnn --batch "${offline_batch:-256}" --warmup-steps 5)
else
	on_args=(--model cnn --rate "${rate:-80}" --batch "${online_batch:-1}")
	off_args=(--model lm --batch "${offline_batch:-16}" --warmup-steps 5)
fi

py=${GPB_PYTHON:-python3}
command -v "$py" >/dev/null || die 3 "no Python: $py (set GPB_PYTHON)"
wl=${GPB_WORKLOADS:-$here}
if [ -z "${GPB_WORKLOADS:-}" ]; then
	command -v nvidia-smi >/dev/null || die 3 "no nvidia-smi: this benchmark needs an NVIDIA GPU"
fi
ctl=${GP_BIN:-$top/gpreempt-ctl}
[ -d "$ctl" ] && ctl=$ctl/gpreempt-ctl
have_ctl=1
[ -x "$ctl" ] || have_ctl=0
mpsctl=${GPB_MPS_CONTROL:-nvidia-cuda-mps-control}
mport=${GPB_METRICS_PORT:-9479}
uid=$(id -u)

[ -n "$out" ] || out=$(mktemp -d "/tmp/gpb-cuda-$case_.XXXXXX")
mkdir -p "$out" || die 2 "cannot create $out"
t_start=$(date +%s)
say() { echo "[+$(( $(date +%s) - t_start ))s] $*"; }

{
	echo "date: $(date -u +%FT%TZ)"
	echo "case: $case_"
	echo "commit: ${GPB_COMMIT:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}"
	echo "args: rounds=$rounds duration=$duration drain=$drain rows=$rows budget=$budget"
	echo "online: ${on_args[*]}"
	echo "offline: ${off_args[*]}"
	echo "kernel: $(uname -r)"
	echo "gpreempt-ctl: $ctl ($([ $have_ctl = 1 ] && echo present || echo absent))"
	[ $have_ctl = 1 ] && echo "gpreempt-ctl sha256: $(sha256sum < "$ctl" | cut -c1-16)"
	if command -v nvidia-smi >/dev/null; then
		echo "gpu: $(nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode --format=csv,noheader 2>&1 | head -1)"
		nvidia-smi 2>&1 | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/cuda: \1/p' | head -1
	fi
	"$py" -c 'import torch; print("torch:", torch.__version__)' 2>/dev/null
} > "$out/host.txt"
say "colocate case $case_: output in $out"
cat "$out/host.txt"

# What this run started; stopped on every exit path (nothing may stay
# locked, suspended or running).
kids=() dpid="" mps_pipe=""
stop_pid() { # pid grace-seconds
	local p=$1 i
	kill -0 "$p" 2>/dev/null || { wait "$p" 2>/dev/null; return 0; }
	kill -TERM "$p" 2>/dev/null
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$p" 2>/dev/null && { echo "   pid $p still running: SIGKILL"; kill -KILL "$p" 2>/dev/null; }
	wait "$p" 2>/dev/null
	return 0
}
mps_stop() {
	local i
	[ -n "$mps_pipe" ] || return 0
	echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps_pipe "$mpsctl" >/dev/null 2>&1
	for ((i = 0; i < 100; i++)); do
		[ -e "$mps_pipe/control" ] || break
		sleep 0.1
	done
	rm -rf "$mps_pipe"
	mps_pipe=""
}
# A CUDA lock outlives its locker (bench/cuda/cudalock.py): a process
# the stopped daemon left locked is said and unlocked, never killed locked.
unlock_left() { # pid
	local st
	[ -z "${GPB_WORKLOADS:-}" ] && kill -0 "$1" 2>/dev/null || return 0
	st=$("$py" "$here/cudalock.py" state "$1" 2>&1)
	[ "$st" = locked ] || return 0
	say "pid $1 was left LOCKED after the daemon stopped: unlocking it ($("$py" "$here/cudalock.py" unlock "$1" 2>&1))"
	[ -n "$cur_meta" ] && echo "left_locked: pid $1" >> "$cur_meta"
	return 0
}
cur_meta=""
cleanup() {
	local p
	[ -n "$dpid" ] && stop_pid "$dpid" 10	# unlocks before the trainer goes
	dpid=""
	for p in "${kids[@]}"; do unlock_left "$p"; done
	for p in "${kids[@]}"; do stop_pid "$p" 15; done
	kids=()
	mps_stop
}
trap 'cleanup' EXIT
trap 'say "stopped by a signal: the report of the rows done so far"; finish; exit 130' INT TERM

wait_file() { # seconds file pid: the file appears, while pid lives
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		[ -e "$2" ] && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

start_daemon() { # dir mode [metrics]
	local d=$1 metrics=()
	[ -n "${3:-}" ] && metrics=(--metrics "127.0.0.1:$mport")
	rm -f "$d/daemon.ready"
	# shellcheck disable=SC2086
	TZ=UTC "$ctl" daemon --socket "$d/gp.sock" --ready "$d/daemon.ready" \
		--online "uid=$uid,cmdline=online_server.py" \
		--offline "uid=$uid,cmdline=offline_trainer.py" \
		--detect "$2" "${metrics[@]}" ${GP_DAEMON_ARGS:-} \
		>> "$d/daemon.log" 2>&1 &
	dpid=$!
	wait_file 30 "$d/daemon.ready" "$dpid" && return 0
	stop_pid "$dpid" 5
	dpid=""
	return 1
}

collect_daemon() { # dir
	local d=$1
	"$ctl" policy --socket "$d/gp.sock" > "$d/policy.txt" 2>&1
	"$ctl" policy -j --socket "$d/gp.sock" > "$d/policy.json" 2>&1
	"$py" - "$mport" > "$d/metrics.txt" 2>&1 <<-'EOF'
	import sys, urllib.request
	try:
	    print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=3).read().decode())
	except Exception as e:
	    print("# no metrics: %s" % e)
	EOF
}

gpu_mem() { # dir: what the GPU holds while the row measures
	[ -z "${GPB_WORKLOADS:-}" ] || return 0
	{
		echo "gpu_mem_used: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>&1 | head -1)"
		echo "compute_apps: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ';')"
	} >> "$1/meta.txt"
}

run_row() { # round row
	local d=$out/r$1/$2 row=$2 opid="" spid="" i tmax env=() note=""
	mkdir -p "$d"
	cur_meta=$d/meta.txt
	{
		echo "start_real_ns: $(date +%s%N)"
		echo "utc_date: $(date -u +%F)"
	} > "$d/meta.txt"
	case $row in notify|launch)
		if [ $have_ctl = 0 ]; then
			echo "status: skipped (no gpreempt-ctl at $ctl: set GP_BIN)" >> "$d/meta.txt"
			say "round $1 $row: skipped, no gpreempt-ctl ($ctl)"
			return 2
		fi
		if ! start_daemon "$d" "$row" metrics; then
			echo "   (the daemon did not start with --metrics: again without it)" >> "$d/daemon.log"
			if ! start_daemon "$d" "$row"; then
				echo "status: failed (the daemon did not start)" >> "$d/meta.txt"
				say "round $1 $row: FAILED, the daemon did not start: $(tail -2 "$d/daemon.log" | tr '\n' ' ')"
				return 1
			fi
		fi ;;
	mps)
		mps_pipe=$(mktemp -d /tmp/gpb-mps.XXXXXX)
		mkdir -p "$d/mps-log"
		env=(CUDA_MPS_PIPE_DIRECTORY="$mps_pipe" CUDA_MPS_LOG_DIRECTORY="$d/mps-log")
		if ! env "${env[@]}" "$mpsctl" -d > "$d/mps.err" 2>&1; then
			echo "status: failed (nvidia-cuda-mps-control -d: $(head -c 200 "$d/mps.err"))" >> "$d/meta.txt"
			say "round $1 mps: FAILED to start MPS: $(head -c 200 "$d/mps.err")"
			rm -rf "$mps_pipe"; mps_pipe=""
			return 1
		fi ;;
	esac
	case $row in alone) ;;
	*)
		env "${env[@]}" "$py" "$wl/offline_trainer.py" "${off_args[@]}" \
			--ready-file "$d/offline.ready" \
			> "$d/offline.ndjson" 2> "$d/offline.err" &
		opid=$!; kids+=("$opid") ;;
	esac
	if [ "$row" = offline ]; then
		if wait_file 180 "$d/offline.ready" "$opid"; then
			gpu_mem "$d"
			sleep "$duration"
		else
			note="offline never ready: $(tail -2 "$d/offline.err" | tr '\n' ' ')"
		fi
	else
		local nargs=() wargs=()
		[ "$row" = notify ] && nargs=(--notify --socket "$d/gp.sock")
		[ -n "$opid" ] && wargs=(--wait-file "$d/offline.ready")
		env "${env[@]}" "$py" "$wl/online_server.py" "${on_args[@]}" \
			--duration "$duration" --drain "$drain" \
			--warmup-requests "$warmup_requests" "${nargs[@]}" \
			"${wargs[@]}" > "$d/online.ndjson" 2> "$d/online.err" &
		spid=$!; kids+=("$spid")
		tmax=$(( 240 + ${duration%.*} + ${drain%.*} ))
		local sampled=0
		for ((i = 0; i < tmax * 10; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			if [ $sampled = 0 ] && grep -q '"request"' "$d/online.ndjson"; then
				sampled=1
				gpu_mem "$d"
			fi
			[ -n "$opid" ] && ! kill -0 "$opid" 2>/dev/null &&
				[ ! -e "$d/offline.ready" ] && break
			sleep 0.1
		done
		if kill -0 "$spid" 2>/dev/null; then
			note="online did not finish (offline: $(tail -1 "$d/offline.err"))"
			stop_pid "$spid" 5
		else
			wait "$spid"; i=$?
			[ $i = 0 ] || note="online exit $i: $(tail -2 "$d/online.err" | tr '\n' ' ')"
		fi
	fi
	if [ -n "$dpid" ]; then
		collect_daemon "$d"
		stop_pid "$dpid" 10
		dpid=""
	fi
	cleanup
	echo "end_real_ns: $(date +%s%N)" >> "$d/meta.txt"
	if [ -n "$note" ]; then
		echo "status: failed ($note)" >> "$d/meta.txt"
		say "round $1 $row: FAILED: $note"
		return 1
	fi
	if grep -q '^left_locked:' "$d/meta.txt"; then
		echo "status: ok (the daemon left the trainer locked: the runner unlocked it)" >> "$d/meta.txt"
	else
		echo "status: ok" >> "$d/meta.txt"
	fi
	say "round $1 $row: $(grep -h -E '^(online|offline): (done|[0-9])' "$d/online.err" "$d/offline.err" 2>/dev/null | tail -2 | tr '\n' ' ')"
	return 0
}

# The end, also on SIGTERM/SIGINT (a `timeout` around the runner): stop
# everything, pack the raw rows, print the report of the rows done.
finish() {
	local rc
	trap - EXIT INT TERM
	cleanup
	# the raw rows in one file: a copier that keeps two folder levels gets it
	(cd "$out" && tar -czf raw.tgz r[0-9]*) 2>/dev/null
	say "rows done: $done_rows; report:"
	"$py" "$here/report.py" "$out" > "$out/report.md" 2> "$out/report.err"
	rc=$?
	cat "$out/report.md"
	[ $rc = 0 ] || echo "report.py exit $rc: $(cat "$out/report.err")"
	echo "output: $out"
}

done_rows=0
for ((rnd = 1; rnd <= rounds; rnd++)); do
	now=$(date +%s)
	if [ $rnd -gt 1 ]; then
		per=$(( (now - t_start) / (rnd - 1) ))
		if [ $(( now + per - t_start )) -gt "$budget" ]; then
			say "round $rnd not started: at $per s a round it would end past --budget $budget s"
			break
		fi
	fi
	say "round $rnd of $rounds: rows ${rowlist[*]}"
	for r in "${rowlist[@]}"; do
		say "round $rnd $r: start"
		if run_row "$rnd" "$r"; then done_rows=$((done_rows + 1)); fi
	done
done
finish
[ $done_rows -gt 0 ] || exit 1
exit 0
