#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The CUDA backend (user/backend/cuda/) on the host, L1 with STAND-INS
# (CI has no GPU): tests/cuda/standin_libcuda.c is a STAND-IN
# libcuda.so.1 (loaded through LD_LIBRARY_PATH) whose lock is a file per
# pid, so it outlives its holder as the real one does (measured on an
# H200: docs/cuda.md); tests/cuda/standin_cuda_target.c is a STAND-IN
# CUDA process that maps it and counts only while unlocked. What the
# real driver does is not claimed here: that is the lead's L3n run.
# Waits are bounded generously (a loaded CI host is slow); none is a
# sleep sized for an idle host.

bats_require_minimum_version 1.5.0

load daemon_helper

setup() {
	daemon_setup
	OUTD=$(dirname "$CTL")/..
	STANDIN=$OUTD/tests/cuda-standin
	TGT_BIN=$OUTD/tests/standin_cuda_target
	[ -e "$STANDIN/libcuda.so.1" ] && [ -x "$TGT_BIN" ] ||
		skip "no stand-ins (make tests)"
	D=$(mktemp -d /tmp/gpcuda.XXXXXX)
	export GP_STANDIN_CUDA_DIR=$D LD_LIBRARY_PATH=$STANDIN
	J=$D/journal
	SOCK=$D/ctl.sock
	TGT=
	GUARD=
	"$TGT_BIN" 120 >/dev/null 2>&1 3>&- &
	TGT=$!
	wait_for "[ -s $D/$TGT.count ]"
}

teardown() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "$GUARD" ] && kill -9 "$GUARD" 2>/dev/null
	[ -n "$TGT" ] && kill -9 "$TGT" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$D"
}

# wait_for CONDITION: true within 20 s, else fail.
wait_for() {
	for _ in $(seq 200); do
		eval "$1" && return 0
		sleep 0.1
	done
	echo "# timed out waiting for: $1"
	return 1
}

count() { cat "$D/$TGT.count"; }
locked() { [ -e "$D/$TGT.locked" ]; }

# The stand-in target counts on within 20 s (it is running).
counts_on() {
	local c
	c=$(count)
	wait_for "[ \$(count) -gt $c ]"
}

# Locked: the count stands still (one increment may race the lock file).
stands_still() {
	local c1 c2
	sleep 0.05
	c1=$(count)
	sleep 0.2
	c2=$(count)
	[ "$c1" = "$c2" ]
}

start_daemon() {
	daemon_bg --socket "$SOCK" --cuda-journal "$J" "$@"
	GUARD=$(ps -o pid= --ppid "$DPID" | tr -d ' ' | head -1)
}

@test "cuda stand-in: one-shot suspend --for 200ms locks the target, holds, unlocks; the journal records the hold" {
	"$CTL" suspend --no-daemon --pid "$TGT" --for 1s --cuda-journal "$J" \
		>"$D/out" 2>&1 &
	local h=$!
	wait_for locked
	stands_still
	grep -q "^$TGT " "$J"
	wait "$h"
	! locked
	counts_on
	! grep -q "^$TGT " "$J"
	grep -q "locked pid $TGT (CUDA checkpoint lock" "$D/out"
	grep -q "unlocked pid $TGT" "$D/out"
	run -0 "$CTL" suspend --no-daemon --pid "$TGT" --for 200ms \
		--cuda-journal "$J"
	! locked
}

@test "cuda stand-in: the daemon suspends (reply after the lock), holds for_ns, unlocks at the deadline" {
	command -v curl >/dev/null || skip "no curl"
	MADDR=127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	start_daemon --metrics "$MADDR"
	run -0 "$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 2s
	[[ "$output" == *"suspend pid $TGT: 1 queue: 1 ok"* ]]
	locked
	grep -q "^$TGT " "$J"
	stands_still
	# status names the backend, its state and (no NVML here) all GPUs
	run -0 "$CTL" status --socket "$SOCK"
	[[ "$output" == *"pid $TGT"*"cuda suspended gpu all"* ]]
	run -0 curl -s "http://$MADDR/metrics"
	[[ "$output" == *'gpreempt_targets{backend="cuda",state="suspended"} 1'* ]]
	wait_for "! locked"
	counts_on
	! grep -q "^$TGT " "$J"
	grep -q "attached to pid $TGT (backend cuda" "$D/log"
	# resume of a held one, and of one not held
	run -0 "$CTL" suspend --socket "$SOCK" --pid "$TGT"
	locked
	run -0 "$CTL" resume --socket "$SOCK" --pid "$TGT"
	! locked
	run -0 "$CTL" resume --socket "$SOCK" --pid "$TGT"
}

