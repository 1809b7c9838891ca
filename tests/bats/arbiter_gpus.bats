#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Per-GPU arbitration's surface on the host (root, no AMD GPU, no KFD):
# --scope/--gang on the command line, in --config and on reload, notify's
# gpu= field through the socket, and `policy` showing the per-GPU
# machines. Queue placement comes from a STAND-IN sysfs tree
# (--kfd-proc: <pid>/queues/<qid>/{gpuid,type,size}, the kernel's
# format). Suspending needs KFD: tests/vm/64-arbiter-gpus-daemon.sh.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	command -v jq >/dev/null || skip "no jq"
	D=$BATS_TEST_TMPDIR
	SOCK=$D/gpus.sock
	CONF=$D/gpreempt.conf
	ST=$D/kfd-standin
	DPID= S=
}

teardown() {
	daemon_teardown "$S"
}

load daemon_helper

standin_queue() { # pid qid gpu_id
	mkdir -p "$ST/$1/queues/$2"
	printf '%u\n' "$3" > "$ST/$1/queues/$2/gpuid"
	printf '0\n' > "$ST/$1/queues/$2/type"
	printf '1048576\n' > "$ST/$1/queues/$2/size"
}

pol() { # JQ over `policy -j`
	run -0 "$CTL" policy -j -s "$SOCK"
	echo "$output" | jq -s -e "$1"
}

reload() { # TEXT
	local n
	n=$(grep -c "reloaded" "$D/log" || true)
	kill -HUP "$DPID"
	for _ in $(seq 100); do
		[ "$(grep -c "reloaded" "$D/log")" -gt "$n" ] &&
			grep -qF -- "$1" "$D/log" && return 0
		sleep 0.05
	done
	cat "$D/log"
	return 1
}

@test "daemon --scope/--gang: bad values refused before anything starts (exit 2)" {
	run -2 "$CTL" daemon -s "$SOCK" --offline uid=0,comm=x --scope card
	[[ "$output" == *"--scope: 'card' is not gpu or node"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --offline uid=0,comm=x --gang job
	[[ "$output" == *"--gang: 'job' is not cgroup, pgid or none"* ]]
	[ ! -e "$SOCK" ]
}

@test "per-GPU by default: busy with gpu= drives only that GPU's machine; gang cgroup by default" {
	sleep 300 & S=$!
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nkfd-proc %s\n' \
		"$SOCK" "$S" "$ST" > "$CONF"
	mkdir -p "$ST"
	daemon_bg --config "$CONF"
	grep -q "arbiter: .*--scope gpu, --gang cgroup" "$D/log"
	pol '[.[] | select(.type == "scope")][0] | .scope == "gpu" and .gang == "cgroup"'
	run -0 "$CTL" notify busy --pid "$S" --gpu 10001,10002 -s "$SOCK"
	pol '[.[] | select(.type == "gpu" and .state == "busy")] | map(.gpu_id) == [10001, 10002]'
	run -0 "$CTL" notify idle --pid "$S" --gpu 10002 -s "$SOCK"
	pol '[.[] | select(.type == "gpu" and .online_busy == 1)] | map(.gpu_id) == [10001]'
	# text: one line per GPU
	run -0 "$CTL" policy -s "$SOCK"
	[[ "$output" == *"scope gpu, gang cgroup"* ]]
	[[ "$output" == *"gpu 10001"*"(online busy)"* ]]
	# bad gpu field: refused with the reason, nothing changed
	run -2 "$CTL" daemon -s "$SOCK" --send "busy pid=$S gpu=0"
	[[ "$output" == *"gpu is one or more distinct non-zero KFD gpu_ids"* ]]
	run -2 "$CTL" notify busy --pid "$S" --gpu 1,1 -s "$SOCK"
	pol '[.[] | select(.type == "gpu")] | length == 2'
}

@test "notify without gpu=: the GPUs of the process's queues (stand-in sysfs)" {
	sleep 300 & S=$!
	standin_queue "$S" 0 10003
	standin_queue "$S" 1 10004
	standin_queue "$S" 2 10003
	daemon_bg -s "$SOCK" --online pid="$S" --offline uid=0,comm=no-such-job \
		--kfd-proc "$ST"
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	pol '[.[] | select(.type == "gpu" and .state == "busy")] | map(.gpu_id) == [10003, 10004]'
}

@test "--scope node: no per-GPU machine, today's node-wide policy" {
	sleep 300 & S=$!
	daemon_bg -s "$SOCK" --online pid="$S" --offline uid=0,comm=no-such-job \
		--scope node --gang none
	run -0 "$CTL" notify busy --pid "$S" --gpu 10001 -s "$SOCK"
	pol '([.[] | select(.type == "scope")][0] | .scope == "node" and .gang == "none") and ([.[] | select(.type == "gpu")] | length == 0) and ([.[] | select(.type == "arbiter")][0].online_busy == 1)'
}

@test "reload: --scope and --gang change on SIGHUP, a bad value changes nothing" {
	sleep 300 & S=$!
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\n' "$SOCK" "$S" > "$CONF"
	daemon_bg --config "$CONF"
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nscope node\ngang pgid\n' "$SOCK" "$S" > "$CONF"
	reload "--scope node, --gang pgid"
	pol '[.[] | select(.type == "scope")][0] | .scope == "node" and .gang == "pgid"'
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nscope rack\n' "$SOCK" "$S" > "$CONF"
	kill -HUP "$DPID"
	for _ in $(seq 100); do
		grep -q "'rack' is not gpu or node" "$D/log" && break
		sleep 0.05
	done
	grep -q "'rack' is not gpu or node" "$D/log"
	pol '[.[] | select(.type == "scope")][0] | .scope == "node" and .gang == "pgid"'
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\n' "$SOCK" "$S" > "$CONF"
	reload "--scope gpu, --gang cgroup"
	run -0 "$CTL" notify busy --pid "$S" --gpu 10009 -s "$SOCK"
	pol '[.[] | select(.type == "gpu")] | map(.gpu_id) == [10009]'
}

@test "metrics: one series per GPU machine, labelled by gpu_id" {
	command -v curl >/dev/null || skip "no curl"
	sleep 300 & S=$!
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	daemon_bg -s "$SOCK" --online pid="$S" --offline uid=0,comm=no-such-job \
		--metrics "127.0.0.1:$PORT"
	run -0 "$CTL" notify busy --pid "$S" --gpu 10001,10002 -s "$SOCK"
	run -0 "$CTL" notify idle --pid "$S" --gpu 10002 -s "$SOCK"
	run -0 curl -sS "http://127.0.0.1:$PORT/metrics"
	[[ "$output" == *'gpreempt_gpu_online_busy{gpu_id="10001"} 1'* ]]
	[[ "$output" == *'gpreempt_gpu_online_busy{gpu_id="10002"} 0'* ]]
	[[ "$output" == *'# TYPE gpreempt_gpu_suspends_total counter'* ]]
}
