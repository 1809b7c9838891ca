#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Issue 24's loose ends on the host (L1, the real gpreempt-ctl): inputs and
# peers that used to hang, mislead or silence a tool. Each test names the
# case of docs/reliability.md it covers.

bats_require_minimum_version 1.5.0

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	T=$BATS_TEST_TMPDIR
}

teardown() {
	# KILL: a daemon stuck in the kernel (the bug a test shows) ignores
	# TERM; tests that check TERM send it themselves
	[ -n "${DPID:-}" ] && kill -KILL "$DPID" 2>/dev/null
	[ -n "${VPID:-}" ] && kill -KILL "$VPID" 2>/dev/null
	wait 2>/dev/null || true
	[ -n "${PUB:-}" ] && rm -rf "$PUB"
	true
}

# A directory other users can reach (bats's own tmpdir is root's, 0700).
pubdir() {
	PUB=$(mktemp -d /tmp/gp-hostile.XXXXXX)
	chmod 0755 "$PUB"
}

# Replay of times near 2^64 ns: the policy's deadlines (time plus a window)
# wrapped below the event and replay looped for ever; a trace of a century
# ticked billions of windows. Both are refused at once (exit 2, line named).
# The timeout only turns the old hang into a failure; it is never reached.
@test "policy --replay: times near 2^64 ns and centuries-long traces are refused" {
	printf '%s\n' '{"ev":"busy","t_ns":0,"pid":9}' \
		'{"ev":"idle","t_ns":18446744073709551000,"pid":9}' > "$T/wrap"
	run -2 timeout 300 "$CTL" policy --replay "$T/wrap"
	[[ $output == *'wrap:2: "t_ns" is past 2^62 ns'* ]]
	printf '%s\n' '{"ev":"busy","t_ns":0,"pid":9}' \
		'{"ev":"idle","t_ns":4611686018427387904,"pid":9}' > "$T/long"
	run -2 timeout 300 "$CTL" policy --replay "$T/long" \
		--min-offline-share 50
	[[ $output == *'long:2: the trace spans more than 4194304 windows'* ]]
}

# A user of its own for the impostor: the test creates it (useradd -r,
# no home) and leaves it for the next run.
impostor_user() {
	command -v setpriv >/dev/null || skip "no setpriv"
	id gpimpostor >/dev/null 2>&1 ||
		useradd -r -M -s /usr/sbin/nologin gpimpostor ||
		id gpimpostor >/dev/null 2>&1
}

# An impostor: a non-root user serving a socket that answers "ok" to
# every line (python3 listens; ready once the file "up" exists).
impostor_up() { # socket
	local dir
	dir=$(dirname "$1")
	chown gpimpostor "$dir"
	setpriv --reuid=gpimpostor --regid="$(id -g gpimpostor)" \
		--clear-groups /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    try:
        c.recv(4096); c.sendall(b"ok\n")
    except OSError:
        pass
    c.close()
' "$1" "$dir/up" &
	DPID=$!
	for _ in $(seq 600); do
		[ -e "$dir/up" ] && return 0
		sleep 0.1
	done
	return 1
}

# Item 9's client half: nothing the project ships trusts a server that is
# not root. Before, `--send "suspend pid=1"` printed the impostor's "ok"
# and exited 0.
@test "clients refuse a socket served by a non-root impostor" {
	impostor_user
	pubdir
	impostor_up "$PUB/ctl.sock"
	run -11 --separate-stderr "$CTL" daemon --socket "$PUB/ctl.sock" \
		--send "suspend pid=1"
	[[ $stderr == *"served by uid $(id -u gpimpostor), not root"* ]]
	[ -z "$output" ]
	run -11 --separate-stderr "$CTL" status --socket "$PUB/ctl.sock"
	[[ $stderr == *"not root"* ]] || { echo "$output $stderr"; false; }
	# notify goes through gp_notify, the library servers embed
	run -11 --separate-stderr "$CTL" notify busy --pid $$ \
		--socket "$PUB/ctl.sock"
	[[ $stderr == *"not served by root"* ]]
}

load daemon_helper

# daemon_up FLAGS: the daemon on $T/d.sock, its log in $T/log
daemon_up() {
	D=$T daemon_bg -s "$T/d.sock" "$@"
}

# Item 12: `daemon --send policy` read the arbiter's INFO lines with the
# session protocol's parser and exited 11 ("malformed reply") on a
# correct answer.
@test "daemon --send policy: the arbiter's reply is parsed, exit 0" {
	daemon_up --offline uid=0,comm=gp-hostile-nil
	run -0 --separate-stderr "$CTL" daemon -s "$T/d.sock" --send policy
	[[ ${lines[0]} == "arbiter state=idle "* ]]
	[ "${lines[-1]}" = ok ]
	[ -z "$stderr" ]
	# a refusal keeps its exit code and wire line
	run -2 --separate-stderr "$CTL" daemon -s "$T/d.sock" \
		--send "classify pid=1 class=bogus"
	[[ $output == "err 2 "* ]]
}

