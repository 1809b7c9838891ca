#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The arbiter's command-line surface on the host (root, no AMD GPU):
# `gpreempt-ctl policy --replay` (exact figures are in test_policy_replay),
# flag checks before the daemon starts (exit 2, nothing started), and the
# socket verbs against a daemon with no KFD (notify's counting, refusals,
# a held connection's busy ending with it). KFD behaviour: tests/vm/6*.

bats_require_minimum_version 1.5.0

FIX=$BATS_TEST_DIRNAME/../unit/fixtures/replay

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	SOCK=$BATS_TEST_TMPDIR/arb.sock
}

teardown() {
	[ -n "${HOLD:-}" ] && kill "$HOLD" 2>/dev/null
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null || true
}

daemon_up() { # extra flags
	"$CTL" daemon -s "$SOCK" --ready "$BATS_TEST_TMPDIR/ready" "$@" \
		2> "$BATS_TEST_TMPDIR/d.log" &
	DPID=$!
	for _ in $(seq 50); do
		[ -e "$BATS_TEST_TMPDIR/ready" ] && return 0
		sleep 0.1
	done
	return 1
}

policy_json() {
	"$CTL" policy -j -s "$SOCK"
}

@test "policy --replay: text and JSON on the bursty trace" {
	run -0 "$CTL" policy --replay "$FIX/bursty.ndjson" --suspend-cost 150us \
		--resume-cost 150us
	[[ "$output" == *"offline share:  78.0%"* ]]
	[[ "$output" == *"13 resumes avoided by --resume-after"* ]]
	run -0 "$CTL" policy --replay "$FIX/continuous.ndjson" -j \
		--min-offline-share 20 --window 100ms
	echo "$output" | jq -e '.budget_resumes == 10 and .offline_share_ppm == 199000'
}

@test "policy --replay --scope: per GPU, online on one GPU leaves the others' offline running" {
	run -0 "$CTL" policy --replay "$FIX/multi-gpu.ndjson" --scope gpu
	[[ "$output" == *"10001           2          66.0%"* ]]
	[[ "$output" == *"10002           2         100.0%"* ]]
	[[ "$output" == *"KFD ioctls: 12 (6 suspend, 6 resume), 18 queue ids"* ]]
	run -0 "$CTL" policy --replay "$FIX/multi-gpu.ndjson" --scope node -j
	echo "$output" | jq -e '.suspend_ioctls == 10 and .queues_named == 48 and
		([.gpus[].offline_share_ppm] | all(. == 660000))'
	run -2 "$CTL" policy --replay "$FIX/multi-gpu.ndjson" --scope card
	[[ "$output" == *"--scope: 'card' is not gpu or node"* ]]
	printf '{"t_ms":1,"ev":"queue","pid":5,"gpu":1}\n' > "$BATS_TEST_TMPDIR/q"
	run -2 "$CTL" policy --replay "$BATS_TEST_TMPDIR/q" --scope gpu
	[[ "$output" == *"q:1: a queue line needs"* ]]
}

@test "policy --replay: bad input is exit 2 with the line named" {
	printf '{"t_ms":1,"ev":"busy"}\n{"t_ms":0,"ev":"idle"}\n' > "$BATS_TEST_TMPDIR/t"
	run -2 "$CTL" policy --replay "$BATS_TEST_TMPDIR/t"
	[[ "$output" == *"t:2: time goes back"* ]]
	run -2 "$CTL" policy --replay "$FIX/simple.ndjson" --min-offline-share 101
	run -2 "$CTL" policy --replay /nonexistent
	[[ "$output" == *"cannot open /nonexistent"* ]]
}

