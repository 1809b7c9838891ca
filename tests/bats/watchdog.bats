#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# scripts/watchdog.sh, the progress-based limit of the VM harness: a
# silent child is ended after the silence limit, a slow child that keeps
# writing is not, however long it runs. The chatty children write every
# 0.1 s against a 5 s limit, so a loaded host does not make them look
# silent. Run with bash and with busybox sh (the guests' shell).

WD=$BATS_TEST_DIRNAME/../../scripts/watchdog.sh

setup() {
	LOG=$(mktemp)
}

teardown() {
	rm -f "$LOG"
}

shells() {
	echo sh
	command -v busybox >/dev/null && echo "busybox sh"
}

@test "watchdog: a silent child is ended after the silence limit, exit 124, says why" {
	for sh in $(shells | tr ' ' '+'); do
		run ${sh//+/ } "$WD" -s 2 -f "$LOG" -- sleep 600
		[ "$status" -eq 124 ]
		[[ "$output" == *"watchdog: no progress for 2 s: ending sleep"* ]]
	done
}

@test "watchdog: a child that keeps writing outlives the silence limit and keeps its status" {
	for sh in $(shells | tr ' ' '+'); do
		: > "$LOG"
		run ${sh//+/ } "$WD" -s 5 -f "$LOG" -- sh -c \
			"t=\$((\$(date +%s) + 8)); while [ \$(date +%s) -lt \$t ]; do echo x >> '$LOG'; sleep 0.1; done; exit 3"
		[ "$status" -eq 3 ]
		[[ "$output" != *watchdog* ]]
		# it really ran longer than the limit
		[ "$(wc -l < "$LOG")" -gt 20 ]
	done
}

@test "watchdog: a probe command's changing output is progress too" {
	run "$WD" -s 5 -p "wc -c < '$LOG'" -- sh -c \
		"t=\$((\$(date +%s) + 8)); while [ \$(date +%s) -lt \$t ]; do echo x >> '$LOG'; sleep 0.1; done"
	[ "$status" -eq 0 ]
	run "$WD" -s 2 -p "wc -c < '$LOG'" -- sleep 600
	[ "$status" -eq 124 ]
}

@test "watchdog: the ceiling ends a child that never stops writing" {
	run "$WD" -s 60 -m 3 -f "$LOG" -- sh -c "while :; do echo x >> '$LOG'; sleep 0.1; done"
	[ "$status" -eq 124 ]
	[[ "$output" == *"still running after its 3 s ceiling"* ]]
}

@test "watchdog: a child that ignores SIGTERM is killed" {
	run "$WD" -s 2 -- sh -c 'trap "" TERM; while :; do sleep 1; done'
	[ "$status" -eq 124 ]
}

@test "watchdog: a quick child returns at once with its status; stdin is passed" {
	run sh -c "echo hello | '$WD' -s 60 -- sh -c 'read l; echo got \$l; exit 7'"
	[ "$status" -eq 7 ]
	[[ "$output" == *"got hello"* ]]
	run "$WD" -s 60
	[ "$status" -eq 2 ]
	run "$WD" -s 1x -- true
	[ "$status" -eq 2 ]
}
