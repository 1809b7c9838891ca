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
	# a stand-in tracer left by a failed stop test (its own group: set -m)
	[ ! -s "$OUT/standin.pid" ] || kill -KILL -- -"$(cat "$OUT/standin.pid")" 2>/dev/null || true
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

# The guest's stop of a bpftrace baseline (bench/guest-overhead.sh's
# stop_bt), run on the host with a stand-in tracer: a shell that prints
# END's last line on SIGINT and then burns CPU, as bpftrace's kprobe
# detach did under TCG with two host hogs (the boot went 600 s silent and
# was ended). Its functions are taken from the script as they are. The
# stand-in writes nowhere and runs in a group of its own, which teardown
# kills: a failed stop must not leave it holding bats's output.
stop_bt_fns() {
	sed -n -e '/^info() /p' -e '/^alive() /p' -e '/^wait_gone() /,/^}/p' \
		-e '/^cpu_ticks() /,/^}/p' -e '/^BT_STUCK=/p' -e '/^BT_EXIT=/p' \
		-e '/^stop_bt() /,/^}/p' "$TOP/bench/guest-overhead.sh"
}

# stop_bt_run NAME ON_INT [BT_EXIT]: start a stand-in tracer whose SIGINT
# trap runs ON_INT (sh; $0 is $OUT, its output file $0/NAME.out), then
# call stop_bt NAME on it; $output is what stop_bt printed. Bounded by
# timeout: before BT_EXIT a tracer burning CPU counted as progress forever.
stop_bt_run() {
	local name=$1 on_int=$2 bt_exit=${3:-}
	stop_bt_fns > "$OUT/fns.sh"
	grep -q '^stop_bt() ' "$OUT/fns.sh"
	printf '%s\n' "$on_int" > "$OUT/on_int.sh"
	cat > "$OUT/t.sh" <<'EOS'
W=$1 NAME=$2
set -m	# else the stand-in starts with SIGINT ignored, as async jobs do
. "$W/fns.sh"
[ -z "$3" ] || BT_EXIT=$3
sh -c 'trap ". $0/on_int.sh" INT; while :; do sleep 1; done' "$W" > /dev/null 2>&1 &
TPID=$!	# stop_bt's tracer
echo $TPID > "$W/standin.pid"
: > "$W/$NAME.out"
sleep 0.5
stop_bt "$NAME"
EOS
	run timeout 300 bash "$OUT/t.sh" "$OUT" "$name" "$bt_exit"
	echo "$output"
}

@test "bench guest: a bpftrace that burns CPU after END is killed after BT_EXIT, not waited for" {
	stop_bt_run bt-x 'echo gpb-end >> $0/bt-x.out; while :; do :; done' 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"BENCH info bt-x: still exiting "*" s after SIGINT, after END (counts in): killed"* ]]
	[[ "$output" != *"exited without running END"* ]]
}

@test "bench guest: a bpftrace slow to stop makes the guest print every 30 s, so the host's silence limit spares the boot" {
	# busy for 35 s after SIGINT, then END and exit
	stop_bt_run bt-y 'e=$(($(date +%s) + 35)); while [ $(date +%s) -lt $e ]; do :; done
echo gpb-end >> $0/bt-y.out; exit 0'
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpb: bt-y stopping, 30 s after SIGINT, END not yet"* ]]
	[[ "$output" != *"killed"* ]]
	[[ "$output" != *"exited without running END"* ]]
}