# A free loopback port (not a guess that may collide with another run).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Item 7: 8 idle TCP connections, re-opened as they time out, made every
# scrape fail (a full server closed newcomers). Now a newcomer takes the
# slot of the oldest connection still waiting for its request.
@test "metrics: idle connections holding every slot do not block a scrape" {
	command -v curl >/dev/null || skip "no curl"
	local port fds=() fd
	port=$(free_port)
	daemon_up --metrics "127.0.0.1:$port"
	for _ in $(seq 12); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$port"
		fds+=("$fd")
	done
	# all 12 are accepted (or queued) before the scrape comes
	run -0 "$CTL" daemon -s "$T/d.sock" --send status
	run -0 curl -sS --max-time 60 -o "$T/body" -w '%{http_code}' \
		"http://127.0.0.1:$port/metrics"
	[ "$output" = 200 ]
	grep -q '^gpreempt_requests_total{op="status"} 1$' "$T/body"
	for fd in "${fds[@]}"; do exec {fd}>&-; done
}

# wait_log TEXT: the daemon's log ($T/log) gets TEXT (a minute at most:
# a loaded CI host is slow; the daemon answers at once when it works).
wait_log() {
	for _ in $(seq 600); do
		grep -qF "$1" "$T/log" && return 0
		sleep 0.1
	done
	cat "$T/log"
	return 1
}

# Item 10: SIGHUP with the config path turned into a FIFO blocked the
# daemon in open() (no requests, no watchdog). Now the file is opened
# non-blocking and a FIFO is refused; the daemon serves on.
@test "reload: a FIFO at the config path does not block the daemon" {
	printf 'max-hold 3s\n' > "$T/conf"
	daemon_up --config "$T/conf"
	rm "$T/conf"
	mkfifo "$T/conf"
	kill -HUP "$DPID"
	wait_log "reload refused, running configuration kept: "
	grep -q "cannot read --config $T/conf: not a regular file" "$T/log"
	run -0 timeout 60 "$CTL" daemon -s "$T/d.sock" --send status
	[[ $output == *"max_hold_ns=3000000000"* ]]
	kill -TERM "$DPID"
	run -0 timeout 60 tail --pid="$DPID" -f /dev/null
	DPID=
}

# Item 10: the config file was trusted whoever owned or could write it.
@test "config: a file another user owns or can write, or in such a directory, is refused" {
	impostor_user
	pubdir
	printf 'max-hold 3s\n' > "$PUB/conf"
	chown gpimpostor "$PUB/conf"
	run -2 --separate-stderr timeout 60 "$CTL" daemon -s "$T/d.sock" \
		--config "$PUB/conf"
	[[ $stderr == *"file $PUB/conf is owned by uid $(id -u gpimpostor), not root"* ]]
	chown root "$PUB/conf"
	chmod 0646 "$PUB/conf"
	run -2 --separate-stderr timeout 60 "$CTL" daemon -s "$T/d.sock" \
		--config "$PUB/conf"
	[[ $stderr == *"is writable by everyone (mode 0646)"* ]]
	chmod 0644 "$PUB/conf"
	chown gpimpostor "$PUB"
	run -2 --separate-stderr timeout 60 "$CTL" daemon -s "$T/d.sock" \
		--config "$PUB/conf"
	[[ $stderr == *"directory $PUB is owned by uid"* ]]
	[ ! -e "$T/d.sock" ]
}

# Item 9: a socket directory another user owns or can write lets that
# user replace the socket; the daemon refuses it (exit 2) and starts
# nothing.
@test "daemon: a socket directory that is not root's alone is refused" {
	impostor_user
	pubdir
	chown gpimpostor "$PUB"
	run -2 --separate-stderr timeout 60 "$CTL" daemon -s "$PUB/ctl.sock"
	[[ $stderr == *"refusing the socket's directory $PUB is owned by uid"* ]]
	chown root "$PUB"
	chmod 0777 "$PUB"
	run -2 --separate-stderr timeout 60 "$CTL" daemon -s "$PUB/ctl.sock"
	[[ $stderr == *"writable by everyone (mode 0777)"* ]]
	[ ! -e "$PUB/ctl.sock" ]
}

# Item 7: the DaemonSet's liveness probe was GET /metrics, on a port the
# whole pod network reaches: whoever silenced it had the kubelet restart
# the agent on every node. The probe now asks the daemon over its socket;
# its command, run as written against a live daemon, succeeds.
@test "k8s: the liveness probe does not depend on the metrics port" {
	/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "no python3-yaml"
	run -0 /usr/bin/python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "DaemonSet":
        for c in d["spec"]["template"]["spec"]["containers"]:
            p = c["livenessProbe"]
            assert "httpGet" not in p and "tcpSocket" not in p, p
            print("\n".join(p["exec"]["command"]))
' "$BATS_TEST_DIRNAME/../../packaging/k8s/daemonset.yaml"
	local cmd=("${lines[@]}")
	[ "${cmd[0]}" = /usr/sbin/gpreempt-ctl ]
	cmd[0]=$CTL
	cmd=("${cmd[@]//\/run\/gpreempt\/ctl.sock/$T/d.sock}")
	daemon_up
	run -0 timeout 60 "${cmd[@]}"
	[ "${lines[-1]}" = ok ]
}

