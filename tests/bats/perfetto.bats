#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# gpreempt-trace --perfetto: the writer's golden trace (a scripted run of
# events, tests/unit/test_pftrace.c --write) decoded by Debian's protoc
# against the schema subset tests/perfetto/perfetto_subset.proto and
# compared byte for byte with tests/perfetto/golden.txt, then checked by
# python3-protobuf (tests/perfetto/check_trace.py: clock snapshot,
# sequence, tracks, nesting, timestamps, counters). L0 (no kernel): the
# tracer cannot attach on this host; the CLI's refusals are L1.

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PY=/usr/bin/python3

setup() {
	cd "$TOP"
	BIN=${GP_BIN:-$TOP/.output/bin}
	TESTS=$BIN/../tests
	[ -x "$TESTS/test_pftrace" ] || skip "no $TESTS/test_pftrace (make tests)"
	command -v protoc >/dev/null ||
		skip "no protoc (apt-get install protobuf-compiler; scripts/setup.sh does)"
	T=$BATS_TEST_TMPDIR
}

decode() {
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace \
		perfetto_subset.proto < "$1"
}

# the subset's python module, for check_trace.py
pymod() {
	"$PY" -c 'import google.protobuf' 2>/dev/null ||
		skip "no python3-protobuf (scripts/setup.sh installs it)"
	mkdir -p "$T/py"
	protoc --proto_path=tests/perfetto --python_out="$T/py" perfetto_subset.proto
}

@test "perfetto: the golden trace decodes with protoc to tests/perfetto/golden.txt" {
	run -0 "$TESTS/test_pftrace" --write "$T/g.pftrace"
	run -0 decode "$T/g.pftrace"
	diff -u tests/perfetto/golden.txt <(echo "$output") ||
		{ echo "the writer's output changed: if meant, regenerate golden.txt (see this test)"; false; }
	# every packet on one sequence; a BOOTTIME clock snapshot first
	[[ "${lines[1]}" == *"clock_snapshot {"* ]]
	grep -q 'primary_trace_clock: BUILTIN_CLOCK_BOOTTIME' <<< "$output"
	[ "$(grep -c 'trusted_packet_sequence_id: 7$' <<< "$output")" -eq \
	  "$(grep -c '^packet {' <<< "$output")" ]
	# nothing protoc could not place in the schema (no unknown fields)
	! grep -E '^ *[0-9]+:' <<< "$output"
}

@test "perfetto: python3-protobuf: tracks, nesting, timestamps and counters of the golden run" {
	pymod
	"$TESTS/test_pftrace" --write "$T/g.pftrace"
	run -0 env PYTHONPATH="$T/py" "$PY" tests/perfetto/check_trace.py "$T/g.pftrace" --golden
	echo "$output"
	[[ "$output" == *"golden: tracks, slices, nesting, timestamps and counters as scripted"* ]]
	[[ "$output" == *"suspended: train 4242"* ]]
}

@test "perfetto: the checks fail on a broken trace (a slice left open, a wrong clock, a moved slice)" {
	pymod
	"$TESTS/test_pftrace" --write "$T/g.pftrace"
	cat > "$T/mutate.py" <<'PY'
import sys
import perfetto_subset_pb2 as pb
t = pb.Trace()
t.ParseFromString(open(sys.argv[1], "rb").read())
how = sys.argv[3]
if how == "drop-last-end":
    i = max(i for i, p in enumerate(t.packet)
            if p.track_event.type == pb.TrackEvent.TYPE_SLICE_END)
    del t.packet[i]
elif how == "clock":
    t.packet[0].clock_snapshot.primary_trace_clock = pb.BUILTIN_CLOCK_MONOTONIC
elif how == "late-begin":
    p = next(p for p in t.packet if p.track_event.name == "SUSPEND_QUEUES")
    p.timestamp += 1000
open(sys.argv[2], "wb").write(t.SerializeToString())
PY
	for how in drop-last-end clock late-begin; do
		PYTHONPATH="$T/py" "$PY" "$T/mutate.py" "$T/g.pftrace" "$T/bad" "$how"
		run -1 env PYTHONPATH="$T/py" "$PY" tests/perfetto/check_trace.py "$T/bad" --golden
		[[ "$output" == *FAULT* ]] || { echo "$how: $output"; false; }
	done
}

@test "perfetto: gpreempt-trace --perfetto refuses -s and --check (exit 2) and creates nothing" {
	run -2 "$BIN/gpreempt-trace" -s --perfetto "$T/x.pftrace"
	[[ "$output" == *"--perfetto needs the events: drop -s"* ]]
	run -2 "$BIN/gpreempt-trace" --check --perfetto "$T/x.pftrace"
	[[ "$output" == *"drop --check"* ]]
	[ ! -e "$T/x.pftrace" ]
	run -0 "$BIN/gpreempt-trace" --help
	[[ "$output" == *"--perfetto=FILE"* ]]
}