@test "daemon: arbiter flags checked before it starts" {
	run -2 "$CTL" daemon -s "$SOCK" --offline name=x
	[[ "$output" == *"unknown selector 'name=x'"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --online comm=a_very_long_comm_name
	[[ "$output" == *"at most 15 characters"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --min-offline-share 150
	run -2 "$CTL" daemon -s "$SOCK" --window 0
	run -2 "$CTL" daemon -s "$SOCK" --detect bogus
	run -2 "$CTL" daemon -s "$SOCK" --detect notify,cpu
	[[ "$output" == *"unknown signal 'cpu'"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --poll 0
	[ ! -e "$SOCK" ]
}

@test "notify and policy with no daemon: exit 11, the hint starts an arbiter (no --no-daemon, which they lack)" {
	run -11 --separate-stderr "$CTL" notify busy -s "$SOCK"
	[[ "$stderr" == *"no daemon listens on $SOCK"*"daemon --offline"* ]]
	[[ "$stderr" != *"--no-daemon"* ]]
	run -11 --separate-stderr "$CTL" policy -s "$SOCK"
	[[ "$stderr" == *"daemon --offline"* ]]
	[[ "$stderr" != *"--no-daemon"* ]]
}

@test "notify: counted per pid, idle without busy refused, nothing changed" {
	daemon_up --offline uid=0,comm=no-such-job --resume-after 1ms
	run -0 "$CTL" notify busy --pid $$ -s "$SOCK"
	run -0 "$CTL" notify busy --pid $$ -s "$SOCK"
	run -0 policy_json
	echo "$output" | jq -s -e "[.[] | select(.type == \"proc\" and .pid == $$)] | .[0].busy == 2"
	run -0 "$CTL" notify idle --pid $$ -s "$SOCK"
	run -0 "$CTL" notify idle --pid $$ -s "$SOCK"
	run -2 "$CTL" notify idle --pid $$ -s "$SOCK"
	[[ "$output" == *"no busy open for pid $$"* ]]
	run -0 policy_json
	echo "$output" | jq -s -e '[.[] | select(.type == "arbiter")] | .[0] | .online_busy == 0 and .busy_periods == 1'
	run -2 "$CTL" daemon -s "$SOCK" --send "busy pid=0"
	run -2 "$CTL" daemon -s "$SOCK" --send "classify pid=$$ class=fast"
}

@test "policy text: durations in units, an online pid without KFD said plainly" {
	daemon_up --offline uid=0,comm=no-such-job --resume-after 2ms --window 500ms
	run -0 "$CTL" notify busy --pid $$ -s "$SOCK"
	run -0 "$CTL" policy -s "$SOCK"
	[[ "$output" == *"resume-after 2.000 ms, min-offline-share 0%, window 500.000 ms"* ]]
	[[ "$output" == *"busy x1; queues: no KFD process, 0 watched"* ]]
	[[ "$output" != *" ns,"* ]]
}

@test "notify --hold: the busy ends when the connection does" {
	daemon_up --offline uid=0,comm=no-such-job
	mkfifo "$BATS_TEST_TMPDIR/f"
	"$CTL" notify busy --hold --pid $$ -s "$SOCK" < "$BATS_TEST_TMPDIR/f" \
		> "$BATS_TEST_TMPDIR/h.out" 3>&- 8>&- &
	HOLD=$!
	exec 8> "$BATS_TEST_TMPDIR/f"	# bats owns fd 3
	for _ in $(seq 50); do
		grep -q "busy for pid" "$BATS_TEST_TMPDIR/h.out" && break
		sleep 0.1
	done
	run -0 policy_json
	echo "$output" | jq -s -e '[.[] | select(.type == "arbiter")] | .[0] | .online_busy == 1'
	kill -KILL "$HOLD"
	wait "$HOLD" || true
	HOLD=
	exec 8>&-
	sleep 0.2
	run -0 policy_json
	echo "$output" | jq -s -e '[.[] | select(.type == "arbiter")] | .[0] | .online_busy == 0'
	grep -q "its busy ends" "$BATS_TEST_TMPDIR/d.log"
}

@test "online selector: a pid outside it may not say busy" {
	daemon_up --online uid=0,cmdline=serve.py --offline uid=0,comm=no-such-job
	run -2 "$CTL" notify busy --pid $$ -s "$SOCK"
	[[ "$output" == *"is none, not online"* ]]
	run -0 "$CTL" daemon -s "$SOCK" --send "classify pid=$$ class=online"
	run -0 "$CTL" notify busy --pid $$ -s "$SOCK"
}

@test "busy/idle to a daemon that does not arbitrate: clear error" {
	daemon_up
	run -2 "$CTL" notify busy --pid $$ -s "$SOCK"
	[[ "$output" == *"does not arbitrate"* ]]
}

@test "daemon: arbiter log lines are bounded per second" {
	daemon_up --offline uid=0,comm=no-such-job --resume-after 0
	for _ in $(seq 150); do
		"$CTL" notify busy --pid $$ -s "$SOCK"
		"$CTL" notify idle --pid $$ -s "$SOCK"
	done
	run -0 policy_json
	echo "$output" | jq -s -e '[.[] | select(.type == "arbiter")] | .[0].busy_periods == 150'
	# Lines per wall-clock second (HH:MM:SS prefix), arbiter lines only.
	# The daemon bounds lines per MONOTONIC second (50 + its "dropped"
	# line); a wall second overlaps two monotonic ones, so it may hold up
	# to twice that. 300 unbounded lines still exceed it.
	max=$(grep "arbiter: " "$BATS_TEST_TMPDIR/d.log" | grep -v dropped |
	      cut -c1-8 | uniq -c | awk '$1 > m { m = $1 } END { print m + 0 }')
	echo "most arbiter lines in one wall second: $max"
	[ "$max" -le 102 ]
}