@test "cuda stand-in: a lock that outlasts --cuda-lock-timeout fails with exit 13 and leaves the process running" {
	echo 3000 > "$D/$TGT.slow"
	run -13 "$CTL" suspend --no-daemon --pid "$TGT" --for 1s \
		--cuda-lock-timeout 100ms --cuda-journal "$J"
	[[ "$output" == *"CUresult 600"*"left running"*"--cuda-lock-timeout"* ]]
	! locked
	counts_on
	! grep -q "^$TGT " "$J"
	start_daemon --cuda-lock-timeout 100ms
	run -13 "$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 1s
	[[ "$output" == *"CUresult 600"* ]]
	! locked
	counts_on
}

@test "cuda stand-in: a non-CUDA pid and a dead pid are refused with exit 8, nothing locked" {
	sleep 100 3>&- &
	local plain=$! dead
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	run -8 "$CTL" suspend --no-daemon --pid "$plain" --for 1s \
		--cuda-journal "$J"
	[[ "$output" == *"does not map libcuda.so.1: not a CUDA process"* ]]
	run -8 "$CTL" suspend --no-daemon --pid "$dead" --cuda-journal "$J"
	start_daemon
	run -8 "$CTL" suspend --socket "$SOCK" --pid "$plain" --for 1s
	[[ "$output" == *"not a CUDA process"* ]]
	run -8 "$CTL" suspend --socket "$SOCK" --pid "$dead"
	kill "$plain"
	[ ! -s "$J" ] || ! grep -q . "$J"
}

@test "cuda stand-in: the daemon answers status while a lock waits for the GPU work in flight" {
	echo 4000 > "$D/$TGT.slow"
	start_daemon --cuda-lock-timeout 10s
	# the client waits as long as the daemon lets the lock wait
	"$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 1s \
		--cuda-lock-timeout 10s >"$D/out" 2>&1 &
	local s=$!
	wait_for "grep -q 'attached to pid $TGT' $D/log"
	run -0 "$CTL" status --socket "$SOCK"
	[[ "$output" == *"pid $TGT"* ]]
	# answered while the suspend still waited on the stand-in's lock
	kill -0 "$s"
	! locked
	wait "$s"
	grep -q "suspend pid $TGT: 1 queue: 1 ok" "$D/out"
}

@test "cuda stand-in: a SIGKILLed daemon's hold is unlocked by its guardian" {
	start_daemon
	[ -n "$GUARD" ]
	run -0 "$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 60s
	locked
	kill -9 "$DPID"
	wait_for "! locked"
	counts_on
	wait_for "! grep -q '^$TGT ' $J"
	grep -q "the holder died" "$D/log"
}

@test "cuda stand-in: with the guardian killed too, a restarted daemon unlocks from the journal" {
	start_daemon
	run -0 "$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 60s
	locked
	kill -9 "$GUARD" "$DPID"
	wait "$DPID" 2>/dev/null || true
	sleep 0.3
	locked
	grep -q "^$TGT " "$J"
	rm -f "$D/ready"
	start_daemon
	wait_for "! locked"
	grep -q "journal: pid $TGT unlocked" "$D/log"
	! grep -q "^$TGT " "$J"
	counts_on
}

@test "cuda stand-in: a journaled pid with another start time (recycled) is never unlocked" {
	# the stand-in's lock as another holder left it, journaled under a
	# start time that is not this process's
	: > "$D/$TGT.locked"
	echo "$TGT 1" > "$J"
	start_daemon
	grep -q "journal: pid $TGT is another process now" "$D/log"
	locked
	stands_still
	rm -f "$D/$TGT.locked"
}

@test "cuda stand-in: the arbiter locks an offline CUDA process on notify busy and unlocks it on idle" {
	cp "$TGT_BIN" "$D/gp-serve"
	"$D/gp-serve" 120 >/dev/null 2>&1 3>&- &
	local srv=$!
	wait_for "[ -s $D/$srv.count ]"
	# the offline one: this test's target, by pid
	start_daemon --online "uid=0,cmdline=$D/gp-serve" --offline "pid=$TGT"
	wait_for "grep -q 'offline pid $TGT .* attached' $D/log"
	wait_for "grep -q 'found online pid $srv' $D/log"
	run -0 "$CTL" notify busy --pid "$srv" --socket "$SOCK"
	wait_for locked
	stands_still
	run -0 "$CTL" notify idle --pid "$srv" --socket "$SOCK"
	wait_for "! locked"
	counts_on
	kill "$srv"
}

