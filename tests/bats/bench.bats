#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# bench/run.sh in its full mode (make bench), host parts only: the test
# command runs --quick, so a full-mode-only path would rot unseen. The
# figures are not checked here (benchmarks are never timed tests); the
# run must reach its table and exit 0.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	OUT=$(mktemp -d)
}

teardown() {
	rm -rf "$OUT"
}

@test "bench/run.sh full mode: the host parts gpus and detect run to the table and exit 0" {
	if ! "$TOP/scripts/rocr.sh" path hiplibdir > /dev/null 2>&1; then
		skip "HIP runtime not cached (scripts/setup.sh test)"
	fi
	cd "$TOP"
	run -0 env BENCH_OUTPUT="$OUT" bench/run.sh --only gpus --only detect
	[[ "$output" == *"== per-GPU against node scope"* ]]
	[[ "$output" == *"# launch detector, host"* ]]
	[[ "$output" == *"== gpreempt benchmarks ("* ]]
}

@test "bench/arbiter.sh --gpus-report: a run that lost a line prints '-' for it, no ratio from it, and the whole table" {
	zcat "$TOP/bench/results/2026-11-26/arbiter-gpus-vm.raw.gz" |
		grep -v '^BENCH gioctl gpu 64 ' > "$OUT/arb-vm.raw"
	run -0 env BENCH_OUTPUT="$OUT" "$TOP/bench/arbiter.sh" --gpus-report
	[[ "$output" == *"64   gpu "*" -"* ]]
	[[ "$output" != *"K=64 gpu/node"* ]]
	[ "${#lines[@]}" -eq 9 ]
}

# bench/edge.sh --report on a made-up raw output: a suspend before a
# round's stamp (moved to the boot clock by its offset) is not that
# round's, a round takes its first suspend before the next round's stamp,
# a round with none is left out, and the ratio is launch over notify.
@test "bench/edge.sh --report: rounds matched to their first suspend on the boot clock, launch/notify ratio" {
	cat > "$OUT/edge-vm.raw" <<-'RAW'
	BENCH edge-t0 1 1000 500
	BENCH edge-t0 2 5000 500
	BENCH edge-t0 3 10000 500
	BENCH edge-ev suspend 1400
	BENCH edge-ev suspend 2500
	BENCH edge-ev resume 3000
	BENCH edge-ev suspend 9000
	BENCH edge-ev suspend 7500
	BENCH arb 1 0 500 100
	BENCH arb 1 1 1000 100
	BENCH end edge
	RAW
	run -0 env BENCH_OUTPUT="$OUT" "$TOP/bench/edge.sh" --report
	[[ "$output" =~ \(launch\)\ +2\ +1\.0\ +2\.0 ]]
	[[ "$output" =~ \(baseline\)\ +2\ +0\.5\ +1\.0 ]]
	[[ "$output" == *"# launch/notify: p50 2.00x, p99 2.00x"* ]]
}

@test "bench/edge.sh --report: a run without the notify baseline fails and prints no ratio" {
	printf 'BENCH edge-t0 1 1000 500\nBENCH edge-ev suspend 2500\n' > "$OUT/edge-vm.raw"
	run -1 env BENCH_OUTPUT="$OUT" "$TOP/bench/edge.sh" --report
	[[ "$output" == *"(baseline)"*" 0 "*"-"* ]]
	[[ "$output" != *"launch/notify"* ]]
}

@test "bench/edge.sh --report: the stored 6.12 run (2026-11-26) gives 30 rounds of each path and a ratio" {
	zcat "$TOP/bench/results/2026-11-26/edge-vm.raw.gz" > "$OUT/edge-vm.raw"
	run -0 env BENCH_OUTPUT="$OUT" "$TOP/bench/edge.sh" --report
	[[ "$output" =~ \(launch\)\ +30\  ]]
	[[ "$output" =~ \(baseline\)\ +30\  ]]
	[[ "$output" == *"# launch/notify: p50 0.75x, p99 1.77x"* ]]
}
