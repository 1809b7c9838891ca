#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# L3 launch-detection kit: measures what docs/arbiter.md says only a GPU
# can show about `--detect launch`, as VERDICT lines. Run as root on a host
# with an AMD GPU, ROCm's hipcc, from a built tree (make). Not run in CI
# (no AMD GPU); its analysis is tested on synthetic data
# (tests/bats/l3launch.bats, fixtures in tests/unit/fixtures/l3/launch).
#
#   sudo scripts/l3-launch.sh [--duration S] [--rate REQ/S] [--hold S]
#        [--max-latency-ms MS] [--max-cost-pct PCT] [--out DIR]
#   scripts/l3-launch.sh --analyze-only DIR      (re-analyse, no GPU)
#
# latency/  the daemon with --detect launch (no hints, no notify) between
#           tests/l3/online.hip and tests/l3/offline.hip; gpreempt-trace
#           -j records the suspends. Launch-to-suspended = a request's
#           first launch (start_ns) while offline runs -> the end of the
#           next suspend ioctl. VERDICT launch_to_suspended_p99 <= MS (10).
# cost/     tests/l3/spin.hip (launch + sync back to back) alone, then
#           probed by the daemon; rates over each run's second half.
#           VERDICT uprobe_cost: throughput lost <= PCT % (5).
# readidx/  tests/l3/long.hip runs one kernel for --hold S (5) under the
#           daemon with --detect queues; the kit reads the queue's
#           read/write dispatch ids (addresses from the daemon's
#           "queue Q of online pid P created: watching" line) through
#           /proc/PID/mem every 100 ms.
#           VERDICT read_dispatch_id advances at launch|at completion|
#           undetermined (an observation: it does not change the exit).
#
# Exit: 0 every verdict passed, 1 a verdict failed, 2 bad usage or nothing
# to judge, 3 not root, 4 no /dev/kfd, 5 no hipcc, 6 the tree is not built.
# Test hooks: L3_KFD (device checked instead of /dev/kfd), L3_BIN (folder
# of gpreempt-ctl and gpreempt-trace), L3_HIPCC.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kit=l3-launch
. "$top/scripts/l3-lib.sh"
duration=20
hold=5
max_lat=10
max_cost=5

l3_parse "--duration duration --rate rate --hold hold --max-latency-ms max_lat
	--max-cost-pct max_cost --out out --analyze-only analyze_only" "$@"
l3_numbers "$duration" "$rate" "$hold" "$max_lat" "$max_cost"

# --- analysis (no GPU): DIR -> VERDICT lines, summary.txt -------------
fails=0 judged=0
verdict() { # name value threshold PASS|FAIL
	printf 'VERDICT %-26s %10s %10s  %s\n' "$@"
	judged=$((judged + 1))
	[ "$4" = PASS ] || fails=$((fails + 1))
}

