#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The trust model on the host (docs/reliability.md, "Trust model"), with
# the real daemon and real users created here: a container's root is a
# tenant, a refused request adds nothing to the arbiter's table, one
# tenant cannot take every connection slot, and root always gets in.
# Holding real targets is the VM's (tests/vm/); nothing here needs KFD.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	HOLD= TARGET=
	UA=gpt1a$$
	UB=gpt1b$$
	users_setup tenancy "gpt1grp$$" "$UA" "$UB"
	SOCK=$D/ctl.sock
}

teardown() {
	for p in $HOLD $TARGET $DPID; do kill -KILL "$p" 2>/dev/null; done
	users_teardown "$UA" "$UB"
}

load daemon_helper

# hold WHO N: WHO (a user, or "root") holds N connections open; waits for
# its report in $D/hold.WHO (one line per connection, then "done").
hold() {
	local who=$1 n=$2 py=/usr/bin/python3
	[ -x "$py" ] || skip "no /usr/bin/python3"
	touch "$D/hold.$who"
	[ "$who" = root ] || chown "$who" "$D/hold.$who"
	if [ "$who" = root ]; then
		"$py" "$BATS_TEST_DIRNAME/hold_conns.py" "$SOCK" "$n" \
			"$D/hold.$who" &
	else
		as "$who" "$py" "$BATS_TEST_DIRNAME/hold_conns.py" "$SOCK" \
			"$n" "$D/hold.$who" &
	fi
	HOLD="$HOLD $!"
	for _ in $(seq 600); do
		grep -qx done "$D/hold.$who" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$D/hold.$who"
	return 1
}

@test "tenancy: root in another PID namespace (a container) is a tenant" {
	command -v unshare >/dev/null || skip "no unshare"
	sleep 300 &
	TARGET=$!
	daemon_bg --socket "$SOCK"
	# node root: past the rule (and on to the missing /dev/kfd)
	run -4 "$CTL" daemon --socket "$SOCK" --send "attach pid=$TARGET"
	# the same uid 0 from a new PID namespace: a tenant, refused, nothing
	# attached; status still answers it
	for verb in suspend attach resume detach; do
		run -3 unshare --pid --fork --mount-proc "$CTL" daemon \
			--socket "$SOCK" --send "$verb pid=$TARGET"
		[[ "$output" == "err 3 1 pid $TARGET is not in the caller's PID namespace"* ]] ||
			{ echo "$verb: $output"; false; }
	done
	run -0 unshare --pid --fork --mount-proc "$CTL" daemon \
		--socket "$SOCK" --send status
	[ "${lines[-1]}" = ok ]
	[ "$(awk '$1 == "TracerPid:" { print $2 }' /proc/$TARGET/status)" = 0 ]
	grep -q "refused tenant pid [0-9]* uid 0 on pid $TARGET" "$D/log"
}

@test "tenancy: a refused busy pid=N adds nothing to the arbiter's table" {
	daemon_bg --socket "$SOCK" --group "$GRP" --offline uid=0,comm=no-such-job
	# another user's process, named by a tenant: refused ...
	for _ in 1 2 3; do
		run -3 as "$UA" "$CTL" daemon --socket "$SOCK" --send "busy pid=1"
		[[ "$output" == "err 3 1 uid "*" may not signal for pid 1 (uid 0)"* ]]
	done
	# ... and pid 1 never joined: the arbiter does not list it (with no
	# --online selector, a known process named by busy is online)
	run -0 "$CTL" policy -j -s "$SOCK"
	! grep -q '"type":"proc","pid":1,' <<<"$output"
	# root may
	run -0 "$CTL" daemon --socket "$SOCK" --send "busy pid=1 scope=pid"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"type":"proc","pid":1,"class":"online"' <<<"$output"
}

