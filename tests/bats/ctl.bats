#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl's command-line surface on the host (root, no AMD GPU):
# help, bad input (exit 2, nothing changed), refused targets, privilege,
# no /dev/kfd. The KFD behaviour itself is tested in the VM (tests/vm/3*).

bats_require_minimum_version 1.5.0

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	sleep 300 &
	TARGET=$!
}

teardown() {
	[ -n "${TARGET:-}" ] && kill "$TARGET" 2>/dev/null || true
}

tracer_of() {
	awk '$1 == "TracerPid:" { print $2 }' "/proc/$1/status"
}

# json_has JQ-CONDITION: does a line of $output match?
json_has() {
	echo "$output" | jq -c "select($1)" | grep -q .
}

# The sleep target must be untouched: not traced, not stopped.
untouched() {
	[ "$(tracer_of "$TARGET")" = 0 ]
	grep -q '^State:.*S (sleeping)' "/proc/$TARGET/status"
}

@test "ctl --help lists every command and has EXAMPLES" {
	run -0 "$CTL" --help
	for c in list suspend resume status check daemon; do
		[[ "$output" == *"  $c "* ]]
	done
	[[ "$output" == *EXAMPLES:* ]]
	[[ "$output" == *"Exit codes:"* ]]
}

@test "ctl COMMAND --help has EXAMPLES for each command" {
	for c in list suspend resume status check; do
		run -0 "$CTL" "$c" --help
		[[ "$output" == *"Usage: gpreempt-ctl $c"* ]]
		[[ "$output" == *EXAMPLES:* ]]
	done
	run -0 "$CTL" suspend --help
	[[ "$output" == *--grace-period* ]]
	[[ "$output" == *--for* ]]
	[[ "$output" == *--queue* ]]
}

@test "ctl with no command: usage error, exit 2" {
	run -2 --separate-stderr "$CTL"
	[[ "$stderr" == *"missing COMMAND"* ]]
	[ -z "$output" ]
}

@test "ctl unknown command or option: exit 2" {
	run -2 --separate-stderr "$CTL" frobnicate
	[[ "$stderr" == *"unknown command 'frobnicate'"* ]]
	run -2 --separate-stderr "$CTL" --frob list
	run -2 --separate-stderr "$CTL" list --frob
}

@test "ctl suspend bad input: exit 2 and the target untouched" {
	run -2 --separate-stderr "$CTL" suspend
	[[ "$stderr" == *"--pid is required"* ]]
	run -2 --separate-stderr "$CTL" suspend --pid abc
	[[ "$stderr" == *"invalid pid 'abc'"* ]]
	run -2 --separate-stderr "$CTL" suspend --pid 0
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" --queue x
	[[ "$stderr" == *"invalid queue id 'x'"* ]]
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" -q 0x80000001
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" --for soon
	[[ "$stderr" == *"invalid duration 'soon' for --for (e.g."* ]]
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" -g -4
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" stray
	[[ "$stderr" == *"unexpected argument 'stray'"* ]]
	run -2 --separate-stderr "$CTL" resume --pid "$TARGET" --for 1s
	run -2 --separate-stderr "$CTL" check --pid "$TARGET"
	untouched
}

@test "ctl suspend --gpu: a gpu_id without queues of the target, exit 2 and untouched" {
	local fix=$BATS_TEST_DIRNAME/../unit/fixtures/topo/mi300x-8/proc
	# a stand-in sysfs tree: the sleep target's queues 0,1 on GPU 10005
	mkdir -p "$BATS_TEST_TMPDIR/kfd/$TARGET/queues"
	cp -r "$fix/3105/queues/0" "$fix/3105/queues/1" \
		"$BATS_TEST_TMPDIR/kfd/$TARGET/queues/"
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" --gpu 10001 \
		--kfd-proc "$BATS_TEST_TMPDIR/kfd"
	[[ "$stderr" == *"pid $TARGET has no KFD queue on the gpu_id given (its queues are on: 10005); nothing was done"* ]]
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" --gpu 0
	[[ "$stderr" == *"invalid gpu_id '0'"* ]]
	run -2 --separate-stderr "$CTL" suspend --pid "$TARGET" --gpu 10005 -q 1
	[[ "$stderr" == *"--gpu and --queue exclude each other"* ]]
	run -2 --separate-stderr "$CTL" resume --pid "$TARGET" --kfd-proc /tmp
	[[ "$stderr" == *"--kfd-proc needs --gpu"* ]]
	untouched
}