an_latency() { # dir
	local d=$1/latency r
	[ -s "$d/online.ndjson" ] && [ -e "$d/trace.ndjson" ] ||
		{ echo "latency: no latency/online.ndjson or trace.ndjson: nothing to judge"; return; }
	# S start (with its end), U suspend done, R resume done, in time
	# order. A sample: a request that starts while offline runs, to the
	# first suspend before that request ends (none: the launch was missed,
	# e.g. before the probes were attached; no sample).
	r=$({ jq -r 'select(.type == "request") | "\(.start_ns) S \(.end_ns)"' "$d/online.ndjson"
	      jq -r 'select(.type == "event" and .ret == 0 and (.op == "suspend" or .op == "resume"))
		| "\(.ts_boot_ns + .duration_ns) \(if .op == "suspend" then "U" else "R" end)"' \
		"$d/trace.ndjson"; } | sort -n -k1,1 | awk '
		$2 == "S" { if (run) { pend = $1; pend_end = $3 }; next }
		$2 == "U" { if (pend && $1 <= pend_end) print ($1 - pend) / 1e6
			    pend = 0; run = 0; next }
		$2 == "R" { run = 1 }
		BEGIN { run = 1 }' | sort -n | awk '
		{ v[NR] = $1 }
		END { if (!NR) exit; i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
		      printf "%d %.3f %.3f\n", NR, v[int((NR + 1) / 2)], v[i] }')
	if [ -z "$r" ]; then
		echo "latency: no suspend followed a request start while offline ran: nothing to judge"
		return
	fi
	set -- $r
	echo "latency: $1 launch-to-suspended samples, p50 $2 ms, p99 $3 ms"
	verdict launch_to_suspended_p99 "$3" "$max_lat" \
		"$(awk -v v="$3" -v t="$max_lat" 'BEGIN { print v <= t ? "PASS" : "FAIL" }')"
}

rate_of() { # spin output -> launches/s over the second half of the ticks
	awk '$1 == "tick" { t[++n] = $2; c[n] = $3 }
	     END { if (n < 4) exit; m = int(n / 2)
		   printf "%.1f\n", (c[n] - c[m]) / ((t[n] - t[m]) / 1e9) }' "$1"
}

an_cost() { # dir
	local d=$1/cost ru rp
	ru=$(rate_of "$d/unprobed.txt" 2>/dev/null)
	rp=$(rate_of "$d/probed.txt" 2>/dev/null)
	[ -n "$ru" ] && [ -n "$rp" ] ||
		{ echo "cost: cost/unprobed.txt or probed.txt has fewer than 4 ticks: nothing to judge"; return; }
	grep -q 'launches of pid [0-9]*: [0-9]* probes in' "$d/daemon.log" 2>/dev/null ||
		{ echo "cost: cost/daemon.log never says the probes were attached: nothing to judge"; return; }
	awk -v u="$ru" -v p="$rp" 'BEGIN {
		printf "cost: unprobed %.1f launches/s, probed %.1f, ratio %.3f, %.2f us per launch\n",
		       u, p, p / u, (1 / p - 1 / u) * 1e6 }'
	local lost
	lost=$(awk -v u="$ru" -v p="$rp" 'BEGIN { printf "%.2f", (1 - p / u) * 100 }')
	verdict uprobe_cost_pct "$lost" "$max_cost" \
		"$(awk -v v="$lost" -v t="$max_cost" 'BEGIN { print v <= t ? "PASS" : "FAIL" }')"
}

an_readidx() { # dir
	local d=$1/readidx launched hold_s r
	launched=$(awk '$1 == "launched" { print $2 }' "$d/long.txt" 2>/dev/null)
	hold_s=$(awk '$1 == "hold" { print $2 }' "$d/long.txt" 2>/dev/null)
	[ -n "$launched" ] && [ -n "$hold_s" ] && [ -s "$d/samples.txt" ] ||
		{ echo "readidx: no readidx/long.txt launch or samples.txt: nothing to judge"; return; }
	# during: 200 ms after the launch to 200 ms before the kernel's end
	r=$(awk -v l="$launched" -v h="$hold_s" '
		{ t = $1 - l }
		t >= 2e8 && t <= h * 1e9 - 2e8 { n++; if ($2 == $3) eq++; else if ($2 < $3) lt++ }
		t >= h * 1e9 + 2e8 { a++; if ($2 == $3) aeq++ }
		END { printf "%d %d %d %d %d\n", n, eq, lt, a, aeq }' "$d/samples.txt")
	set -- $r
	local what=undetermined
	if [ "$1" -gt 0 ] && [ "$2" = "$1" ]; then
		what="at launch"
	elif [ "$1" -gt 0 ] && [ "$3" = "$1" ] && { [ "$4" = 0 ] || [ "$5" = "$4" ]; }; then
		what="at completion"
	fi
	echo "readidx: $1 samples while the kernel ran (read == write in $2, read < write in $3); $4 after (read == write in $5)"
	echo "VERDICT read_dispatch_id advances $what"
}

analyze() { # dir
	{
		an_latency "$1"
		an_cost "$1"
		an_readidx "$1"
	} | tee "$1/summary.txt"
	grep -q '^VERDICT ' "$1/summary.txt" || { echo "l3-launch: nothing to judge in $1" >&2; return 2; }
	! grep -q '^VERDICT .* FAIL$' "$1/summary.txt"
}

l3_analyze_only "$analyze_only"

# --- measurement (needs the GPU) --------------------------------------
l3_need_root "the daemon suspends queues and attaches uprobes; the kit reads /proc/PID/mem"
l3_need_kfd "a real GPU"
l3_need_hipcc
l3_need_tools trace

l3_outdir gpreempt-launch latency cost readidx
echo "l3-launch: output in $out"
{ l3_host_lines
  command -v rocminfo >/dev/null && rocminfo 2>&1 | grep -E '^\s+(Name|Marketing Name):' | head -8
} > "$out/host.txt"
l3_build_hip online offline spin long

l3_trap
daemon() { # dir detect online-selector
	"$ctl" daemon --socket "$1/arbiter.sock" --ready "$1/daemon.ready" \
		--online "$3" --offline "uid=$(id -u),cmdline=gp-l3-offline" \
		--detect "$2" > "$1/daemon.log" 2>&1 &
	pids+=($!)
	wait_for 30 test -e "$1/daemon.ready" || { echo "   daemon did not start: $(tail -3 "$1/daemon.log")"; return 1; }
}
sel() { echo "uid=$(id -u),cmdline=gp-l3-$1"; }

echo "== latency (${duration}s)"
d=$out/latency
"$trace" -j --ready-file "$d/trace.ready" > "$d/trace.ndjson" 2> "$d/trace.err" &
pids+=($!)
wait_for 30 test -e "$d/trace.ready" || echo "   tracer did not start: $(cat "$d/trace.err")"
"$out/gp-l3-offline" --duration $((${duration%.*} + 10)) > "$d/offline.ndjson" 2> "$d/offline.err" &
pids+=($!)
daemon "$d" launch "$(sel online)" &&
	"$out/gp-l3-online" --rate "$rate" --duration "$duration" > "$d/online.ndjson" 2> "$d/online.err"
cleanup

echo "== cost (${duration}s unprobed, ${duration}s probed)"
d=$out/cost
"$out/gp-l3-spin" "$duration" > "$d/unprobed.txt" 2> "$d/unprobed.err"
daemon "$d" launch "$(sel spin)" && "$out/gp-l3-spin" "$duration" > "$d/probed.txt" 2> "$d/probed.err"
cleanup

echo "== readidx (${hold}s kernel)"
d=$out/readidx
echo "hold $hold" > "$d/long.txt"
if daemon "$d" queues "$(sel long)"; then
	coproc LONG { "$out/gp-l3-long" "$hold"; }
	pids+=("$LONG_PID")
	lpid=""
	while read -r k v <&"${LONG[0]}"; do
		echo "$k $v" >> "$d/long.txt"
		[ "$k" = pid ] && lpid=$v
		[ "$k" = ready ] && break
	done
	q=""
	# "queue Q of online pid P created: watching (wptr 0x.., rptr 0x..)"
	# (arbiter_queues.c) or "watching queue Q of pid P (wptr .., rptr ..)"
	re="queue [0-9]+ of (online )?pid $lpid [^(]*\(wptr 0x[0-9a-f]+, rptr 0x[0-9a-f]+\)"
	wait_for 30 grep -qE "$re" "$d/daemon.log" &&
		q=$(grep -oE "$re" "$d/daemon.log" | tail -1)
	if [ -z "$q" ]; then
		echo "   the daemon does not watch pid $lpid's queue (see readidx/daemon.log)"
	else
		wa=$(sed 's/.*wptr \(0x[0-9a-f]*\).*/\1/' <<< "$q"); ra=$(sed 's/.*rptr \(0x[0-9a-f]*\).*/\1/' <<< "$q")
		# two u64s of pid $1 at $2.. (dd cannot seek in /proc/PID/mem)
		rd() { perl -e 'open(my $f, "<:raw", "/proc/$ARGV[0]/mem") or exit 1;
			for (@ARGV[1..$#ARGV]) { sysseek($f, hex($_), 0) && sysread($f, my $b, 8) == 8 or exit 1;
			print unpack("Q<", $b), " " }' "$@"; }
		echo go >&"${LONG[1]}"
		read -r k v <&"${LONG[0]}" && echo "$k $v" >> "$d/long.txt"
		for _ in $(seq $(( (${hold%.*} + 1) * 10 ))); do
			up=$(cut -d' ' -f1 /proc/uptime)
			echo "$(awk -v u="$up" 'BEGIN { printf "%.0f", u * 1e9 }') $(rd "$lpid" "$ra" "$wa")" >> "$d/samples.txt"
			sleep 0.1
		done
		read -r k v <&"${LONG[0]}" && echo "$k $v" >> "$d/long.txt"
	fi
fi
cleanup
l3_finish
