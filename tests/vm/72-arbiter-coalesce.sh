# SPDX-License-Identifier: GPL-2.0
# One backend call per process per decision round (issue 32, point 4) on
# the real KFD (6.12): with --gang none, an offline process with queues
# on GPUs 10001, 10002 and 10003 gets, for one busy naming 10002 and
# 10003, ONE SUSPEND_QUEUES ioctl naming both queues (gpreempt-trace's
# queues_asked == 2), then one RESUME_QUEUES at idle. Before the executor
# merged a round's actions it got two ioctls 0.8 ms apart, one queue
# each. The VM has no GPU node, so placement comes from a STAND-IN sysfs
# tree (--kfd-proc, the kernel's format); KFD answers those ids invalid,
# and the ioctls, their targets and their queue counts are the kernel's.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

ctl_only_612 "arbiter coalescing" || exit 0

SOCK=/tmp/gc.sock
LOG=/tmp/gc.log
ST=/tmp/kfd-gc

standin_queue() { # pid qid gpu_id
	mkdir -p "$ST/$1/queues/$2"
	printf '%u\n' "$3" > "$ST/$1/queues/$2/gpuid"
	printf '0\n' > "$ST/$1/queues/$2/type"
	printf '1048576\n' > "$ST/$1/queues/$2/size"
}

# the trace's suspend/resume ioctls on pid $2, as op:queues_asked
calls() { # trace pid
	jq -r -s --argjson t "$2" '[.[] | select(.type == "event" and
		(.op == "suspend" or .op == "resume") and .target_pid == $t)
		| "\(.op):\(.queues_asked)"] | join(" ")' "$1"
}

notify() { # busy|idle
	gpreempt-ctl notify "$1" --pid "$OPID" --gpu 10002,10003 \
		--socket $SOCK 2>> $LOG
}

sh -c 'while :; do sleep 1; done' online-gc-standin &
OPID=$!
rm -rf $ST
: > $LOG

n="arbiter --gang none: a busy naming GPUs 10002,10003 gives a process on both ONE suspend ioctl naming its two queues there"
if ctl_target gc1 open runtime-enable ready:/tmp/gc1.ready wait:300000; then
	T1=$TPID
	standin_queue "$T1" 1 10001
	standin_queue "$T1" 2 10002
	standin_queue "$T1" 3 10003
	rm -f /tmp/gc.ready
	gpreempt-ctl daemon --socket $SOCK --ready /tmp/gc.ready \
		--online uid=0,cmdline=online-gc-standin --kfd-proc $ST \
		--offline uid=0,cmdline=ready:/tmp/gc1 --gang none \
		--resume-after 200ms 2>> $LOG &
	DPID=$!
	if gp_wait_file /tmp/gc.ready 20 &&
	   gp_wait_log $LOG "offline pid $T1 .* attached" 20 &&
	   tr_start /tmp/gc1-trace.json; then
		notify busy
		brc=$?
		notify idle
		gp_wait_log $LOG "resume pid $T1 (idle)" 10
		tr_stop
		c=$(calls /tmp/gc1-trace.json "$T1")
		if [ $brc -eq 0 ] && [ "$c" = "suspend:2 resume:2" ] &&
		   grep -q "suspend pid $T1 (busy): 2 queues named" $LOG &&
		   [ "$(grep -c "suspend pid $T1 " $LOG)" -eq 1 ]; then
			gp_ok "$n"
		else
			gp_fail "$n" "busy rc=$brc; ioctls on $T1: '$c'"
			gp_log $LOG
		fi
	else
		gp_fail "$n" "daemon, attach or tracer not ready"
		gp_log $LOG
	fi
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	kill "$T1" 2>/dev/null
	wait "$T1" 2>/dev/null
else
	gp_fail "$n" "exerciser target not ready"
fi
kill "$OPID" 2>/dev/null
wait "$OPID" 2>/dev/null
exit 0
