#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the CUDA backend promises, checked on a real NVIDIA GPU against
# real PyTorch processes (L3n: another vendor's preemption, the CUDA
# driver's process lock; never an AMD figure). Run on the GPU machine as
# root, never in CI (CI has no GPU: tests/bats/cuda.bats runs the same
# paths against a STAND-IN libcuda). Raw output is kept in
# bench/results/<date>/.
#
#   bench/cuda/device-checks.sh GPREEMPT_CTL [OUTDIR]
#
# GPREEMPT_CTL: a gpreempt-ctl built with `make PORTABLE=1` (glibc
# dynamic so that it can dlopen libcuda.so.1; libbpf static).
# Checks, each one line "check NAME: ok|FAIL ..." and its figures:
#   oneshot     `suspend --pid T --for 500ms`: exit 0; the trainer's
#               longest step gap covers the hold; running after
#   timeout     a lock behind a ~1 s kernel with --cuda-lock-timeout
#               100ms: refused (exit 13), the target left running
#   guardian    the daemon holds the trainer locked (notify busy) and is
#               SIGKILLed: its guardian unlocks the trainer
#   journal     the daemon and its guardian are both SIGKILLed while the
#               trainer is locked: it stays locked (the driver keeps a
#               lock whose locker died) until a new daemon starts and
#               unlocks it from the journal
#   maxhold     a busy that never ends: --max-hold 1s resumes the trainer
# Exit: 0 all ok, 1 a check failed, 2 bad usage.
set -uo pipefail
ctl=${1:-}
[ -x "$ctl" ] || { echo "usage: $0 GPREEMPT_CTL [OUTDIR]" >&2; exit 2; }
ctl=$(cd "$(dirname "$ctl")" && pwd)/$(basename "$ctl")
out=${2:-$(mktemp -d /tmp/gp-devchecks.XXXXXX)}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
py=${GPB_PYTHON:-python3}
fails=0
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		# never leave a process locked: the driver keeps a dead locker's lock
		"$py" "$here/cudalock.py" state "$p" 2>/dev/null | grep -q locked &&
			"$py" "$here/cudalock.py" unlock "$p" >/dev/null 2>&1
		kill -9 "$p" 2>/dev/null
	done
	pkill -9 -x gp-guardian 2>/dev/null
	pkill -9 -f "gpreempt-ctl daemon" 2>/dev/null
}
trap cleanup EXIT

