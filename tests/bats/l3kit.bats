#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The co-location kit on the host (no GPU): scripts/l3-colocate.sh refuses
# clearly without /dev/kfd or root, rejects bad input, and its analysis
# step (--analyze-only) turns the synthetic fixture
# tests/unit/fixtures/l3/demo into a summary, NDJSON verdicts and plot
# data, and the docs' example reports are what the code prints. The
# GPU runs themselves are L3 and never run here.

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

@test "l3-colocate --analyze-only: the CUDA benchmark's table of the same rows (bench/cuda/report.py)" {
	command -v python3 >/dev/null || skip "no python3"
	cp -r "$DEMO/runs" "$WORK/"
	run -1 "$KIT" --analyze-only "$WORK"
	[[ "$output" == *"table: $WORK/report.md (the rows and ratios of bench/cuda/colocate.sh)"* ]]
	# the fixture's ratios as l3-analyze's summary has them: online p99
	# 128.39 / 7.39 ms shared, offline 384.9 / 495.5 /s queues; the
	# queues run's 120 suspends (2.08 / 3.17 ms) from trace.ndjson
	grep -q '^| shared (no arbitration) | 5.13 | 17.37 | 0.96 | 1.06 |' "$WORK/report.md"
	grep -q '^| gpreempt, queues (AMD) | 1.45 | 2.23 | 0.78 | 0.86 | 7.8 | 2.08 / 3.17 |' "$WORK/report.md"
	grep -q '^| gpreempt, launch | not run |' "$WORK/report.md"
	grep -q '^| MPS | not run |' "$WORK/report.md"
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

# The whole kit with the stand-ins of tests/kit/standin (no GPU, no BPF):
# run order, the daemon's flags, --notify-socket only in the notify run,
# clean-up, output layout, analysis.
standin_kit() {
	mkdir -p "$WORK/s"
	L3_STANDIN_DIR=$WORK/s L3_KFD=/dev/null \
	L3_BIN=$BATS_TEST_DIRNAME/../kit/standin \
	L3_HIPCC=$BATS_TEST_DIRNAME/../kit/standin/hipcc \
		"$KIT" --workloads hip --duration 1 --warmup 0 --out "$WORK/o" "$@"
}

@test "l3-colocate end to end with stand-ins: six runs, arbiter flags, summary, nothing left running" {
	[ "$(id -u)" = 0 ] || skip "needs root (the kit refuses otherwise)"
	run -0 standin_kit --min-cycles 1
	for r in online-alone offline-alone both-plain both-notify both-launch both-queues; do
		[ -e "$WORK/o/runs/$r/trace.ndjson" ]
		[[ "$output" == *"== run $r"* ]]
	done
	[ -s "$WORK/o/runs/both-notify/trace.ndjson" ]
	[ -s "$WORK/o/runs/both-queues/trace.ndjson" ]
	[ ! -s "$WORK/o/runs/both-plain/trace.ndjson" ]	# no arbiter, no suspend
	[ -s "$WORK/o/host.txt" ] && [ -s "$WORK/o/snapshot-start.json" ]
	[ -s "$WORK/o/summary.txt" ] && [ -s "$WORK/o/plots/plots.gp" ]
	# the arbiter got the selectors and the detection mode of each run
	grep -qx -- "--socket $WORK/o/runs/both-notify/arbiter.sock --ready $WORK/o/runs/both-notify/daemon.ready --online uid=0,cmdline=gp-l3-online --offline uid=0,cmdline=gp-l3-offline --detect notify" "$WORK/s/daemon.args"
	grep -q -- "--detect queues$" "$WORK/s/daemon.args"
	grep -q -- "--detect launch$" "$WORK/s/daemon.args"
	# only the notify run's online program talks to the daemon
	[ "$(grep -c -- --notify-socket "$WORK/s/online.args")" = 1 ]
	[ "$(wc -l < "$WORK/s/online.args")" = 5 ]
	# the CUDA benchmark's table of the same rows, printed at the end
	if command -v python3 >/dev/null; then
		[[ "$output" == *"| gpreempt, launch |"* ]]
		grep -q '^| MPS | not run |' "$WORK/o/report.md"
	fi
	jq -e -s '[.[] | select(.type == "verdict")] | length == 10 and all(.result == "PASS")' "$WORK/o/summary.json"
	[ ! -e "$WORK/s/arbiter-on" ]		# the daemon was stopped
	! pgrep -f "$WORK" >/dev/null		# nothing of the kit still runs
}

@test "l3-colocate with a daemon that has no arbiter: its runs skipped and said so; nothing to judge: exit 2" {
	[ "$(id -u)" = 0 ] || skip "needs root (the kit refuses otherwise)"
	L3_STANDIN_NO_ARBITER=1 run -2 standin_kit --runs "online-alone both-notify"
	[[ "$output" == *"run both-notify skipped: this gpreempt-ctl daemon has no --online/--offline"* ]]
	[ -s "$WORK/o/runs/online-alone/online.ndjson" ]
	[ ! -e "$WORK/o/runs/both-notify" ]
	[ ! -e "$WORK/s/daemon.args" ]
}

@test "l3-colocate without hipcc or PyTorch: exit 5, says what to install" {
	[ "$(id -u)" = 0 ] || skip "needs root (the kit refuses otherwise)"
	L3_KFD=/dev/null L3_BIN=$BATS_TEST_DIRNAME/../kit/standin \
	L3_HIPCC=/nonexistent/hipcc run -5 "$KIT" --workloads hip --out "$WORK/o"
	[[ "$output" == *"hipcc not found"* ]]
}

# L3_PYTHON (docs/hardware-kit.md): the PyTorch check and the PyTorch
# workloads use the interpreter it names; none, or --workloads hip, skips
# the check. A stand-in interpreter records how it was called.
@test "l3-colocate: L3_PYTHON points the PyTorch check and workloads; none or --workloads hip skips the check" {
	[ "$(id -u)" = 0 ] || skip "needs root (the kit refuses otherwise)"
	printf '#!/bin/sh\necho "$*" >> %s/py.args\n' "$WORK" > "$WORK/py"
	chmod +x "$WORK/py"
	L3_PYTHON=$WORK/py run standin_kit --workloads auto --runs online-alone
	grep -q '^workloads: torch' "$WORK/o/host.txt"
	grep -q '^-c import torch' "$WORK/py.args"
	grep -q 'tests/l3/online_resnet.py --rate 20 --duration 1$' "$WORK/py.args"
	rm -rf "$WORK/o" "$WORK/py.args"
	L3_PYTHON=$WORK/py run standin_kit --runs online-alone
	grep -q '^workloads: hip' "$WORK/o/host.txt"
	[ ! -e "$WORK/py.args" ]	# --workloads hip: never asked
	rm -rf "$WORK/o"
	L3_PYTHON=none run standin_kit --workloads auto --runs online-alone
	grep -q '^workloads: hip' "$WORK/o/host.txt"
	rm -rf "$WORK/o"
	L3_PYTHON=none run -5 standin_kit --workloads torch
	[[ "$output" == *"not importable by none (set L3_PYTHON)"* ]]
	[ ! -e "$WORK/o" ]
}

# The docs' two example reports are the fixtures' real output: they
# must not drift from the code.
@test "docs/hardware-kit.md: the kit's example report is l3-analyze's output on the fixture" {
	README=$BATS_TEST_DIRNAME/../../docs/hardware-kit.md
	cp -r "$DEMO/runs" "$WORK/"
	"$KIT" --analyze-only "$WORK" | grep -v -e '^plots:' -e '^table:' > "$WORK/got" || true
	awk '/^RUN             REQS/,/FAIL  \(2 failed\)/' "$README" > "$WORK/want"
	[ -s "$WORK/want" ]
	diff -u "$WORK/want" "$WORK/got"
}

@test "docs/snapshot.md: the snapshot example is gpreempt-ctl snapshot on the fixture root" {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	README=$BATS_TEST_DIRNAME/../../docs/snapshot.md
	"$CTL" snapshot --root "$BATS_TEST_DIRNAME/../unit/fixtures/snapshot_root" |
		tail -n +2 > "$WORK/got"
	awk '/^KFD topology: 3 nodes, 2 GPUs/,/^HQDs node 2 gpu 23373/' "$README" > "$WORK/want"
	[ -s "$WORK/want" ]
	diff -u "$WORK/want" "$WORK/got"
}

# scripts/l3-gpus.sh: the per-GPU kit's analysis on synthetic runs
# (tests/unit/fixtures/l3/gpus), and its refusals. GPU runs are L3.
@test "l3-gpus --analyze-only: verdicts PASS on the synthetic runs, FAIL when per-GPU is slow" {
	GK=$BATS_TEST_DIRNAME/../../scripts/l3-gpus.sh
	cp -r "$BATS_TEST_DIRNAME/../unit/fixtures/l3/gpus/runs" "$WORK/"
	run -0 "$GK" --analyze-only "$WORK"
	[[ "$output" == *"VERDICT online_p99_per_gpu       11.080     12.078  PASS"* ]]
	[[ "$output" == *"VERDICT per_gpu_vs_node          11.080     14.980  PASS"* ]]
	jq -e -s '[.[] | select(.type == "verdict" and .result == "PASS")] | length == 3' "$WORK/summary.json"
	# per-GPU as slow as node: both latency verdicts fail, exit 1
	cp "$WORK/runs/node/online.ndjson" "$WORK/runs/per-gpu/online.ndjson"
	run -1 "$GK" --analyze-only "$WORK"
	[[ "$output" == *"VERDICT online_p99_per_gpu       14.980     12.078  FAIL"* ]]
	rm "$WORK/runs/node/online.ndjson"
	run -2 "$GK" --analyze-only "$WORK"
	[[ "$output" == *"node/online.ndjson missing: nothing to judge"* ]]
}

@test "l3-gpus refuses without /dev/kfd (exit 4) and with fewer than two GPU nodes (exit 8)" {
	GK=$BATS_TEST_DIRNAME/../../scripts/l3-gpus.sh
	run -4 env L3_KFD=/nonexistent "$GK"
	[[ "$output" == *"no /nonexistent"* ]]
	run -2 "$GK" --rate fast
	mkdir -p "$WORK/topo/nodes/0" "$WORK/topo/nodes/1"
	echo 0 > "$WORK/topo/nodes/0/gpu_id"
	echo 4242 > "$WORK/topo/nodes/1/gpu_id"
	run -8 env L3_KFD=/dev/null L3_HIPCC=true L3_TOPO="$WORK/topo" \
		L3_BIN="$BATS_TEST_DIRNAME/../kit/standin" "$GK"
	[[ "$output" == *"fewer than two GPU nodes"* ]]
}
