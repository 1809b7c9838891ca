#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Host checks of kfd-exerciser's own contract (usage, exit codes, JSON
# shape). The host has no /dev/kfd: -d /dev/null drives every ioctl into
# a real ENOTTY, which is enough to check the plumbing; what KFD answers
# is checked in the VM (tests/vm/1*-exerciser*.sh).
# EX overrides the binary (default: $GP_BIN/../kfd-exerciser).

bats_require_minimum_version 1.5.0

setup() {
	EX=${EX:-${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/../kfd-exerciser}
	[ -x "$EX" ] || skip "no kfd-exerciser at $EX (make tests)"
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

@test "--help documents steps, JSON and exit codes" {
	run -0 "$EX" --help
	[[ $output == *"Usage: kfd-exerciser"* ]]
	[[ $output == *"debug-target"* ]]
	[[ $output == *'"step":"dbg"'* ]]
	[[ $output == *"Exit: 0"* ]]
}

@test "bad usage exits 2, prints nothing on stdout, runs nothing" {
	run -2 --separate-stderr "$EX"
	run -2 --separate-stderr "$EX" ready:"$TMP/r" nosuchstep
	[ -z "$output" ]
	[[ $stderr == *"unknown step 'nosuchstep'"* ]]
	[ ! -e "$TMP/r" ]
	run -2 --separate-stderr "$EX" create:gpu=banana
	[[ $stderr == *"bad value for 'gpu'"* ]]
	run -2 --separate-stderr "$EX" create:color=1
	[[ $stderr == *"unknown parameter 'color'"* ]]
	run -2 --separate-stderr "$EX" dbg:pid=1
	[[ $stderr == *"op="* ]]
	run -2 --separate-stderr "$EX" -n 0 version
	run -2 --separate-stderr "$EX" --bogus version
}

@test "open failure: the open line with errno, then exit 1" {
	run -1 --separate-stderr "$EX" -d "$TMP/nokfd" version
	[ "$(echo "$output" | jq -c '[.step, .ret, .errno, .err]')" = \
	  '["open",-1,2,"ENOENT"]' ]
	[ "$(echo "$output" | wc -l)" = 1 ]
	[ -z "$stderr" ]	# tests capture 2>&1 and feed it to jq
}

@test "ioctl failures are results: exact create args, exit 0" {
	run -0 --separate-stderr "$EX" -d /dev/null \
		create:gpu=0xdeadbeef,type=sdma,prio=15,pct=50,ring=8192,sdma=2 \
		destroy:qid=3
	echo "$output" | jq -e -s '
		(.[] | select(.step == "create")) as $c |
		$c.ret == -1 and $c.errno == 25 and $c.err == "ENOTTY" and
		$c.gpu_id == "0xdeadbeef" and $c.type == 1 and $c.prio == 15 and
		$c.pct == 50 and $c.ring_size == 8192 and $c.sdma == 2 and
		($c.duration_ns | type) == "number" and
		any(.[]; .step == "destroy" and .qid == 3 and .errno == 25) and
		(.[-1] | .step == "summary" and .ioctls == 2 and .errors == 2)'
}

@test "dbg prints op name, pid and the queue array in hex" {
	run -0 "$EX" -d /dev/null dbg:op=suspend,pid=1234,qids=7+1234,grace=5 \
		dbg:op=42
	echo "$output" | jq -e -s '
		.[1].op == "suspend" and .[1].op_nr == 6 and .[1].pid == 1234 and
		.[1].grace == 5 and .[1].qids == ["0x7", "0x4d2"] and
		.[2].op == "raw" and .[2].op_nr == 42'
}

@test "--quiet --repeat: only the summary line" {
	run -0 "$EX" -q -n 50 -d /dev/null version
	[ "$(echo "$output" | wc -l)" = 1 ]
	echo "$output" | jq -e '.step == "summary" and .iterations == 50 and
		.ioctls == 50 and .errors == 50'
}

@test "--repeat tags lines with iter" {
	run -0 "$EX" -n 2 -d /dev/null version
	[ "$(echo "$output" | jq -s -c '[.[] | select(.step == "version") | .iter]')" = \
	  '[0,1]' ]
}

@test "ready writes the pid file; wait ends on SIGTERM with signal lines" {
	"$EX" ready:"$TMP/ready" wait:30000 > "$TMP/out" &
	pid=$!
	for _ in $(seq 100); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
	[ "$(cat "$TMP/ready")" = "$pid" ]
	kill -USR1 $pid
	# one signal at a time: the USR1 line first, then TERM
	for _ in $(seq 100); do grep -q '"sig":10' "$TMP/out" && break; sleep 0.05; done
	kill -TERM $pid
	# wait in this shell: run's subshell is not the job's parent
	local rc=0
	wait $pid || rc=$?
	[ "$rc" -eq 0 ] || { echo "exit $rc"; false; }
	jq -e -s '([.[] | select(.step == "signal") | .sig] | sort == [10, 15])
		and any(.[]; .step == "wait" and .reason == "signal")
		and any(.[]; .step == "ready" and .pid == '"$pid"')' "$TMP/out"
}

@test "wait ends on EOF of a pipe stdin, or on its timeout" {
	run -0 bash -c "echo | '$EX' wait"
	echo "$output" | jq -e -s '.[0].reason == "eof"'
	run -0 "$EX" wait:50 < /dev/null
	echo "$output" | jq -e -s '.[0].reason == "timeout"'
}

@test "debug-target runs the scenario and reaps its child" {
	run -0 "$EX" -d /dev/null debug-target:order=before,timeout=100,eperm=1
	echo "$output" | jq -e -s '
		any(.[]; .step == "seize" and .ret == 0) and
		([.[] | select(.step == "dbg") | .op] ==
		 ["enable", "enable", "query", "send-runtime", "set-exceptions",
		  "snapshot", "suspend", "resume", "disable"]) and
		any(.[]; .step == "poll-event" and .err == "ETIMEDOUT") and
		any(.[]; .step == "target-exit" and .signal == 9) and
		any(.[]; .step == "debug-target" and .errors == 8)'
}

# uconnect: a client that says "status" and keeps its connection (the
# hostile tenant of tests/vm/67-hostile.sh); served here by a real daemon.
@test "uconnect prints the daemon's reply per connection; no path is usage" {
	local ctl=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$ctl" ] || skip "no gpreempt-ctl at $ctl"
	run -2 --separate-stderr "$EX" uconnect
	[[ $stderr == *"missing 'PATH'"* ]]
	"$ctl" daemon -s "$TMP/d.sock" --ready "$TMP/d.ready" 2> "$TMP/log" &
	local dpid=$! i
	for i in $(seq 600); do [ -e "$TMP/d.ready" ] && break; sleep 0.1; done
	run -0 "$EX" uconnect:"$TMP/d.sock" uconnect:"$TMP/none" \
		uconnect:"$TMP/d.sock" wait:10
	kill "$dpid"
	wait "$dpid" || true
	[ "$(grep -c '"step":"uconnect",.*"reply":"ok"' <<<"$output")" -eq 2 ]
	[[ $output == *'"path":"'"$TMP"'/none","reply":"No such file or directory"'* ]]
}