@test "ctl refuses pid 1: exit 8" {
	run -8 --separate-stderr "$CTL" suspend --pid 1 --for 1s
	[[ "$stderr" == *"refusing pid 1 (init)"* ]]
	run -8 --separate-stderr "$CTL" resume --pid 1
	[[ "$stderr" == *"refusing pid 1 (init)"* ]]
}

@test "ctl refuses itself: exit 8" {
	# exec: the pid bash expands for $$ becomes gpreempt-ctl's own
	run -8 --separate-stderr bash -c 'exec "$0" suspend --pid $$' "$CTL"
	[[ "$stderr" == *"that is gpreempt-ctl itself"* ]]
}

@test "ctl refuses a kernel thread: exit 8" {
	grep -qx kthreadd /proc/2/comm || skip "pid 2 is not kthreadd here"
	run -8 --separate-stderr "$CTL" suspend --pid 2
	[[ "$stderr" == *"kernel thread"* ]]
}

@test "ctl refuses a pid that does not exist: exit 8" {
	bash -c 'exit 0' &
	local gone=$!
	wait "$gone"
	run -8 --separate-stderr "$CTL" suspend --pid "$gone"
	[[ "$stderr" == *"no process $gone"* ]]
}

@test "ctl -j reports errors as JSON too" {
	run -8 --separate-stderr "$CTL" suspend --pid 1 -j
	json_has '.type == "error" and .exit == 8 and (.message | test("init"))'
	[[ "$stderr" == *"refusing pid 1"* ]]
}

@test "ctl suspend not root: exit 3, target untouched" {
	command -v setpriv >/dev/null || skip "no setpriv"
	run -3 --separate-stderr setpriv --reuid=nobody --regid=nogroup \
		--clear-groups --inh-caps=-all "$CTL" suspend --pid "$TARGET"
	[[ "$stderr" == *"needs root (CAP_SYS_PTRACE)"* ]]
	untouched
}

@test "ctl check not root: reports the missing capability, exit 3 or 4" {
	command -v setpriv >/dev/null || skip "no setpriv"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup \
		--clear-groups --inh-caps=-all "$CTL" check -j
	# no /dev/kfd here outranks the capability (exit 4); with one, 3
	[ "$status" -eq 4 ] || [ "$status" -eq 3 ]
	json_has '.item == "capabilities" and .ok == false'
}

@test "ctl suspend/resume without /dev/kfd: exit 4, target untouched" {
	[ -e /dev/kfd ] && skip "this host has /dev/kfd"
	run -4 --separate-stderr "$CTL" suspend --pid "$TARGET" --for 1s
	[[ "$stderr" == *"no /dev/kfd"* ]]
	[[ "$stderr" == *"modprobe amdgpu"* ]]
	run -4 --separate-stderr "$CTL" resume --pid "$TARGET"
	untouched
}

@test "ctl check without /dev/kfd: says why, exit 4" {
	[ -e /dev/kfd ] && skip "this host has /dev/kfd"
	run -4 "$CTL" check
	[[ "$output" == *"kfd_device"*"NO"*"amdgpu module is not loaded"* ]]
	[[ "$output" == *"verdict: suspend/resume cannot work here"* ]]
	run -4 "$CTL" check -j
	# every line is JSON; the verdict carries the exit code
	echo "$output" | jq -e . >/dev/null
	json_has '.type == "verdict" and .ok == false and .exit == 4'
	json_has '.item == "ptrace_scope"'
}

