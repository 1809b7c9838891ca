#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `gpreempt-ctl daemon` on the host (root, no AMD GPU, no /dev/kfd): its
# socket (mode, group, stale and live predecessors), the protocol's
# refusals (exit 2, nothing changed), peer-credential checks, and a clean
# shutdown on SIGTERM/SIGINT (SIGHUP reloads: tests/bats/config.bats).
# Holding real targets is tested in the VM (tests/vm/4*.sh).

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	D=$(mktemp -d /tmp/gpdaemon.XXXXXX)
	chmod 0755 "$D"	# let the non-root clients reach the socket
	SOCK=$D/ctl.sock
	DPID=
}

teardown() {
	daemon_teardown "${TARGET:-}"
	rm -rf "$D"
}

load daemon_helper

# start_daemon [ARGS...]: in the background, ready when the file appears.
start_daemon() {
	daemon_bg --socket "$SOCK" "$@"
}

# stop_daemon SIG: the daemon exits 0 and leaves nothing behind.
stop_daemon() {
	local rc=0
	kill "-$1" "$DPID"
	wait "$DPID" || rc=$?
	DPID=
	echo "daemon exit status after SIG$1: $rc"
	[ "$rc" -eq 0 ]
	[ ! -e "$SOCK" ]
	[ ! -e "$D/ready" ]
}

send() {
	run --separate-stderr "$CTL" daemon --socket "$SOCK" --send "$1"
}

nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "daemon --help has the protocol and EXAMPLES" {
	run -0 "$CTL" daemon --help
	[[ "$output" == *"Usage: gpreempt-ctl daemon"* ]]
	[[ "$output" == *"--max-hold"* ]]
	[[ "$output" == *"suspend pid=N"* ]]
	[[ "$output" == *EXAMPLES:* ]]
}

@test "daemon bad arguments: exit 2, no socket" {
	run -2 "$CTL" daemon --socket "$SOCK" --max-hold 0
	# fits 64 bits, but now + it would wrap: refused, not a 0 s watchdog
	run -2 "$CTL" daemon --socket "$SOCK" --max-hold 5000000h
	run -2 "$CTL" daemon --socket "$SOCK" --max-hold soon
	run -2 "$CTL" daemon --socket "$SOCK" extra
	run -2 "$CTL" daemon --socket "$SOCK" --bogus
	run -2 --separate-stderr "$CTL" daemon --socket "$SOCK" \
		--group no-such-group-gp
	[[ "$stderr" == *"no group 'no-such-group-gp'"* ]]
	[ ! -e "$SOCK" ]
}

@test "daemon socket is root-only 0600 by default, pid in --ready" {
	start_daemon
	[ "$(stat -c '%F %a %U %G' "$SOCK")" = "socket 600 root root" ]
	[ "$(cat "$D/ready")" = "$DPID" ]
	grep -q "listening on $SOCK (root only, 0600" "$D/log"
	stop_daemon TERM
}

@test "daemon --group gives the socket 0660 to that group" {
	start_daemon --group nogroup
	[ "$(stat -c '%a %G' "$SOCK")" = "660 nogroup" ]
	stop_daemon TERM
}

@test "daemon status over the socket without /dev/kfd" {
	start_daemon --max-hold 3s
	send status
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "daemon pid=$DPID sessions=0 detaching=0 max_hold_ns=3000000000 kfd=none" ]
	[ "${lines[1]}" = ok ]
	run -0 "$CTL" status --socket "$SOCK" -j
	echo "$output" | jq -e "select(.type == \"daemon\") |
		.pid == $DPID and .sessions == 0 and
		.max_hold_ns == 3000000000" >/dev/null
	stop_daemon TERM
}

