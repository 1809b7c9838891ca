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