@test "tenancy: 140 refused busy for a member's own processes fill nothing; another's online busy and root's classify still go through (issue 31 W1)" {
	local i pids=() rs
	# an --online selector the member's processes do not match
	daemon_bg --socket "$SOCK" --group "$GRP" --offline uid=0,comm=no-such-job \
		--online "uid=$(id -u "$UB")"
	for i in $(seq 140); do
		as "$UA" sleep 300 &
		pids+=($!)
	done
	HOLD="${pids[*]}"
	for i in "${pids[@]}"; do
		# (each refused: not online, or, before setpriv switched the
		# uid, another's process)
		run as "$UA" "$CTL" daemon --socket "$SOCK" --send "busy pid=$i scope=pid"
		[ "$status" -ne 0 ]
	done
	# the table has room: another tenant's online busy and root's
	# classify are taken (the old table of 128 was full: refused)
	as "$UB" sleep 300 &
	TARGET=$!
	sleep 300 &
	rs=$!
	HOLD="$HOLD $rs"
	for _ in $(seq 100); do
		[ "$(awk '$1 == "Uid:" { print $2 }' "/proc/$TARGET/status")" = \
			"$(id -u "$UB")" ] && break
		sleep 0.05
	done
	run -0 as "$UB" "$CTL" daemon --socket "$SOCK" --send "busy pid=$TARGET scope=pid"
	run -0 "$CTL" daemon --socket "$SOCK" --send "classify pid=$rs class=offline"
	# the refusals are counted
	run -0 "$CTL" policy -j -s "$SOCK"
	[ "$(sed -n 's/.*"refused":\([0-9]*\).*/\1/p' <<<"$output")" -ge 130 ]
}

@test "tenancy: 140 KFD processes of a user no selector classes fill nothing; the next online busy and root's classify go through (issue 31 W1, discovery)" {
	local i rs
	# STAND-IN: KFD's sysfs process folders (no KFD here); the
	# processes and their /proc files are real
	mkdir -p "$D/kfd"
	for i in $(seq 140); do
		as "$UA" sleep 300 &
		HOLD="$HOLD $!"
		mkdir "$D/kfd/$!"
	done
	as "$UB" sleep 300 &
	TARGET=$!
	mkdir "$D/kfd/$TARGET"
	daemon_bg --socket "$SOCK" --group "$GRP" --kfd-proc "$D/kfd" \
		--offline uid=0,comm=no-such-job --online "uid=$(id -u "$UB")"
	# discovery has seen UB's process (online by its selector)
	for _ in $(seq 600); do
		grep -q "found online pid $TARGET" "$D/log" && break
		sleep 0.1
	done
	grep -q "found online pid $TARGET" "$D/log"
	run -0 as "$UB" "$CTL" daemon --socket "$SOCK" --send "busy pid=$TARGET scope=pid"
	sleep 300 &
	rs=$!
	HOLD="$HOLD $rs"
	run -0 "$CTL" daemon --socket "$SOCK" --send "classify pid=$rs class=offline"
	run -0 "$CTL" policy -j -s "$SOCK"
	echo "$output"
	# none of UA's 140 is in the table; UB's online one is
	[ "$(grep -c '"type":"proc"' <<<"$output")" -eq 1 ]
	grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
}

@test "tenancy: a --group member cannot classify its own process online without --tenant-classify" {
	as "$UA" sleep 300 &
	TARGET=$!
	daemon_bg --socket "$SOCK" --group "$GRP" --offline uid=0,comm=no-such-job
	run -3 as "$UA" "$CTL" daemon --socket "$SOCK" --send "classify pid=$TARGET class=online"
	[[ "$output" == *"may not use 'classify': tenants may only with --tenant-classify"* ]]
	run -0 "$CTL" policy -j -s "$SOCK"
	! grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
	kill "$DPID"; wait "$DPID" 2>/dev/null || true
	# the operator allows it: its own process, and only its own
	daemon_bg --socket "$SOCK" --group "$GRP" --offline uid=0,comm=no-such-job --tenant-classify
	run -0 as "$UA" "$CTL" daemon --socket "$SOCK" --send "classify pid=$TARGET class=online"
	run -3 as "$UA" "$CTL" daemon --socket "$SOCK" --send "classify pid=1 class=online"
}

@test "tenancy: one tenant cannot take every connection; refusals logged" {
	daemon_bg --socket "$SOCK" --group "$GRP"
	hold "$UA" 12
	# 8 connections per tenant uid, the rest refused with the reason
	[ "$(grep -c '^ok$' "$D/hold.$UA")" -eq 8 ]
	grep -q "^err 11 24 uid [0-9]* has 8 connections open, the limit per user" \
		"$D/hold.$UA"
	grep -q "limit clients_per_uid: refused pid [0-9]* uid" "$D/log"
	# another tenant and root still get in
	run -0 as "$UB" "$CTL" daemon --socket "$SOCK" --send status
	run -0 "$CTL" daemon --socket "$SOCK" --send status
}

