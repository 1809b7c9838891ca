# SPDX-License-Identifier: GPL-2.0
# Guest half of the edge-to-suspend benchmark (busybox sh; bench/edge.sh
# runs it with scripts/vm.sh run, which attaches the HIP disk because this
# script runs hip-launch). The chain of tests/vm/68-detect-launch.sh,
# timed: the daemon runs --detect launch, a real ROCr offline process
# (rocr-probe) is attached, and an unmodified HIP program (hip-launch)
# is paced from outside: each round is idle -> its first hipLaunchKernel
# (the program stamps CLOCK_MONOTONIC right before the call, and the
# BOOTTIME-MONOTONIC offset) -> the daemon's SUSPEND ioctl has suspended
# it (the tracer's suspend event: the return of KFD's suspend_queues()
# inside that ioctl, on the boot clock) -> --launch-grace without a launch -> idle, resumed. Then, in
# the same boot, against the same daemon and offline process: the notify
# path (bench/arb-lat: "busy" -> the daemon's "ok", sent after the
# SUSPEND ioctl returned), the baseline.
# Kernel command line: gpb.edgen=N rounds of each (default 30).
# Output: BENCH edge-t0 I T0_MONO_NS BOOT_OFF_NS | BENCH edge-ev OP TS_BOOT_NS
#	| BENCH arb 1 I BUSY_NS IDLE_NS | BENCH info ... | BENCH end edge
PATH=/gp/bin:/usr/bin:/bin:/sbin
WAIT_SCALE=5	# a wait's bound: its idle-host figure times this (docs/development.md)
N=30
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.edgen=*) N=${arg#*=} ;;
	esac
done
S=/tmp/edge.sock
TR=/tmp/edge-trace.json
LOG=/tmp/edge.log
O=/tmp/edgeh
# wait_for SECS CMD...: until CMD succeeds, bounded (idle-host SECS, scaled)
wait_for() {
	_b=$(($1 * 10 * WAIT_SCALE))
	shift
	_i=0
	while ! "$@"; do
		_i=$((_i + 1))
		[ $_i -gt $_b ] && return 1
		sleep 0.1
	done
}
# events OP: how many OP events of the offline pid the tracer wrote
events() {
	jq -s --arg op "$1" --argjson t "$T" \
	   '[.[] | select(.type == "event" and .op == $op and .target_pid == $t)] | length' \
	   $TR 2>/dev/null || echo 0
}
ge() { [ "$(events "$1")" -ge "$2" ]; }
rounds_ge() { [ "$(grep -c '"step":"round"' $O.out)" -ge "$1" ]; }
idles_ge() { [ "$(grep -c "launches of pid $H: idle" $LOG)" -ge "$1" ]; }
stop() {
	kill $H $T $DPID 2>/dev/null
	wait $H $T $DPID 2>/dev/null
	kill -INT $TRPID 2>/dev/null
	wait $TRPID 2>/dev/null
}
fail() {
	echo "BENCH skip edge $*"
	tail -n 30 $LOG 2>/dev/null | sed 's/^/BENCH log /'
	stop
	echo "BENCH end edge"
	exit 0
}

rm -f /tmp/edge.trready
gpreempt-trace -j --ready-file /tmp/edge.trready > $TR 2> $TR.err &
TRPID=$!
wait_for 120 test -e /tmp/edge.trready || fail "gpreempt-trace never ready"
# the online program: N + 1 rounds of 10 launches, each on a go-ahead
rm -f $O.ready $O.go
hip-launch -r $O.ready -g $O.go -f launch -n 10 -k $((N + 1)) > $O.out 2>&1 &
H=$!
wait_for 60 test -e $O.ready || fail "hip-launch never ready: $(cat $O.out)"
rm -f /tmp/edgeoff.ready
rocr-probe -r /tmp/edgeoff.ready > /tmp/edgeoff.out 2>&1 &
T=$!
wait_for 30 test -e /tmp/edgeoff.ready || fail "rocr-probe never ready: $(cat /tmp/edgeoff.out)"
# --resume-after 0: the idle edge resumes at once, so every busy edge
# (launch or notify) finds the offline process running and suspends it.
# notify is on too (--detect launch alone refuses busy/idle), for the
# baseline's client, arb-lat, online by its own selector.
rm -f /tmp/edge.ready
gpreempt-ctl daemon --socket $S --ready /tmp/edge.ready \
	--online uid=0,cmdline=hip-launch --online uid=0,cmdline=arb-lat \
	--offline uid=0,cmdline=rocr-probe \
	--detect launch,notify --launch-grace 300ms --resume-after 0 --scope node \
	2> $LOG &
DPID=$!
wait_for 30 test -e /tmp/edge.ready || fail "daemon never ready"
wait_for 60 grep -q "launches of pid $H: [0-9]* probes in" $LOG ||
	fail "daemon never probed pid $H"
wait_for 30 grep -q "offline pid $T .* attached" $LOG || fail "offline pid $T never attached"
echo "BENCH info edge: $(head -n1 $O.out)"

# launch rounds: go -> launches -> suspend -> grace -> idle -> resume
i=1
while [ $i -le "$N" ]; do
	touch $O.go
	wait_for 60 rounds_ge $i || fail "round $i: hip-launch did not run"
	wait_for 30 ge suspend $i || fail "round $i: no suspend event"
	wait_for 30 idles_ge $i || fail "round $i: no idle edge"
	wait_for 30 ge resume $i || fail "round $i: no resume event"
	sleep 0.2
	i=$((i + 1))
done
grep '"step":"round"' $O.out | head -n "$N" |
	jq -r '"\(.t0_ns) \(.boot_off_ns)"' | awk '{ print "BENCH edge-t0", NR, $1, $2 }'
echo "BENCH info edge: $(grep -c "launches of pid $H: busy" $LOG) busy edges, $(grep -c "suspend pid $T" $LOG) suspend lines in the daemon log"

# the baseline, same daemon and offline process: notify busy -> ok
arb-lat $S "$N" 1 200000 || echo "BENCH skip edge arb-lat failed"
sleep 0.5
jq -r --argjson t "$T" 'select(.type == "event" and (.op == "suspend" or .op == "resume")
	and .target_pid == $t) | "BENCH edge-ev \(.op) \(.ts_boot_ns)"' $TR
stop
echo "BENCH end edge"
