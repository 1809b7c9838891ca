# SPDX-License-Identifier: GPL-2.0
# Guest half of the controller-latency benchmark (busybox sh, run by
# scripts/vm.sh run; bench/run.sh drives it and reads its output).
#
# gpreempt-trace -j records every kfd_ioctl_set_debug_trap with its
# CLOCK_BOOTTIME completion time and duration, so entry = ts - duration.
# bench/ctl-lat stamps each suspend request with the same clock. The
# latency of a request is its first SUSPEND_QUEUES ioctl entry after the
# stamp. Two controllers: a one-shot `gpreempt-ctl suspend` (exec, ptrace
# attach, enable, snapshot, suspend) and a warm daemon over its socket.
# The target is a KFD process with its runtime enabled (kfd-exerciser);
# queue 7 does not exist, so KFD marks it invalid and every suspend is
# answered "some queues invalid" (exit 10) after the real ioctl ran.
#
# Kernel command line (VM_APPEND): gpb.n=N daemon requests (default 1000),
# gpb.oneshot=N one-shot runs (default 1000).
# Output: BENCH lat MODE I REQ_TO_ENTRY_NS IOCTL_NS EXIT_TO_DONE_NS STATUS
#         BENCH ctl-skip WHAT WHY | BENCH info TEXT | BENCH end ctl

PATH=/gp/bin:/usr/bin:/bin:/sbin
WAIT_SCALE=5	# a wait's bound: its idle-host figure times this (docs/development.md)
# a tracer attach's bound on a loaded host: see guest-overhead.sh
ATTACH_MAX=500
W=/tmp/gpb
mkdir -p $W
N=1000
N1=1000
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.n=*) N=${arg#*=} ;;
	gpb.oneshot=*) N1=${arg#*=} ;;
	esac
done

info() { echo "BENCH info $*"; }
alive() { [ -d /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
wait_for() { # file tenths
	i=0
	while [ ! -e "$1" ] && [ $i -lt $2 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
stop_pid() { # pid
	kill -INT $1 2>/dev/null
	i=0
	while alive $1 && [ $i -lt $((300 * WAIT_SCALE)) ]; do sleep 0.1; i=$((i + 1)); done
}

# Entry times of the traced SUSPEND_QUEUES ioctls, matched to requests:
# both lists sorted, each request takes the first entry after its stamp.
match() { # mode req-file
	jq -r 'select(.type == "event" and .op == "dbg_trap" and .dbg_op_raw == 6)
		| "ev \(.ts_boot_ns - .duration_ns) \(.duration_ns) \(.ts_boot_ns)"' \
		$W/trace.json > $W/ev
	sort -n -k2 $W/ev | awk -v mode=$1 '
		BEGIN { n = 0; m = 0 }
		NR == FNR { rq[n] = $3; rd[n] = $4; st[n] = $5
			for (k = 6; k <= NF; k++) st[n] = st[n] "_" $k; n++; next }
		{ ev[m] = $2; dur[m] = $3; ts[m] = $4; m++ }
		END {
			j = 0
			for (i = 0; i < n; i++) {
				while (j < m && ev[j] < rq[i]) j++
				if (j < m && ev[j] <= rd[i]) {
					printf "BENCH lat %s %d %d %d %d %s\n", mode, i,
						ev[j] - rq[i], dur[j], rd[i] - ts[j], st[i]
					j++
				} else
					printf "BENCH lat %s %d -1 -1 -1 %s\n", mode, i, st[i]
			}
		}' $2 -
}

info "kernel $(uname -r), daemon requests $N, one-shot runs $N1"
out=$(startwait -o $W/trace.json -f $W/trace.ready -t $ATTACH_MAX -- \
	gpreempt-trace -j --ready-file $W/trace.ready) || {
	echo "BENCH ctl-skip ctl gpreempt-trace did not attach: $(tail -3 $W/trace.json | tr '\n' ' ')"
	echo "BENCH end ctl"
	exit 0
}
set -- $out
TRACER=$1

kfd-exerciser runtime-enable ready:$W/target.pid wait:3600000 > $W/target.out 2>&1 &
if ! wait_for $W/target.pid $((300 * WAIT_SCALE)); then
	echo "BENCH ctl-skip ctl target did not start: $(tail -3 $W/target.out | tr '\n' ' ')"
	stop_pid $TRACER
	echo "BENCH end ctl"
	exit 0
fi
TARGET=$(cat $W/target.pid)
info "target pid $TARGET, tracer pid $TRACER"

ctl-lat exec $N1 -- gpreempt-ctl suspend -p $TARGET -q 7 --for 1ms --no-daemon \
	> $W/oneshot.req 2> $W/oneshot.err ||
	info "one-shot: ctl-lat failed: $(tail -3 $W/oneshot.err | tr '\n' ' ')"
info "one-shot: $(wc -l < $W/oneshot.req) runs; exit codes: $(awk '{ print $5 }' $W/oneshot.req | sort | uniq -c | tr '\n' ' ')"

rm -f $W/ctl.sock $W/daemon.ready
gpreempt-ctl daemon --socket $W/ctl.sock --ready $W/daemon.ready > $W/daemon.out 2>&1 &
DAEMON=$!
if wait_for $W/daemon.ready $((300 * WAIT_SCALE)); then
	ctl-lat sock $W/ctl.sock $TARGET $N > $W/daemon.req 2> $W/daemon.err ||
		info "daemon: ctl-lat failed: $(tail -3 $W/daemon.err | tr '\n' ' ')"
	info "daemon: $(wc -l < $W/daemon.req) requests; replies: $(awk '{ print $5 }' $W/daemon.req | sort | uniq -c | tr '\n' ' ')"
else
	echo "BENCH ctl-skip daemon no socket: $(tail -3 $W/daemon.out | tr '\n' ' ')"
fi
stop_pid $DAEMON
stop_pid $TRACER
kill $(cat $W/target.pid) 2>/dev/null

info "tracer: $(grep -c '"op":"dbg_trap"' $W/trace.json) dbg_trap events, lost: $(grep '"lost' $W/trace.json | tail -1)"
[ -s $W/oneshot.req ] && match oneshot $W/oneshot.req
[ -s $W/daemon.req ] && match daemon $W/daemon.req
echo "BENCH end ctl"