@test "tenancy: root gets a connection when the table is full (oldest idle closed)" {
	daemon_bg --socket "$SOCK"
	hold root 64
	[ "$(grep -c '^ok$' "$D/hold.root")" -eq 64 ]
	run -0 "$CTL" daemon --socket "$SOCK" --send status
	[ "${lines[-1]}" = ok ]
	grep -q "limit idle_evicted_for_admin: closed the idle connection" "$D/log"
}

@test "tenancy: a selector a process controls alone is refused unless allowed, then marked" {
	run -2 "$CTL" daemon -s "$SOCK" --online cmdline=serve.py \
		--offline uid=0,comm=no-such-job
	[[ "$output" == *"--online cmdline=serve.py: comm and cmdline are the process's own to choose"*"--allow-spoofable"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --online comm=srv,cmdline=serve.py
	[ ! -e "$SOCK" ]
	# offline too: a job would leave offline by renaming itself
	run -2 "$CTL" daemon -s "$SOCK" --online uid=0,cmdline=serve.py \
		--offline comm=no-such-job
	[[ "$output" == *"--offline comm=no-such-job: comm and cmdline are the process's own to choose, so an offline job could leave offline by renaming itself"*"uid=N,comm=no-such-job"*"--allow-spoofable"* ]]
	run -2 "$CTL" daemon -s "$SOCK" --offline cmdline=train.py,comm=python3
	[ ! -e "$SOCK" ]
	# with a condition the process does not control: accepted, not marked
	daemon_bg --socket "$SOCK" --online uid=0,cmdline=serve.py \
		--offline uid=0,comm=no-such-job
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"spoofable":"none"' <<<"$output"
	kill "$DPID"
	wait "$DPID" || true
	# insisted on: starts, warns, and policy says which class
	daemon_bg --socket "$SOCK" --online cmdline=serve.py --allow-spoofable \
		--offline uid=0,comm=no-such-job
	grep -q "online cmdline=serve.py is spoofable" "$D/log"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"spoofable":"online"' <<<"$output"
	kill "$DPID"
	wait "$DPID" || true
	daemon_bg --socket "$SOCK" --allow-spoofable --offline comm=no-such-job
	grep -q "offline comm=no-such-job is spoofable" "$D/log"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"spoofable":"offline"' <<<"$output"
}

@test "tenancy: an offline job naming itself after the online selector stays offline" {
	daemon_bg --socket "$SOCK" --group "$GRP" --allow-spoofable \
		--online cmdline=gp-t1-serve --offline "uid=$(id -u "$UA")"
	# the tenant's offline job puts the online string in its own argv
	setpriv --reuid="$UA" --regid="$GRP" --clear-groups \
		bash -c 'sleep 300; :' gp-t1-serve &
	TARGET=$!
	for _ in $(seq 100); do
		grep -q gp-t1-serve "/proc/$TARGET/cmdline" 2>/dev/null && break
		sleep 0.05
	done
	run -2 as "$UA" "$CTL" notify busy --pid "$TARGET" -s "$SOCK"
	[[ "$output" == *"pid $TARGET (bash) is offline, not online"* ]]
}

@test "tenancy: a busy never renewed ends after --busy-max; counted and logged" {
	run -0 "$CTL" daemon --help
	[[ "$output" == *"--busy-max"* ]]
	daemon_bg --socket "$SOCK" --offline uid=0,comm=no-such-job --busy-max 1s
	sleep 300 &
	TARGET=$!
	run -0 "$CTL" daemon --socket "$SOCK" --send "busy pid=$TARGET scope=pid"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"online_busy":1' <<<"$output"
	grep -q '"busy_max_ns":1000000000' <<<"$output"
	# nobody says idle: it ends on its own (progress-polled, no fixed sleep)
	for _ in $(seq 600); do
		"$CTL" policy -j -s "$SOCK" | grep -q '"online_busy":0' && break
		sleep 0.1
	done
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"online_busy":0' <<<"$output"
	grep -q '"busy_expired":1' <<<"$output"
	grep -q "limit busy_expired: 1 busy ended" "$D/log"
}
