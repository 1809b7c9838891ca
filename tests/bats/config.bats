#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `gpreempt-ctl daemon --config FILE` and SIGHUP on the host (root, no AMD
# GPU): options from a file, bad lines reported with their number and
# nothing started, command-line flags winning, a reload that applies the
# new file (or refuses a bad one) and keeps serving, Type=notify's READY=1
# and the journal's <N> priorities. Reload with real holds: tests/vm/.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	D=$(mktemp -d /tmp/gpconfig.XXXXXX)
	SOCK=$D/ctl.sock
	CONF=$D/gpreempt.conf
	DPID=
}

teardown() {
	daemon_teardown
	rm -rf "$D"
}

load daemon_helper

start_daemon() {
	daemon_bg "$@"
}

status_line() {
	run -0 "$CTL" daemon --socket "$SOCK" --send status
	echo "$output" | grep '^daemon '
}

# wait_log TEXT: the daemon's log gets TEXT within 5 s.
wait_log() {
	for _ in $(seq 100); do
		grep -qF "$1" "$D/log" && return 0
		sleep 0.05
	done
	cat "$D/log"
	return 1
}

@test "config: options from the file, comments ignored, flags on the command line win" {
	cat > "$CONF" <<EOC
# gpreempt
socket $SOCK
max-hold = 3s   # short
EOC
	start_daemon --config "$CONF"
	[[ "$(status_line)" == *"max_hold_ns=3000000000"* ]]
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	start_daemon --config "$CONF" --max-hold 7s
	[[ "$(status_line)" == *"max_hold_ns=7000000000"* ]]
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "config: a bad line is reported with its number and nothing starts" {
	printf 'socket %s\n\n# fine so far\nmax-hold 10parsecs\n' "$SOCK" > "$CONF"
	run -2 --separate-stderr "$CTL" daemon --config "$CONF"
	[[ "$stderr" == *"$CONF:4: invalid duration '10parsecs' for --max-hold"* ]]
	[ ! -e "$SOCK" ]
	printf 'socket %s\nmax_hold 1s\n' "$SOCK" > "$CONF"
	run -2 --separate-stderr "$CTL" daemon --config "$CONF"
	[[ "$stderr" == *"$CONF:2: unknown option 'max_hold'"* ]]
	printf 'verbose yes\n' > "$CONF"
	run -2 --separate-stderr "$CTL" daemon -c "$CONF"
	[[ "$stderr" == *"$CONF:1: 'verbose' takes no value"* ]]
	printf 'metrics example.org:80\n' > "$CONF"
	run -2 --separate-stderr "$CTL" daemon --config="$CONF"
	[[ "$stderr" == *"$CONF:1: bad metrics address"* ]]
	run -2 --separate-stderr "$CTL" daemon --config "$D/none"
	[[ "$stderr" == *"cannot read --config $D/none: No such file"* ]]
	[ ! -e "$SOCK" ]
}

@test "config: the packaged example parses (all defaults commented out)" {
	sed "s|^#socket .*|socket $SOCK|" "$BATS_TEST_DIRNAME/../../packaging/gpreempt.conf" > "$CONF"
	start_daemon --config "$CONF"
	[[ "$(status_line)" == *"max_hold_ns=10000000000"* ]]
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "SIGHUP applies a new file and keeps serving; a bad file is refused and kept" {
	printf 'socket %s\nmax-hold 3s\n' "$SOCK" > "$CONF"
	start_daemon --config "$CONF"
	pid=$(status_line | sed 's/.*pid=\([0-9]*\).*/\1/')
	printf 'socket %s\nmax-hold 4s\nverbose\n' "$SOCK" > "$CONF"
	kill -HUP "$DPID"
	wait_log "reloaded $CONF: --max-hold 4.000 s, verbose"
	[[ "$(status_line)" == *"pid=$pid "*"max_hold_ns=4000000000"* ]]
	printf 'socket %s\nmax-hold 4x\n' "$SOCK" > "$CONF"
	kill -HUP "$DPID"
	wait_log "reload refused, running configuration kept: $CONF:2: invalid duration '4x'"
	[[ "$(status_line)" == *"max_hold_ns=4000000000"* ]]
	kill -0 "$DPID"
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	[ ! -e "$SOCK" ]
}

@test "Type=notify: READY=1 on the notify socket once listening, STOPPING=1 at the end" {
	command -v python3 >/dev/null || skip "no python3"
	# python3 stands in for systemd's notify socket (a datagram socket).
	python3 - "$D/notify" "$D/got" <<'EOP' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); s.settimeout(10)
with open(sys.argv[2], "w") as f:
    for _ in range(2):
        f.write(s.recv(256).decode() + "\n---\n"); f.flush()
EOP
	py=$!
	for _ in $(seq 100); do [ -S "$D/notify" ] && break; sleep 0.05; done
	NOTIFY_SOCKET=$D/notify start_daemon --socket "$SOCK"
	for _ in $(seq 100); do grep -q READY=1 "$D/got" 2>/dev/null && break; sleep 0.05; done
	grep -q '^READY=1$' "$D/got"
	[ -S "$SOCK" ]		# the socket existed when READY=1 was sent
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	wait "$py"
	grep -q '^STOPPING=1$' "$D/got"
}

@test "under the journal (JOURNAL_STREAM = stderr), log lines carry <N> priorities" {
	# stderr is a file here; JOURNAL_STREAM names that file's dev:ino, as
	# systemd does for the journal's stream socket.
	: > "$D/log"
	js=$(stat -c '%d:%i' "$D/log")
	JOURNAL_STREAM=$js "$CTL" daemon --socket "$SOCK" --ready "$D/ready" 2>>"$D/log" &
	DPID=$!
	for _ in $(seq 100); do [ -s "$D/ready" ] && break; sleep 0.05; done
	run "$CTL" daemon --socket "$SOCK" --send 'suspend pid=zero'
	wait_log "refused a request"
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	cat "$D/log"
	grep -q '^<6>listening on ' "$D/log"
	grep -q '^<4>refused a request from pid ' "$D/log"
	! grep -v '^<[0-7]>' "$D/log"
}
