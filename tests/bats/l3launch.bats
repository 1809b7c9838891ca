#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The launch-detection kit on the host (no GPU): scripts/l3-launch.sh's
# analysis (--analyze-only) on the synthetic runs of
# tests/unit/fixtures/l3/launch (three launch-to-suspended samples of 3, 5
# and 8 ms; 10000 vs 9600 launches/s; a read index one behind the write
# index while the kernel runs; a first request whose launch no suspend
# followed), verdicts at their thresholds and both
# outcomes, and its refusals. The GPU runs are L3 and never run here.

bats_require_minimum_version 1.5.0

setup() {
	KIT=$BATS_TEST_DIRNAME/../../scripts/l3-launch.sh
	WORK=$(mktemp -d)
	cp -r "$BATS_TEST_DIRNAME/../unit/fixtures/l3/launch/." "$WORK/"
}

teardown() {
	rm -rf "$WORK"
}

@test "l3-launch --analyze-only: the three verdicts pass on the fixture; summary.txt written" {
	run -0 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"latency: 3 launch-to-suspended samples, p50 5.000 ms, p99 8.000 ms"* ]]
	[[ "$output" == *"VERDICT launch_to_suspended_p99         8.000         10  PASS"* ]]
	[[ "$output" == *"ratio 0.960, 4.17 us per launch"* ]]
	[[ "$output" == *"VERDICT uprobe_cost_pct                  4.00          5  PASS"* ]]
	[[ "$output" == *"VERDICT read_dispatch_id advances at completion"* ]]
	grep -q '^VERDICT read_dispatch_id advances at completion$' "$WORK/summary.txt"
}

@test "l3-launch verdicts at their thresholds: equal passes, just below fails (exit 1)" {
	run -0 "$KIT" --max-latency-ms 8 --max-cost-pct 4 --analyze-only "$WORK"
	[ "$(grep -c ' PASS$' <<< "$output")" = 2 ]
	run -1 "$KIT" --max-latency-ms 7.99 --analyze-only "$WORK"
	[[ "$output" == *"VERDICT launch_to_suspended_p99         8.000       7.99  FAIL"* ]]
	[[ "$output" == *"uprobe_cost_pct"*"PASS"* ]]
	run -1 "$KIT" --max-cost-pct 3.99 --analyze-only "$WORK"
	[[ "$output" == *"VERDICT uprobe_cost_pct                  4.00       3.99  FAIL"* ]]
}

@test "l3-launch: a request that starts while offline is already suspended is not a sample" {
	# drop the resume before request 1: it starts with offline suspended
	grep -v '"ts_boot_ns":1200000000' "$WORK/latency/trace.ndjson" > "$WORK/t"
	mv "$WORK/t" "$WORK/latency/trace.ndjson"
	run -0 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"latency: 2 launch-to-suspended samples, p50 3.000 ms, p99 8.000 ms"* ]]
}

@test "l3-launch read index: equal to the write index while the kernel runs is 'at launch'; mixed is undetermined" {
	awk '{ print $1, 6, 6 }' "$WORK/readidx/samples.txt" > "$WORK/s"
	mv "$WORK/s" "$WORK/readidx/samples.txt"
	run -0 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"read == write in 17, read < write in 0"* ]]
	[[ "$output" == *"VERDICT read_dispatch_id advances at launch"* ]]
	awk 'NR == 5 { print $1, 5, 6; next } { print }' "$WORK/readidx/samples.txt" > "$WORK/s"
	mv "$WORK/s" "$WORK/readidx/samples.txt"
	run -0 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"VERDICT read_dispatch_id advances undetermined"* ]]
}

@test "l3-launch: probes never attached, or no data at all: nothing to judge (exit 2)" {
	: > "$WORK/cost/daemon.log"
	run -0 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"cost: cost/daemon.log never says the probes were attached: nothing to judge"* ]]
	[[ "$output" != *"uprobe_cost_pct"* ]]
	mkdir "$WORK/empty"
	run -2 "$KIT" --analyze-only "$WORK/empty"
	[[ "$output" == *"l3-launch: nothing to judge in $WORK/empty"* ]]
	run -2 "$KIT" --analyze-only "$WORK/nonexistent"
	[[ "$output" == *"no folder"* ]]
}

@test "l3-launch: bad option or number: exit 2" {
	run -2 "$KIT" --bogus
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run -2 "$KIT" --hold x
	[[ "$output" == *"not a positive number: 'x'"* ]]
}

@test "l3-launch refusals: not root exit 3, no /dev/kfd exit 4, no hipcc exit 5, not built exit 6; nothing created" {
	if [ "$(id -u)" != 0 ]; then run -3 "$KIT" --out "$WORK/o"; return; fi
	command -v setpriv >/dev/null && {
		run -3 setpriv --reuid=65534 --regid=65534 --clear-groups "$KIT" --out "$WORK/o"
		[[ "$output" == *"run as root"* ]]
	}
	run -4 env L3_KFD=/nonexistent "$KIT" --out "$WORK/o"
	[[ "$output" == *"no /nonexistent: is amdgpu loaded"* ]]
	run -5 env L3_KFD=/dev/null L3_HIPCC=/nonexistent/hipcc "$KIT" --out "$WORK/o"
	[[ "$output" == *"hipcc not found"* ]]
	run -6 env L3_KFD=/dev/null L3_HIPCC=true L3_BIN="$WORK/nobin" "$KIT" --out "$WORK/o"
	[[ "$output" == *"build first"* ]]
	[ ! -e "$WORK/o" ]
}
