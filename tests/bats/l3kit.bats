#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The co-location kit on the host (no GPU): scripts/l3-colocate.sh refuses
# clearly without /dev/kfd or root, rejects bad input, and its analysis
# step (--analyze-only) turns the synthetic fixture
# tests/unit/fixtures/l3/demo into a summary, NDJSON verdicts and plot
# data. The GPU runs themselves are L3 and never run here.

bats_require_minimum_version 1.5.0

setup() {
	KIT=$BATS_TEST_DIRNAME/../../scripts/l3-colocate.sh
	DEMO=$BATS_TEST_DIRNAME/../unit/fixtures/l3/demo
	command -v cc >/dev/null || skip "no cc"
	WORK=$(mktemp -d)
}

teardown() {
	rm -rf "$WORK"
}

@test "l3-colocate --analyze-only: summary, verdicts, plot data; exit 1 (a verdict fails)" {
	cp -r "$DEMO/runs" "$WORK/"
	run -1 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"VERDICTS both-notify"* ]]
	[[ "$output" == *"offline loss < 20 %               22.33  FAIL"* ]]
	[ -s "$WORK/summary.txt" ] && [ -s "$WORK/plots/plots.gp" ]
	[ -s "$WORK/plots/both-queues-cdf.dat" ]
	jq -e -s '[.[] | select(.type == "verdict")] | length == 10' "$WORK/summary.json"
	jq -e -s '.[] | select(.type == "verdict" and .run == "both-notify" and .name == "online_p99") | .result == "PASS" and .ideal_result == "PASS"' "$WORK/summary.json"
}

@test "l3-colocate --analyze-only --min-cycles 1 on both-notify alone: exit 0, all PASS" {
	mkdir -p "$WORK/runs"
	cp -r "$DEMO/runs/offline-alone" "$DEMO/runs/both-notify" "$WORK/runs/"
	run -0 "$KIT" --min-cycles 1 --analyze-only "$WORK"
	jq -e -s 'all(.[] | select(.type == "verdict"); .result == "PASS")' "$WORK/summary.json"
}

@test "l3-colocate --analyze-only on a folder without runs/: exit 2, says why" {
	run -2 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"has no runs/ folder"* ]]
}

@test "l3-colocate: bad option or number: exit 2, usage" {
	run -2 "$KIT" --bogus
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run -2 "$KIT" --duration abc
	[[ "$output" == *"not a positive number"* ]]
}

@test "l3-colocate without /dev/kfd: exit 4, says a GPU is needed" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	[ "$(id -u)" = 0 ] || skip "not root (the root check comes first)"
	run -4 "$KIT" --out "$WORK/o"
	[[ "$output" == *"no /dev/kfd"* ]]
	[ ! -e "$WORK/o" ]	# refused before creating anything
}

@test "l3-colocate as a non-root user: exit 3" {
	[ "$(id -u)" = 0 ] || { run -3 "$KIT"; return; }
	command -v setpriv >/dev/null || skip "no setpriv"
	run -3 setpriv --reuid=65534 --regid=65534 --clear-groups "$KIT"
	[[ "$output" == *"run as root"* ]]
}