@test "ctl --socket to a missing daemon: exit 11, target untouched" {
	run -11 --separate-stderr "$CTL" suspend --pid "$TARGET" \
		--socket "$BATS_TEST_TMPDIR/none.sock"
	[[ "$stderr" == *"no daemon socket at"* ]]
	run -11 --separate-stderr "$CTL" status \
		--socket "$BATS_TEST_TMPDIR/none.sock"
	untouched
}

@test "ctl list and status need no privilege and no KFD process" {
	[ -d /sys/class/kfd/kfd/proc ] && [ -n "$(ls /sys/class/kfd/kfd/proc)" ] &&
		skip "this host has KFD processes"
	run -0 --separate-stderr "$CTL" list
	[ "$output" = "no process uses KFD" ]
	run -0 --separate-stderr "$CTL" list -j
	[ -z "$output" ]
	run -0 --separate-stderr "$CTL" status --no-daemon
	[ "$output" = "no process uses KFD" ]
	command -v setpriv >/dev/null || skip "no setpriv"
	run -0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all "$CTL" list
}

@test "ctl list/status text never prints a comm's control characters" {
	# Host-only stand-in: a private mount namespace with a tmpfs over
	# /sys/class holding kfd/kfd/proc/<pid> (the real tree's layout; no
	# kernel behaviour is claimed). The target's file name holds ESC.
	local esc=$BATS_TEST_TMPDIR/gp$'\033'[2Jx
	cp "$(command -v sleep)" "$esc"
	"$esc" 300 &
	kill "$TARGET"
	TARGET=$!
	run -0 --separate-stderr unshare -m sh -c 'mount -t tmpfs gp-test-kfd \
		/sys/class && mkdir -p "/sys/class/kfd/kfd/proc/$1" &&
		"$0" list && "$0" status --no-daemon && "$0" list -j' \
		"$CTL" "$TARGET"
	[[ "$output" != *$'\033'* ]]
	[[ "$output" == *"$TARGET"*"gp?[2Jx"* ]]
	[[ "$output" == *"pid $TARGET (gp?[2Jx): not held"* ]]
	# JSON keeps the name, escaped
	[[ "$output" == *'"comm":"gp\u001b[2Jx"'* ]]
}

@test "ctl list --pid of a process without KFD process: exit 8" {
	run -8 --separate-stderr "$CTL" list --pid "$TARGET"
	[[ "$stderr" == *"pid $TARGET has no KFD process"* ]]
	run -8 --separate-stderr "$CTL" list --pid "$TARGET" -j
	json_has '.type == "error" and .exit == 8'
}

@test "ctl suspend/resume/status go to the daemon when its socket exists" {
	local sock=$BATS_TEST_TMPDIR/d.sock ready=$BATS_TEST_TMPDIR/d.ready
	"$CTL" daemon --socket "$sock" --ready "$ready" 3>&- &
	local d=$!
	for _ in $(seq 100); do [ -s "$ready" ] && break; sleep 0.1; done
	[ -s "$ready" ]
	run -0 --separate-stderr "$CTL" status --socket "$sock" -j
	json_has ".type == \"daemon\" and .pid == $d and .sessions == 0"
	run -0 "$CTL" status --socket "$sock"
	[[ "$output" == "daemon pid $d: 0 sessions, max hold 10.000 s" ]]
	if [ ! -e /dev/kfd ]; then
		# the daemon answers; its reason comes back with its code
		run -4 --separate-stderr "$CTL" suspend --socket "$sock" \
			--pid "$TARGET" --for 1s
		[[ "$stderr" == *"daemon: "*"no /dev/kfd"* ]]
	fi
	run -8 --separate-stderr "$CTL" resume --socket "$sock" \
		--pid "$TARGET" -j
	json_has '.type == "error" and .exit == 8'
	# --no-daemon bypasses it
	run --separate-stderr "$CTL" status --no-daemon -j
	if json_has '.type == "daemon"'; then false; fi
	kill -INT "$d"
	wait "$d"
	[ ! -e "$sock" ]
	untouched
}
