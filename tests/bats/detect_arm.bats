#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# L1: the armed-while-idle launch detector (user/detect/detect_armed.c,
# bpf/detect_arm.bpf.h; a prototype behind a flag) with real uprobes on
# Debian trixie's libamdhip64 5.7.1 in a real process (no GPU: every call
# returns 100, the probes still fire). Today's detector takes one trap
# per launch (bench/detect-cost.sh: N traps for a burst of N); this one
# takes the busy edge's trap and those that come while the breakpoints
# are removed, however long the burst. Needs root, the HIP cache, the
# test tools and a tracefs the test can mount (in its own mount
# namespace).

load detect_lib

LAUNCH=hipLaunchKernel,hipLaunchKernel_spt,hipExtLaunchKernel,hipModuleLaunchKernel,hipGraphLaunch
SYNC=hipDeviceSynchronize,hipStreamSynchronize
N=200000

setup() {
	detect_setup
	ARMRUN=$(dirname "$RUNNER")/arm-run
	[ -x "$ARMRUN" ] || skip "no arm-run at $ARMRUN (make OUTPUT=.output tests)"
	command -v unshare > /dev/null || skip "no unshare"
	unshare -m true 2> /dev/null || skip "cannot unshare a mount namespace"
	LIB=$(realpath "$HIP/libamdhip64.so.5")
}
teardown() { detect_teardown; }

# armed NAME: arm-run on NAME's process (tracefs where it is mounted, or
# mounted in arm-run's own mount namespace), commands
# through fd CMDFD, output in $W/arm.out
armed() {
	mkfifo "$W/cmd"
	mkdir -p "$W/tracefs"
	unshare -m sh -c 't=$1; shift
		if [ -e /sys/kernel/tracing/uprobe_events ]; then
			t=/sys/kernel/tracing
		else
			mount -t tracefs nodev "$t" || exit 1
		fi
		exec "$@" -T "$t"' \
		- "$W/tracefs" "$ARMRUN" -p "$(cat "$W/$1.pid")" -l "$LIB" \
		-L "$LAUNCH" -S "$SYNC" -g 600000 -r "$W/arm.ready" \
		< "$W/cmd" > "$W/arm.out" 2>&1 &
	PIDS+=($!)
	DETPID=$!
	exec {CMDFD}> "$W/cmd"
	wait_for "$W/arm.ready"
}

# counts_after K: send counts, wait for the K-th counts line, print it
counts_after() {
	echo counts >&"$CMDFD"
	wait_count "$W/arm.out" '"counts"' "$1"
	grep '"counts"' "$W/arm.out" | sed -n "${1}p"
}
traps() { sed -n 's/.*"traps":\([0-9]*\).*/\1/p' <<< "$1"; }

@test "detect armed: 3 bursts of $N launches, idle between: one busy edge each, and traps bounded, not one per launch" {
	hip p -f launch -n "$N" -k 4	# the 4th round never runs: alive to the end
	armed p
	grep -q '"attach":[0-9]*,"err":0' "$W/arm.out"
	prev=0
	for r in 1 2 3; do
		go p
		c=$(counts_after "$r")
		echo "round $r: $c"
		t=$(traps "$c")
		# today's detector: $N traps a round; a quarter would need the
		# removal to take ~1 s at this host's ~20 us a trap
		[ $((t - prev)) -ge 1 ]
		[ $((t - prev)) -lt $((N / 4)) ]
		prev=$t
		# the first launch after idle made this round's busy edge
		wait_count "$W/arm.out" '"edge":"busy"' "$r"
		echo idle >&"$CMDFD"
		wait_count "$W/arm.out" '"idle":[0-9]*,"err":0' "$r"
	done
	finish
	cat "$W/arm.out"
	run grep -c '"edge":"busy"' "$W/arm.out"
	[ "$output" -eq 3 ]
	# armed at attach and at each idle, disarmed at each busy edge
	tail -n1 "$W/arm.out" | grep -q '"arms":4,"disarms":3'
}

@test "detect armed: bursts with a sync: traps bounded; a sync return ends busy only while armed, else it is deferred" {
	hip p -f launch -n "$N" -k 2 -s
	armed p
	go p
	go p
	c=$(counts_after 1)
	finish
	cat "$W/arm.out"
	t=$(traps "$c")
	[ "$t" -ge 1 ]
	[ "$t" -lt $((N / 2)) ]	# 2 x $N launches
	# no GPU: a sync returns at once. If the busy edge's disarm is not
	# in yet, the probes are armed and the return is an idle edge; if
	# it is, the return is deferred (a launch before the re-arm would be
	# invisible) and the process stays busy. Each of the 2 returns is
	# one or the other, and no busy edge comes without an idle before.
	idle=$(grep -c '"edge":"idle"' "$W/arm.out" || true)
	busy=$(grep -c '"edge":"busy"' "$W/arm.out" || true)
	deferred=$(sed -n 's/.*"deferred":\([0-9]*\).*/\1/p' <<< "$c")
	[ $((idle + deferred)) -eq 2 ]
	[ "$busy" -ge 1 ]
	[ "$busy" -le $((idle + 1)) ]
}

@test "detect armed: bursts shorter than the disarm threshold (16) trap once a launch and are never disarmed" {
	hip p -f launch -n 10 -k 4	# the 4th round never runs
	armed p
	for r in 1 2 3; do
		go p
		wait_count "$W/arm.out" '"edge":"busy"' "$r"
		echo idle >&"$CMDFD"
		wait_count "$W/arm.out" '"idle":[0-9]*,"err":0' "$r"
	done
	c=$(counts_after 1)
	finish
	cat "$W/arm.out"
	[ "$(traps "$c")" -eq 30 ]
	grep -q '"disarms":0' <<< "$c"
}

@test "detect armed: the same kind of burst under today's detector (detect-run) takes one trap per launch, so the bound above fails for it" {
	n=20000
	hip p -f launch -n "$n"
	detector -g 600000 -p "$(cat "$W/p.pid")"
	go p
	cmd counts '"counts"'
	finish
	h=$(grep '"counts"' "$W/det.out" | tail -n1 | sed -n 's/.*"hits":\([0-9]*\).*/\1/p')
	echo "today's detector: $h program runs for $n launches"
	[ "$h" -eq "$n" ]
	[ "$h" -ge $((n / 4)) ]
}