@test "daemon malformed requests: err 2, nothing changed, still serving" {
	start_daemon
	for req in "" "hello" "suspend" "suspend pid=0" "suspend pid=01" \
		   "suspend  pid=5" "suspend pid=5 colour=red" \
		   "suspend pid=5 pid=5" "resume pid=5 grace=1" \
		   "suspend pid=5 queues=1,1" "suspend pid=5 queues=1073741824" \
		   "status queues=1" "suspend pid=-5" "suspend pid=5 "; do
		send "$req"
		[ "$status" -eq 2 ] || { echo "req '$req': $output"; false; }
		[[ "${lines[-1]}" == "err 2 22 "* ]]
	done
	send "$(printf 'suspend pid=5\tqueues=1')"
	[ "$status" -eq 2 ]
	[[ "$output" == *"byte 0x09"* ]]
	# a line the daemon cannot hold: told why, then hung up on
	send "status pid=$(printf '1%.0s' $(seq 5000))"
	[ "$status" -eq 2 ]
	[[ "$output" == "err 2 7 request longer than 4095 bytes" ]]
	# two lines in one write: the first is answered on its own
	send "$(printf 'bogus\nstatus')"
	[ "$status" -eq 2 ]
	[[ "$output" == "err 2 22 unknown request 'bogus'"* ]]
	send status
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"sessions=0 "* ]]
	grep -q "refused a request from pid" "$D/log"
	stop_daemon TERM
}

@test "daemon refuses pid 1 and explains a missing /dev/kfd" {
	sleep 300 &
	TARGET=$!
	start_daemon
	send "suspend pid=1"
	[ "$status" -eq 8 ]
	[[ "$output" == "err 8 "*"pid 1"* ]]
	send "attach pid=$TARGET"
	[ "$status" -eq 4 ]
	[[ "$output" == "err 4 2 "*"/dev/kfd"* ]]
	run -4 "$CTL" suspend --pid "$TARGET" --socket "$SOCK"
	# the target was never touched
	[ "$(awk '$1 == "TracerPid:" { print $2 }' /proc/$TARGET/status)" = 0 ]
	send "resume pid=$TARGET"
	[ "$status" -eq 8 ]
	[[ "$output" == *"not held by the daemon"* ]]
	send "detach pid=$TARGET"
	[ "$status" -eq 8 ]
	stop_daemon TERM
}

@test "daemon --wait-runtime on a pid with no KFD process: parked for the budget, others served, then the attach's answer" {
	# The host has no KFD: the parking and its deadline, not a kernel
	# claim (the VM's 40-daemon.sh sees a real target open /dev/kfd).
	sleep 300 &
	TARGET=$!
	start_daemon
	t0=$(date +%s%N)
	"$CTL" suspend --pid "$TARGET" --wait-runtime 800ms --socket "$SOCK" \
		> "$D/w.out" 2> "$D/w.err" &
	local cpid=$! rc=0
	sleep 0.3
	kill -0 "$cpid"			# still waiting, not refused
	send "status"			# and the daemon serves others
	[ "$status" -eq 0 ]
	wait "$cpid" || rc=$?
	dt=$((($(date +%s%N) - t0) / 1000000))
	echo "rc=$rc after $dt ms: $(cat "$D/w.err")"
	[ "$rc" -eq 4 ]
	[ "$dt" -ge 750 ]
	grep -q "/dev/kfd" "$D/w.err"
	grep -q "suspend pid $TARGET waits up to 800 ms for it to open /dev/kfd" "$D/log"
	[ "$(awk '$1 == "TracerPid:" { print $2 }' /proc/$TARGET/status)" = 0 ]
	stop_daemon TERM
}

@test "daemon refuses a non-root client, by socket mode and by SO_PEERCRED" {
	command -v setpriv >/dev/null || skip "no setpriv"
	start_daemon
	# 0600: the kernel refuses the connect
	run -3 --separate-stderr nobody "$CTL" daemon --socket "$SOCK" \
		--send status
	[[ "$stderr" == *"Permission denied"* ]]
	# a socket opened up by mistake: the daemon itself refuses
	chmod 0666 "$SOCK"
	run -3 --separate-stderr nobody "$CTL" daemon --socket "$SOCK" \
		--send "suspend pid=1"
	[[ "$output" == "err 3 13 permission denied: uid 65534 may not use"* ]]
	run -3 nobody "$CTL" status --socket "$SOCK"
	grep -q "refused pid [0-9]* uid 65534" "$D/log"
	# root still gets in
	send status
	[ "$status" -eq 0 ]
	stop_daemon TERM
}