@test "cuda stand-in: policy names an offline process's backend and GPUs (text and -j)" {
	start_daemon --offline "pid=$TGT"
	wait_for "grep -q 'offline pid $TGT .* attached' $D/log"
	run -0 "$CTL" policy --socket "$SOCK"
	# no NVML in the stand-in: the backend cannot say which GPU, so all
	[[ "$output" == *"$TGT "*"offline"*"backend cuda, GPUs all"* ]]
	run -0 "$CTL" policy --socket "$SOCK" -j
	echo "$output" | jq -s -e --argjson p "$TGT" '[.[] | select(.type ==
		"proc" and .pid == $p)] | length == 1 and .[0].class ==
		"offline" and .[0].backend == "cuda" and .[0].gpus == "all"'
}

@test "cuda stand-in: idle while the arbiter's lock waits: the lock is undone as it lands, no failure" {
	cp "$TGT_BIN" "$D/gp-serve"
	"$D/gp-serve" 120 >/dev/null 2>&1 3>&- &
	local srv=$!
	start_daemon --online "uid=0,cmdline=$D/gp-serve" --offline "pid=$TGT" \
		--cuda-lock-timeout 10s
	wait_for "grep -q 'offline pid $TGT .* attached' $D/log"
	wait_for "grep -q 'found online pid $srv' $D/log"
	# the lock waits 1 s for the stand-in's kernel in flight
	echo 1000 > "$D/$TGT.slow"
	run -0 "$CTL" notify busy --pid "$srv" --socket "$SOCK"
	run -0 "$CTL" notify idle --pid "$srv" --socket "$SOCK"
	wait_for "grep -q 'resume pid $TGT (idle): after the lock in flight' $D/log"
	wait_for "grep -q 'suspend pid $TGT (busy): 1 queues' $D/log"
	wait_for "grep -q 'resume pid $TGT (idle): 1 queues (all), 1 ok' $D/log"
	! locked
	counts_on
	run -0 "$CTL" policy --socket "$SOCK"
	[[ "$output" == *"$TGT"*"offline"*"running"*"0 failures"* ]]
	kill "$srv"
}

@test "cuda stand-in: check reports the CUDA backend and does not block on the missing KFD" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	run -0 "$CTL" check
	[[ "$output" == *"cuda "*"driver API 13000: checkpoint lock present"* ]]
	[[ "$output" == *"verdict: suspend/resume of CUDA processes can work here"* ]]
	LD_LIBRARY_PATH= run -4 "$CTL" check
	[[ "$output" == *"cuda "*"absent"* ]]
}

@test "cuda stand-in: list names CUDA processes, their backend, state and GPUs" {
	run -0 "$CTL" list
	[[ "$output" == *"CUDA processes (backend cuda):"* ]]
	[[ "$output" == *"$TGT "*"running"*"all (no NVML)"* ]]
	: > "$D/$TGT.locked"
	run -0 "$CTL" list --pid "$TGT" -j
	[[ "$output" == *'"pid":'"$TGT"*'"backend":"cuda","state":"locked"'* ]]
	rm -f "$D/$TGT.locked"
	LD_LIBRARY_PATH= run -0 "$CTL" list
	[[ "$output" != *"CUDA processes"* ]]
}

@test "cuda stand-in: a one-shot holder's guardian leaves a live daemon's holds in the shared journal alone" {
	"$TGT_BIN" 120 >/dev/null 2>&1 3>&- &
	local other=$!
	wait_for "[ -s $D/$other.count ]"
	start_daemon
	run -0 "$CTL" suspend --socket "$SOCK" --pid "$TGT" --for 60s
	locked
	# a one-shot holder on another process, same journal, then gone
	run -0 "$CTL" suspend --no-daemon --pid "$other" --for 100ms \
		--cuda-journal "$J"
	[ ! -e "$D/$other.locked" ]
	# its guardian had 1 s and more to act: the daemon's hold stays
	sleep 2
	locked
	grep -q "^$TGT " "$J"
	run -0 "$CTL" resume --socket "$SOCK" --pid "$TGT"
	! locked
	kill "$other"
}

@test "cuda stand-in: SIGTERM while a lock waits: the daemon waits for it to land, unlocks, exits 0" {
	# lands 0.8 s later, within the shutdown's 2 s (past them, the
	# guardian would unlock it: the waits below allow for a slow host)
	echo 800 > "$D/$TGT.slow"
	start_daemon --cuda-lock-timeout 5s
	"$CTL" suspend --socket "$SOCK" --pid "$TGT" --cuda-lock-timeout 5s \
		>/dev/null 2>&1 &
	wait_for "grep -q 'attached to pid $TGT' $D/log"
	kill "$DPID"
	local st=0
	wait "$DPID" || st=$?
	DPID=
	[ "$st" = 0 ]
	wait_for "! locked"
	wait_for "! grep -q '^$TGT ' $J"
	counts_on
}
