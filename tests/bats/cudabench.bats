#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The CUDA co-location benchmark (bench/cuda/) on the host: no GPU, no
# PyTorch. report.py on the hand-made fixture tests/bats/fixtures/
# cudabench/raw (its README computes every ratio by hand); the runner's
# --help, its refusals, and whole runs with the STAND-IN workloads of
# fixtures/cudabench/standin (GPB_WORKLOADS: no GPU work, the runner's
# own logic), with the real daemon for the notify row when it is built;
# the Python notify client against a STAND-IN socket server
# (fixtures/cudabench/standin_daemon.py) speaking the daemon's lines.
# The GPU runs are L3n (bench/results/) and never run here.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$BATS_TEST_DIRNAME/../..
	RUNNER=$TOP/bench/cuda/colocate.sh
	REPORT=$TOP/bench/cuda/report.py
	NOTIFY=$TOP/bench/cuda/gpnotify.py
	FIX=$BATS_TEST_DIRNAME/fixtures/cudabench
	command -v python3 >/dev/null || skip "no python3"
	WORK=$(mktemp -d)
	chmod 755 "$WORK"
	srv=""
}

teardown() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$WORK"
}

# standin MODE [user]: the stand-in server on $WORK/s/gp.sock
standin() {
	mkdir -p "$WORK/s"
	chmod 777 "$WORK/s"
	if [ -n "${2:-}" ]; then
		# a copy the other user can read, run by a system python3
		cp "$FIX/standin_daemon.py" "$WORK/s/"
		chmod 755 "$WORK/s/standin_daemon.py"
		setpriv --reuid="$2" --regid="$2" --clear-groups \
			/usr/bin/python3 "$WORK/s/standin_daemon.py" "$WORK/s/gp.sock" "$1" &
	else
		python3 "$FIX/standin_daemon.py" "$WORK/s/gp.sock" "$1" &
	fi
	srv=$!
	for _ in $(seq 100); do
		[ -S "$WORK/s/gp.sock" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "report.py: the fixture's hand-computed ratios, latencies and verdicts" {
	run -0 python3 "$REPORT" "$FIX/raw"
	[[ "$output" == *"| online alone | 1.00 | 1.00 | - | - | - | - | - | - | - |"* ]]
	[[ "$output" == *"| offline alone | - | - | 1.00 | - | - | - | - | - | - |"* ]]
	[[ "$output" == *"| shared (no arbitration) | 2.00 | 2.00 | 0.50 | 0.67 | - | - | - | - | - |"* ]]
	[[ "$output" == *"| gpreempt, notify | 1.10 | 1.10 | 0.80 | 1.07 | 5.0 | 0.50 / 0.70 | 0.20 / 0.20 | 3.5 / 12.5 | 1.50 / 3.50 |"* ]]
	[[ "$output" == *"(idle): p50 / p99 0.100 / 0.100 ms"* ]]
	[[ "$output" == *"- shared (no arbitration): online p99 2.00x (FAIL); offline vs ceiling 0.67x (FAIL)"* ]]
	[[ "$output" == *"- gpreempt, notify: online p99 1.10x (PASS); offline vs ceiling 1.07x (PASS)"* ]]
	[[ "$output" == *"| 1 | alone | ok | 4 | 0 | 0 | 20.00 | 40.00 | 25.0% | - |"* ]]
	[[ "$output" == *"GPU: FIXTURE GPU, 1 MiB, 0.0, Default;"* ]]
}

@test "report.py --json: one object per row with the ceiling and the suspends" {
	run -0 python3 "$REPORT" --json "$FIX/raw"
	[ "${#lines[@]}" = 4 ]
	[[ "${lines[2]}" == *'"ceiling": 750.0'* && "${lines[2]}" == *'"row": "shared"'* ]]
	[[ "${lines[3]}" == *'"locks": 2'* && "${lines[3]}" == *'"suspends_per_s": 5.0'* ]]
}

@test "report.py: the AMD kit's layout (runs/NAME) gives the same rows" {
	mkdir -p "$WORK/amd/runs"
	cp -r "$FIX/raw/r1/alone" "$WORK/amd/runs/online-alone"
	cp -r "$FIX/raw/r1/offline" "$WORK/amd/runs/offline-alone"
	cp -r "$FIX/raw/r1/shared" "$WORK/amd/runs/both-plain"
	run -0 python3 "$REPORT" "$WORK/amd"
	[[ "$output" == *"| shared (no arbitration) | 2.00 | 2.00 | 0.50 | 0.67 |"* ]]
}

@test "report.py: without log lines, the daemon's /metrics histograms as bucket bounds" {
	cp -r "$FIX/raw" "$WORK/m"
	rm "$WORK/m/r1/notify/daemon.log"
	n=gpreempt_policy_suspend_duration_seconds
	printf '%s_bucket{le="0.000256"} 0\n%s_bucket{le="0.000512"} 1\n%s_bucket{le="0.001024"} 2\n%s_bucket{le="+Inf"} 2\n' \
		$n $n $n $n > "$WORK/m/r1/notify/metrics.txt"
	run -0 python3 "$REPORT" "$WORK/m"
	# p50: the first bucket holding 1 of 2 (<= 0.512 ms); p99: 2 of 2
	[[ "$output" == *"| gpreempt, notify | 1.10 | 1.10 | 0.80 | 1.07 | - | <=0.51 / <=1.02 | - | - | 1.50 / 3.50 |"* ]]
}

@test "report.py: a row that failed or never finished counts in no ratio" {
	cp -r "$FIX/raw" "$WORK/f"
	sed -i '/^status:/d' "$WORK/f/r1/shared/meta.txt"
	sed -i 's/^status: ok/status: failed (online exit 1: x)/' "$WORK/f/r1/notify/meta.txt"
	run -0 python3 "$REPORT" "$WORK/f"
	[[ "$output" == *"| shared (no arbitration) | - | - | - | - | - |"* ]]
	[[ "$output" == *"| gpreempt, notify | - | - | - | - | - |"* ]]
	[[ "$output" == *"| 1 | shared | incomplete | 4 | 0 | 0 | 40.00 | 80.00 | 50.0% | 500.0 images |"* ]]
	[[ "$output" == *"| 1 | notify | failed (online exit 1: x) | 4 |"* ]]
}

@test "report.py: bad usage and empty folders exit 2 with a reason" {
	run -2 python3 "$REPORT"
	[[ "$output" == *"usage: report.py"* ]]
	run -2 python3 "$REPORT" "$WORK/none"
	[[ "$output" == *"no folder"* ]]
	run -2 python3 "$REPORT" "$WORK"
	[[ "$output" == *"no rounds in"* ]]
}

@test "colocate.sh --help prints its header; exit 0" {
	run -0 bash "$RUNNER" --help
	[[ "$output" == *"bench/cuda/colocate.sh A|B [--rounds N]"* ]]
	[[ "$output" == *"GP_BIN: the gpreempt-ctl binary"* ]]
	[[ "$output" != *"set -uo"* ]]
	run -0 bash "$RUNNER" A --help
}

@test "colocate.sh refuses bad arguments (exit 2) and creates nothing" {
	run -2 bash "$RUNNER"
	[[ "$output" == *"which case? A or B"* ]]
	run -2 bash "$RUNNER" C
	[[ "$output" == *"unknown case 'C'"* ]]
	run -2 bash "$RUNNER" A --rows alone,bogus --out "$WORK/o"
	[[ "$output" == *"unknown row 'bogus'"* ]]
	run -2 bash "$RUNNER" A --duration 1x --out "$WORK/o"
	[[ "$output" == *"--duration: not a positive number: '1x'"* ]]
	run -2 bash "$RUNNER" B --rounds 0 --out "$WORK/o"
	[[ "$output" == *"--rounds: must be at least 1"* ]]
	run -2 bash "$RUNNER" B --rate
	[[ "$output" == *"--rate needs a value"* ]]
	run -2 bash "$RUNNER" B --frobnicate 1
	[[ "$output" == *"unknown option '--frobnicate'"* ]]
	[ ! -e "$WORK/o" ]
}

@test "colocate.sh with stand-in workloads: rows, raw.tgz, report; daemon rows skipped without gpreempt-ctl" {
	GPB_WORKLOADS=$FIX/standin GP_BIN=$WORK/no-such-ctl run -0 bash "$RUNNER" B \
		--rounds 1 --duration 1 --drain 1 --rows alone,offline,shared,notify --out "$WORK/o"
	[[ "$output" == *"round 1 notify: skipped, no gpreempt-ctl"* ]]
	grep -q '^status: ok' "$WORK/o/r1/shared/meta.txt"
	grep -q '^status: skipped' "$WORK/o/r1/notify/meta.txt"
	grep -q '"type": "request"' "$WORK/o/r1/shared/online.ndjson"
	tar -tzf "$WORK/o/raw.tgz" | grep -q 'r1/shared/offline.ndjson'
	grep -q '^| shared (no arbitration) | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |' "$WORK/o/report.md"
	grep -q '^case: B' "$WORK/o/host.txt"
}

@test "colocate.sh stopped by SIGTERM: children stopped, the rows done reported, exit 130" {
	GPB_WORKLOADS=$FIX/standin GP_BIN=$WORK/no-such-ctl bash "$RUNNER" B \
		--rounds 1 --duration 1 --drain 1 --rows alone,offline --out "$WORK/o" \
		> "$WORK/log" 2>&1 &
	pid=$!
	# the offline row is under way once its trainer is ready
	for _ in $(seq 600); do
		[ -e "$WORK/o/r1/offline/offline.ready" ] && break
		sleep 0.1
	done
	[ -e "$WORK/o/r1/offline/offline.ready" ]
	opid=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$WORK/o/r1/offline/offline.ndjson" | head -1)
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" = 130 ]
	grep -q 'stopped by a signal' "$WORK/log"
	grep -q '^| 1 | alone | ok |' "$WORK/o/report.md"
	grep -q '^| 1 | offline | incomplete |' "$WORK/o/report.md"
	[ -n "$opid" ] && ! kill -0 "$opid" 2>/dev/null	# the trainer was stopped
}

@test "colocate.sh notify row with the real daemon and stand-in workloads: busy/idle reach it" {
	[ "$(id -u)" = 0 ] || skip "the daemon needs root"
	ctl=${GP_BIN:-$TOP}
	[ -x "$ctl/gpreempt-ctl" ] || skip "no gpreempt-ctl in $ctl (set GP_BIN)"
	GPB_WORKLOADS=$FIX/standin GP_BIN=$ctl GPB_METRICS_PORT=0 run -0 bash "$RUNNER" A \
		--rounds 1 --duration 1 --drain 1 --rows notify --out "$WORK/o"
	grep -q '^status: ok' "$WORK/o/r1/notify/meta.txt"
	grep -q 'arbiter: busy from pid' "$WORK/o/r1/notify/daemon.log"
	grep -q 'arbiter: idle from pid' "$WORK/o/r1/notify/daemon.log"
	grep -q '"busy_us"' "$WORK/o/r1/notify/online.ndjson"
	grep -q 'since start' "$WORK/o/r1/notify/policy.txt"
	grep -q '^| gpreempt, notify | .* | [0-9.]* / [0-9.]* |$' "$WORK/o/report.md"
}

@test "gpnotify.py: busy then idle on one connection; INFO lines skipped" {
	standin ok
	run -0 python3 "$NOTIFY" --socket "$WORK/s/gp.sock" busy idle
	[[ "${lines[0]}" == '{"word": "busy", "rtt_us": '* ]]
	[[ "${lines[1]}" == '{"word": "idle", "rtt_us": '* ]]
	[ "$(cat "$WORK/s/gp.sock.log")" = "1 busy
1 idle" ]
}

@test "gpnotify.py: an err reply fails with the daemon's message (exit 1)" {
	standin err
	run -1 python3 "$NOTIFY" --socket "$WORK/s/gp.sock" busy
	[[ "$output" == *"busy: err 2 22 the stand-in refuses"* ]]
}

@test "gpnotify: a connection the daemon closed is opened again before the next line" {
	standin close
	run -0 python3 -c '
import sys, time
sys.path.insert(0, sys.argv[1])
import gpnotify
n = gpnotify.Notifier(sys.argv[2])
n.busy()
time.sleep(0.5)
n.idle()
print("reconnects", n.reconnects)' "$TOP/bench/cuda" "$WORK/s/gp.sock"
	[ "$output" = "reconnects 1" ]
	[ "$(cat "$WORK/s/gp.sock.log")" = "1 busy
2 idle" ]
}

@test "gpnotify: no reply in time ends that connection; the next line goes on a new one" {
	standin mute
	run -0 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import gpnotify
n = gpnotify.Notifier(sys.argv[2], timeout=0.5)
try:
    n.busy()
    print("answered?")
except gpnotify.NotifyError as e:
    print(e)
n.idle()
print("reconnects", n.reconnects)' "$TOP/bench/cuda" "$WORK/s/gp.sock"
	[ "${lines[0]}" = "busy: no reply in 0.5 s" ]
	[ "${lines[1]}" = "reconnects 1" ]
	[ "$(cat "$WORK/s/gp.sock.log")" = "2 idle" ]
}

@test "gpnotify.py: a server that is not root is refused unless --no-root-check" {
	[ "$(id -u)" = 0 ] || skip "needs root to start the server as another user"
	command -v setpriv >/dev/null || skip "no setpriv"
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 for the other user"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$WORK" ||
		skip "user 65534 cannot reach $WORK"
	standin ok 65534
	run -1 python3 "$NOTIFY" --socket "$WORK/s/gp.sock" busy
	[[ "$output" == *"the server is uid 65534, not root"* ]]
	[ ! -e "$WORK/s/gp.sock.log" ]
	run -0 python3 "$NOTIFY" --socket "$WORK/s/gp.sock" --no-root-check busy
}

@test "gpnotify.py: no daemon, no word, a bad word" {
	run -1 python3 "$NOTIFY" --socket "$WORK/none.sock" busy
	[[ "$output" == *"gpnotify.py: "*"No such file"* ]]
	run -2 python3 "$NOTIFY" --socket "$WORK/none.sock"
	[[ "$output" == *"no word to send"* ]]
	run -2 python3 "$NOTIFY" bysy
	[[ "$output" == *"usage: gpnotify.py"* ]]
}

@test "gpnotify imports without torch (CI has none; the server imports it lazily)" {
	run -0 python3 -c '
import sys
sys.modules["torch"] = None     # any "import torch" now fails
sys.path.insert(0, sys.argv[1])
import gpnotify, report
print("ok")' "$TOP/bench/cuda"
	[ "$output" = ok ]
}

@test "cudalock.py: bad usage exit 2; without libcuda exit 3, says so" {
	run -2 python3 "$TOP/bench/cuda/cudalock.py" state
	[[ "$output" == *"usage: cudalock.py state|unlock PID"* ]]
	run -2 python3 "$TOP/bench/cuda/cudalock.py" lock 1
	python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null &&
		skip "this host has libcuda"
	run -3 python3 "$TOP/bench/cuda/cudalock.py" state 1
	[[ "$output" == *"no libcuda.so.1"* ]]
}

@test "docs/benchmarks.md's GPU tables are report.py on the stored H200 run" {
	r=$TOP/bench/results/2026-11-28/cuda-colocate-final
	for c in A B; do
		tar xzf "$r/F$c.tgz" -C "$WORK"
		python3 "$REPORT" "$WORK/F$c" > "$WORK/got$c"
		sed -n '/^| row /,/^| MPS /p' "$WORK/got$c" > "$WORK/t$c"
		[ "$(wc -l < "$WORK/t$c")" -eq 8 ]
	done
	# the doc's two tables, in order: Case A's then Case B's
	awk '/^## On a real GPU/,/^What the numbers say/' "$TOP/docs/benchmarks.md" |
		sed -n '/^| row /,/^| MPS /p' > "$WORK/want"
	cat "$WORK/tA" "$WORK/tB" > "$WORK/got"
	diff -u "$WORK/want" "$WORK/got"
}