@test "daemon --group lets members in, others not" {
	command -v setpriv >/dev/null || skip "no setpriv"
	start_daemon --group nogroup
	run -0 nobody "$CTL" daemon --socket "$SOCK" --send status
	[ "${lines[-1]}" = ok ]
	run -3 setpriv --reuid=nobody --regid=daemon --clear-groups \
		"$CTL" daemon --socket "$SOCK" --send status
	chmod 0666 "$SOCK"
	run -3 setpriv --reuid=nobody --regid=daemon --clear-groups \
		"$CTL" daemon --socket "$SOCK" --send status
	[[ "$output" == "err 3 13 "* ]]
	# membership through a supplementary group counts (SO_PEERGROUPS)
	run -0 setpriv --reuid=nobody --regid=daemon --groups=65534 \
		"$CTL" daemon --socket "$SOCK" --send status
	stop_daemon TERM
}

@test "daemon: a group member acts only on its own processes" {
	command -v setpriv >/dev/null || skip "no setpriv"
	sleep 300 &
	TARGET=$!
	setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 300 &
	local mine=$!
	start_daemon --group nogroup
	# another user's process (root's): refused before anything is done,
	# the refusal names the rule
	for verb in suspend attach resume detach; do
		run -3 --separate-stderr nobody "$CTL" daemon --socket "$SOCK" \
			--send "$verb pid=$TARGET"
		[[ "$output" == "err 3 1 "*"root or the process's own uid"* ]] ||
			{ echo "$verb: $output"; false; }
	done
	[ "$(awk '$1 == "TracerPid:" { print $2 }' /proc/$TARGET/status)" = 0 ]
	grep -q "refused uid 65534 on pid $TARGET" "$D/log"
	# its own process passes the rule (and meets the missing /dev/kfd)
	run -4 --separate-stderr nobody "$CTL" daemon --socket "$SOCK" \
		--send "suspend pid=$mine"
	# root acts on anyone's
	send "attach pid=$mine"
	[ "$status" -eq 4 ]
	kill "$mine"
	stop_daemon TERM
}

@test "daemon --ready never writes through a planted symlink" {
	echo precious > "$D/victim"
	echo precious > "$D/victim2"
	ln -s "$D/victim" "$D/ready.tmp"
	ln -s "$D/victim2" "$D/ready"
	start_daemon
	# start_daemon saw the planted link's target: wait for the real file
	for _ in $(seq 100); do
		[ -L "$D/ready" ] || break
		sleep 0.05
	done
	[ "$(cat "$D/victim")" = precious ]
	[ "$(cat "$D/victim2")" = precious ]
	[ ! -L "$D/ready" ] && [ "$(cat "$D/ready")" = "$DPID" ]
	stop_daemon TERM
}

@test "daemon exits 0 and removes its socket on SIGTERM, SIGINT" {
	for sig in TERM INT; do
		start_daemon
		stop_daemon "$sig"
		grep -q "removed $SOCK" "$D/log"
	done
}

@test "daemon: SIGTSTP/SIGTTIN/SIGTTOU neither stop nor end it" {
	start_daemon
	for sig in TSTP TTIN TTOU; do
		kill "-$sig" "$DPID"
		send status
		[ "$status" -eq 0 ] || { echo "after SIG$sig: $output"; false; }
		[ "$(awk '{ print $3 }' /proc/$DPID/stat)" != T ]
	done
	grep -q "Stopped ignored" "$D/log"
	stop_daemon TERM
}

@test "daemon: a second one on the same socket exits 11, the first serves on" {
	start_daemon
	run -11 --separate-stderr "$CTL" daemon --socket "$SOCK"
	[[ "$stderr" == *"another daemon already listens on $SOCK"* ]]
	send status
	[ "$status" -eq 0 ]
	stop_daemon TERM
}

@test "daemon replaces a stale socket, refuses to replace a file" {
	start_daemon
	kill -KILL "$DPID"
	wait "$DPID" || true
	DPID=
	[ -S "$SOCK" ]
	rm -f "$D/ready"
	start_daemon
	send status
	[ "$status" -eq 0 ]
	stop_daemon TERM
	echo data > "$SOCK"
	run -2 --separate-stderr "$CTL" daemon --socket "$SOCK"
	[[ "$stderr" == *"is not a socket"* ]]
	[ "$(cat "$SOCK")" = data ]
}

@test "ctl via an unreachable --socket exits 11" {
	run -11 --separate-stderr "$CTL" daemon --socket "$SOCK" --send status
	[[ "$stderr" == *"no daemon"* ]]
}
