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
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null || true
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