# Item 12: a process names itself, and its name reached the daemon's log
# raw (an escape sequence could rewrite the operator's terminal). Control
# characters now show as '?' in the log, in replies and in `list`.
@test "daemon log: a process name with control characters is escaped" {
	local name
	name=$(printf 'gp\033[2Jx')
	cp /bin/sleep "$T/$name"
	"$T/$name" 300 3>&- &
	VPID=$!
	local victim=$VPID
	daemon_up --online "pid=$victim" --offline uid=0,comm=gp-hostile-nil -v
	run -0 "$CTL" notify busy --pid "$victim" -s "$T/d.sock"
	wait_log "for pid $victim (gp?[2Jx)"
	! grep -q $'\033' "$T/log"
}

# A root stand-in daemon whose policy reply holds the lines a stuck
# process gives (user/arbiter/arbiter_req.c: quoted reasons with spaces).
@test "daemon --send policy and policy take unwatched and unclassified lines with quoted reasons (issue 31 N12)" {
	pubdir
	/usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(8)
open(sys.argv[2], "w").close()
reply = (b"arbiter state=idle online_busy=0 detect=notify resume_after_ns=2000000 "
         b"min_offline_share=0 window_ns=1000000000 max_hold_ns=10000000000 "
         b"busy_periods=0 suspends=0 resumes=0 budget_resumes=0 "
         b"max_hold_resumes=0 cancelled_resumes=0 failures=0 uptime_ns=1 "
         b"spoofable=none busy_max_ns=60000000000 busy_expired=0\n"
         b"unwatched pid=4242 reason=\"memory read stuck\"\n"
         b"unclassified pid=4343 reason=\"/proc read stuck\"\n"
         b"ok\n")
while True:
    c, _ = s.accept()
    try:
        c.recv(4096); c.sendall(reply)
    except OSError:
        pass
    c.close()
' "$PUB/ctl.sock" "$PUB/up" &
	DPID=$!
	for _ in $(seq 600); do
		[ -e "$PUB/up" ] && break
		sleep 0.1
	done
	run -0 "$CTL" daemon --socket "$PUB/ctl.sock" --send policy
	[[ "$output" == *'unwatched pid=4242 reason="memory read stuck"'* ]]
	[ "${lines[-1]}" = ok ]
	run -0 "$CTL" policy -s "$PUB/ctl.sock"
	echo "$output"
	[[ "$output" == *"4242     not watched: memory read stuck"* ]]
	[[ "$output" == *"4343     unclassified: /proc read stuck"* ]]
	run -0 "$CTL" policy -j -s "$PUB/ctl.sock"
	[[ "$output" == *'{"type":"unwatched","pid":4242,"reason":"memory read stuck"}'* ]]
}

# Every `gpreempt-ctl daemon ...` line of `daemon --help` (continuations
# joined, the comment and a trailing & dropped), started for real in a
# mount namespace of its own: /run a tmpfs (the default socket's folder),
# /etc a copy with the example's group and /etc/gpreempt/gpreempt.conf
# (packaging/gpreempt.conf). Each must get as far as listening (--ready
# added); the client lines (--send, socat) are the daemon's to answer.
@test "daemon --help: every example that starts a daemon runs (issue 31 N14)" {
	command -v unshare >/dev/null || skip "no unshare"
	pubdir
	local top=$BATS_TEST_DIRNAME/../.. ex n=0 i=0
	cp -a /etc "$PUB/etc"
	grep -q '^gpreempt:' "$PUB/etc/group" ||
		echo 'gpreempt:x:4242:' >> "$PUB/etc/group"
	mkdir -p "$PUB/etc/gpreempt"
	cp "$top/packaging/gpreempt.conf" "$PUB/etc/gpreempt/gpreempt.conf"
	"$CTL" daemon --help | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' |
		sed -n 's/^ *\(gpreempt-ctl daemon.*\)$/\1/p' |
		grep -v -- '--send' | sed 's/ *#.*//; s/ *&$//' > "$PUB/examples"
	cat "$PUB/examples"
	[ "$(wc -l < "$PUB/examples")" -ge 6 ]
	while read -r ex; do
		i=$((i + 1))
		rm -f "$PUB/ready"
		# shellcheck disable=SC2086
		run timeout 60 unshare --mount --propagation private sh -c '
			mount -t tmpfs none /run && mount --bind "$1/etc" /etc || exit 9
			ctl=$2; shift 2
			"$ctl" "$@" --ready "'"$PUB"'/ready" 2> "'"$PUB"'/log.'$i'" &
			d=$!
			for _ in $(seq 300); do
				[ -s "'"$PUB"'/ready" ] && { kill $d; wait $d; exit $?; }
				kill -0 $d 2>/dev/null || break
				sleep 0.1
			done
			wait $d; echo "exit $?"; exit 1' sh "$PUB" "$CTL" ${ex#gpreempt-ctl }
		echo "$ex: $status $output"
		[ "$status" -eq 0 ] || { cat "$PUB/log.$i"; n=$((n + 1)); }
	done < "$PUB/examples"
	[ "$n" -eq 0 ]
}
