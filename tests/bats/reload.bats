#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# SIGHUP and the arbiter on the host (root, no AMD GPU, no KFD): a reload
# applies new selectors and policy timings to the running arbiter, ends
# the busy of a process that is no longer online, turns the arbiter on
# and off, and a bad file changes nothing. Offline holds surviving a
# reload and a reclassification resuming one need KFD: tests/vm/70-*.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	command -v jq >/dev/null || skip "no jq"
	D=$BATS_TEST_TMPDIR
	SOCK=$D/ctl.sock
	CONF=$D/gpreempt.conf
	DPID= S=
}

teardown() {
	daemon_teardown "$S"
}

load daemon_helper

start_daemon() {
	daemon_bg --config "$CONF" "$@"
}

# reload TEXT: SIGHUP, then the log gets TEXT (5 s at most).
reload() {
	local n
	n=$(grep -c "reload" "$D/log" || true)
	kill -HUP "$DPID"
	for _ in $(seq 100); do
		[ "$(grep -c "reload" "$D/log")" -gt "$n" ] &&
			grep -qF "$1" "$D/log" && return 0
		sleep 0.05
	done
	cat "$D/log"
	return 1
}

arbiter() { # jq expression on the "arbiter" record
	run -0 "$CTL" policy -j -s "$SOCK"
	echo "$output" | jq -s -e "[.[] | select(.type == \"arbiter\")] | .[0] | $1"
}

@test "reload: new timings apply while online stays busy; a process no longer online loses its busy" {
	sleep 300 & S=$!
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nresume-after 2ms\n' \
		"$SOCK" "$S" > "$CONF"
	start_daemon
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	arbiter '.online_busy == 1 and .resume_after_ns == 2000000 and .busy_periods == 1'
	# Same classes, new timings: the busy period goes on.
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nresume-after 5ms\nmin-offline-share 20\nwindow 500ms\n' \
		"$SOCK" "$S" > "$CONF"
	reload "arbiter: reloaded: 1 online and 1 offline selectors, detect notify, --resume-after 5.000 ms, --min-offline-share 20%, --window 500.000 ms"
	arbiter '.online_busy == 1 and .resume_after_ns == 5000000 and .min_offline_share == 20 and .window_ns == 500000000 and .busy_periods == 1'
	# The online selector no longer names it: its busy ends, new ones are refused.
	printf 'socket %s\nonline uid=0,cmdline=serve.py\noffline uid=0,comm=no-such-job\n' "$SOCK" > "$CONF"
	reload "process reclassified"
	grep -q "online pid $S (sleep) reclassified (reload): now none" "$D/log"
	arbiter '.online_busy == 0 and .resume_after_ns == 2000000 and .min_offline_share == 0'
	run -2 "$CTL" notify busy --pid "$S" -s "$SOCK"
	[[ "$output" == *"is none, not online"* ]]
	# A run-time class is the operator's later word: a reload keeps it.
	run -0 "$CTL" daemon -s "$SOCK" --send "classify pid=$S class=online"
	reload "arbiter: reloaded"
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

# A reload classifies known processes again from their description as
# the arbiter first met them: it reads no /proc file on the loop (those
# reads can wait on the process: user/arbiter/arbiter_reload.c). Before,
# SIGHUP re-read every known process's /proc files on the loop, and a
# process that renamed itself since left the online class at a reload.
@test "reload: known processes are classified again from their first description, not re-read" {
	bash -c 'printf gp-srv > /proc/$$/comm
		while [ ! -e "$1/rename" ]; do sleep 0.05; done
		printf gp-other > /proc/$$/comm
		while :; do sleep 1; done' - "$D" & S=$!
	for _ in $(seq 200); do
		[ "$(cat /proc/$S/comm)" = gp-srv ] && break; sleep 0.05
	done
	printf 'socket %s
online uid=0,comm=gp-srv
offline uid=0,comm=no-such-job
' \
		"$SOCK" > "$CONF"
	start_daemon
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	touch "$D/rename"
	for _ in $(seq 200); do
		[ "$(cat /proc/$S/comm)" = gp-other ] && break; sleep 0.05
	done
	[ "$(cat /proc/$S/comm)" = gp-other ]
	printf 'socket %s
online uid=0,comm=gp-srv
offline uid=0,comm=no-such-job
resume-after 3ms
' \
		"$SOCK" > "$CONF"
	reload "0 processes reclassified"
	! grep -q "pid $S .* reclassified (reload)" "$D/log"
	arbiter '.online_busy == 1 and .resume_after_ns == 3000000'
	run -0 "$CTL" notify idle --pid "$S" -s "$SOCK"
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "reload: a bad file changes nothing in the arbiter" {
	sleep 300 & S=$!
	printf 'socket %s\nonline pid=%d\noffline uid=0,comm=no-such-job\nresume-after 3ms\n' \
		"$SOCK" "$S" > "$CONF"
	start_daemon
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	for bad in 'min-offline-share 150' 'offline name=x' 'detect cpu' 'window 0' \
		   "online comm=$(printf 'x%.0s' $(seq 20))"; do
		printf 'socket %s\nonline uid=0,cmdline=other\nresume-after 9ms\n%s\n' \
			"$SOCK" "$bad" > "$CONF"
		reload "reload refused, running configuration kept: $CONF:4:"
		arbiter '.online_busy == 1 and .resume_after_ns == 3000000'
	done
	! grep -q "arbiter: reloaded" "$D/log"
	run -0 "$CTL" notify idle --pid "$S" -s "$SOCK"
}

@test "reload: notify turned off ends the busy it reported" {
	sleep 300 & S=$!
	printf 'socket %s\noffline uid=0,comm=no-such-job\n' "$SOCK" > "$CONF"
	start_daemon
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	arbiter '.online_busy == 1'
	printf 'socket %s\noffline uid=0,comm=no-such-job\ndetect queues\n' "$SOCK" > "$CONF"
	reload "arbiter: reloaded"
	grep -q "notify is off: 1 busy source ended" "$D/log"
	arbiter '.online_busy == 0 and .detect == "queues"'
	run -2 "$CTL" notify busy --pid "$S" -s "$SOCK"
	[[ "$output" == *"notify is off"* ]]
}

@test "reload: arbitration options turn the arbiter on, and their removal off" {
	sleep 300 & S=$!
	printf 'socket %s\n' "$SOCK" > "$CONF"
	start_daemon
	run -2 "$CTL" notify busy --pid "$S" -s "$SOCK"
	[[ "$output" == *"does not arbitrate"* ]]
	printf 'socket %s\noffline uid=0,comm=no-such-job\nresume-after 4ms\n' "$SOCK" > "$CONF"
	reload "reloaded $CONF"
	grep -q "arbiter: 0 online and 1 offline selector, detect notify, --resume-after 4.000 ms" "$D/log"
	run -0 "$CTL" notify busy --pid "$S" -s "$SOCK"
	arbiter '.online_busy == 1'
	printf 'socket %s\n' "$SOCK" > "$CONF"
	reload "arbiter: off after reload"
	run -2 "$CTL" notify busy --pid "$S" -s "$SOCK"
	[[ "$output" == *"does not arbitrate"* ]]
	run -0 "$CTL" daemon -s "$SOCK" --send status
}