say() { printf '[%s] %s\n' "$(date -u +%T.%3N)" "$*"; }
verdict() { # name ok|FAIL text
	echo "check $1: $2 $3"
	[ "$2" = ok ] || fails=$((fails + 1))
}
state() { "$py" "$here/cudalock.py" state "$1" 2>&1; }
# wait_state PID WANT SECONDS: 0 once PID's state is WANT
wait_state() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		[ "$(state "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# A bf16 matmul trainer (a step ~1.7 ms on an H200) that logs each step's
# CLOCK_MONOTONIC end, so a hold shows as one long gap; named gpc-train.
cat > "$out/gpc-train.py" <<'PY'
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(20): a @ a
torch.cuda.synchronize()
f = open(sys.argv[1], "w", buffering=1)
print("ready", flush=True)
while True:
    a @ a; torch.cuda.synchronize(); f.write("%.6f\n" % time.monotonic())
PY
# A CUDA process that sleeps on the GPU for N cycles per line of stdin.
cat > "$out/gpc-serve.py" <<'PY'
import sys, time, torch
torch.cuda._sleep(1000); torch.cuda.synchronize(); print("ready", flush=True)
for line in sys.stdin:
    torch.cuda._sleep(int(line)); torch.cuda.synchronize()
PY
start_train() { # LOGFILE -> $train
	coproc TR { exec "$py" "$out/gpc-train.py" "$1"; }
	train=$TR_PID
	pids+=("$train")
	read -r -t 120 _ <&"${TR[0]}"
}
# max_gap LOGFILE FROM: the longest gap, in ms, between steps after FROM
max_gap() {
	awk -v from="$2" '$1 >= from { if (p && $1 - p > m) m = $1 - p; p = $1 }
		END { printf "%.1f", m * 1000 }' "$1"
}
mono() { awk '{ print $1 }' /proc/uptime; }	# seconds, for logs only

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
date -u +%FT%TZ
"$ctl" --version 2>/dev/null | head -1

# --- oneshot
start_train "$out/train1.log"
sleep 1
t0=$("$py" -c 'import time; print("%.6f" % time.monotonic())')
"$ctl" suspend --pid "$train" --for 500ms > "$out/oneshot.txt" 2>&1
rc=$?
sleep 0.5
gap=$(max_gap "$out/train1.log" "$t0")
st=$(state "$train")
cat "$out/oneshot.txt"
if [ $rc = 0 ] && [ "$st" = running ] &&
   awk -v g="$gap" 'BEGIN { exit !(g >= 450 && g < 2000) }'; then
	verdict oneshot ok "(exit 0, longest step gap $gap ms for a 500 ms hold, $st after)"
else
	verdict oneshot FAIL "(exit $rc, longest step gap $gap ms, state $st)"
fi

# --- timeout: a lock behind a ~1 s kernel, bound 100 ms
coproc SV { exec "$py" "$out/gpc-serve.py"; }
serve=$SV_PID
pids+=("$serve")
read -r -t 120 _ <&"${SV[0]}"
echo 2000000000 >&"${SV[1]}"
sleep 0.2
"$ctl" suspend --pid "$serve" --for 200ms --cuda-lock-timeout 100ms > "$out/timeout.txt" 2>&1
rc=$?
st=$(state "$serve")
cat "$out/timeout.txt"
if [ $rc = 13 ] && [ "$st" = running ]; then
	verdict timeout ok "(exit 13, $st after)"
else
	verdict timeout FAIL "(exit $rc, want 13; state $st)"
fi

# --- guardian
sock=$out/gp.sock
run_daemon() { # LOG [ARGS...] -> $daemon
	local log=$1
	shift
	rm -f "$out/ready"
	"$ctl" daemon --socket "$sock" --ready "$out/ready" \
		--online "uid=0,cmdline=gpc-serve.py" \
		--offline "uid=0,cmdline=gpc-train.py" "$@" > "$log" 2>&1 &
	daemon=$!
	local i
	for ((i = 0; i < 600; i++)); do
		[ -e "$out/ready" ] && return 0
		kill -0 "$daemon" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
notify() { "$ctl" notify "$1" --socket "$sock" --pid "$serve"; }
if run_daemon "$out/daemon1.log"; then
	# the arbiter finds the trainer off the loop: give it the time to
	for ((i = 0; i < 100; i++)); do
		"$ctl" policy --socket "$sock" 2>/dev/null | grep -qw "$train" && break
		sleep 0.1
	done
	notify busy
	if wait_state "$train" locked 10; then
		kill -9 "$daemon"
		t0=$(date +%s.%N)
		if wait_state "$train" running 10; then
			dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
			verdict guardian ok "(daemon SIGKILLed while holding; the guardian unlocked the trainer within $dt ms)"
		else
			verdict guardian FAIL "(still $(state "$train") 10 s after the daemon's SIGKILL)"
		fi
	else
		verdict guardian FAIL "(notify busy did not lock the trainer: $(state "$train"))"
	fi
else
	verdict guardian FAIL "(the daemon did not start: $(tail -3 "$out/daemon1.log"))"
fi
pkill -9 -x gp-guardian 2>/dev/null
tail -15 "$out/daemon1.log"

# --- journal: daemon and guardian both SIGKILLed
if run_daemon "$out/daemon2.log"; then
	for ((i = 0; i < 100; i++)); do
		"$ctl" policy --socket "$sock" 2>/dev/null | grep -qw "$train" && break
		sleep 0.1
	done
	notify busy
	if wait_state "$train" locked 10; then
		pkill -9 -x gp-guardian
		kill -9 "$daemon"
		sleep 2
		st=$(state "$train")
		journal=$(cat /run/gpreempt/cuda-holds 2>/dev/null | head -3)
		if run_daemon "$out/daemon3.log" && wait_state "$train" running 10; then
			verdict journal ok "(both SIGKILLed: trainer $st 2 s later, journal '$journal'; a new daemon unlocked it at start)"
		else
			verdict journal FAIL "(after both SIGKILLs: $st; after a new daemon: $(state "$train"))"
		fi
		kill "$daemon" 2>/dev/null
		wait "$daemon" 2>/dev/null
	else
		verdict journal FAIL "(notify busy did not lock the trainer)"
	fi
else
	verdict journal FAIL "(the daemon did not start)"
fi
tail -8 "$out/daemon3.log" 2>/dev/null

# --- max-hold
if run_daemon "$out/daemon4.log" --max-hold 1s; then
	for ((i = 0; i < 100; i++)); do
		"$ctl" policy --socket "$sock" 2>/dev/null | grep -qw "$train" && break
		sleep 0.1
	done
	notify busy
	if wait_state "$train" locked 10 && wait_state "$train" running 5; then
		verdict maxhold ok "(a busy that never ends: locked, then resumed by --max-hold 1s)"
	else
		verdict maxhold FAIL "(state $(state "$train"))"
	fi
	kill "$daemon"
	wait "$daemon" 2>/dev/null
else
	verdict maxhold FAIL "(the daemon did not start)"
fi
tail -8 "$out/daemon4.log"
echo "device-checks: $fails failed"
[ $fails = 0 ]
