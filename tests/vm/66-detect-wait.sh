# SPDX-License-Identifier: GPL-2.0
# The launch detector's WAIT_EVENTS hook on the real KFD (6.12): a busy
# online process whose WAIT_EVENTS ioctl returns COMPLETE gets one idle
# edge (entry WAIT_EVENTS); a wait that times out makes none; a process
# that is not online makes none and is not even counted. The ioctls are
# real (kfd-exerciser's events step: CREATE_EVENT, SET_EVENT when asked,
# WAIT_EVENTS, DESTROY_EVENT; no GPU is needed for signal events). The
# STAND-IN is the busy state: the test driver (detect-run "busy PID")
# seeds the state a launch uprobe would (HIP with no GPU never waits in
# KFD; the launch uprobes themselves are 68-detect-launch.sh's).
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "launch detector: WAIT_EVENTS return ends a busy period" || exit 0

O=/tmp/dw.out
X=/tmp/dw-ex.out
rm -f /tmp/dw.fifo /tmp/dw-ex.fifo /tmp/dw.ready /tmp/dw-ex.ready \
	/tmp/dw-ex.done "$O" "$X"
mkfifo /tmp/dw.fifo /tmp/dw-ex.fifo

# wait_line FILE JQ-EXPR SECS: a line of FILE satisfies EXPR
wait_line() {
	_i=0
	until jq -e -s "$2" "$1" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -gt $(($3 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}

# stdout: JSON lines only; libbpf's words (a refused flavour) to its own file
detect-run -r /tmp/dw.ready < /tmp/dw.fifo > "$O" 2> /tmp/dw.err &
DPID=$!
exec 4> /tmp/dw.fifo
# the online process: open, ready, then blocks until its fifo closes
kfd-exerciser open ready:/tmp/dw-ex.ready wait \
	events:set=0,ms=50 events:set=1,ms=5000 ready:/tmp/dw-ex.done \
	< /tmp/dw-ex.fifo > "$X" 2>&1 &
TPID=$!
exec 3> /tmp/dw-ex.fifo

n="detect: the WAIT_EVENTS hook is attached (fentry/fexit or kprobe/kretprobe)"
if gp_wait_file /tmp/dw.ready 30 && gp_wait_file /tmp/dw-ex.ready 10; then
	gp_jq "$n" "$O" 'any(.[]; .wait_hook != null and .wait_hook != "absent")'
	n="detect: the WAIT_EVENTS hook is fentry/fexit where amdgpu has module BTF"
	if [ -e /sys/kernel/btf/amdgpu ]; then
		gp_jq "$n" "$O" 'any(.[]; .wait_hook == "fentry/fexit")'
	else
		gp_skip "$n" "amdgpu has no module BTF in this kernel"
	fi
else
	gp_fail "$n" "detect-run or the exerciser never got ready"
	gp_log "$O"
	gp_log "$X"
fi

echo "busy $TPID" >&4
n="detect: WAIT_EVENTS COMPLETE in a busy online process is one idle edge"
if wait_line "$O" "any(.[]; .busy == $TPID and .ret == 0)" 30; then
	exec 3>&-	# the exerciser's wait ends: timeout, then complete
	if gp_wait_file /tmp/dw-ex.done 30 &&
	   wait_line "$O" "any(.[]; .edge == \"idle\" and .pid == $TPID)" 30; then
		gp_jq "$n" "$X" '[.[] | select(.step == "events")] |
			length == 2 and .[0].wait_result == 1 and
			.[1].wait_result == 0 and .[1].set_err == 0'
	else
		gp_fail "$n" "no idle edge for pid $TPID"
	fi
else
	gp_fail "$n" "detect-run did not seed pid $TPID"
	gp_log "$O"
fi
exec 3>&- 2>/dev/null

# a process that is not online: a COMPLETE wait makes no edge
kfd-exerciser open events:set=1,ms=5000 > /tmp/dw-other.out 2>&1
echo counts >&4
exec 4>&-
i=0
while kill -0 $DPID 2>/dev/null && [ $i -lt $((30 * 10 * GP_WAIT_SCALE)) ]; do
	i=$((i + 1))
	sleep 0.1
done
gp_log "$O"
gp_log /tmp/dw.err
gp_log "$X"
gp_log /tmp/dw-other.out
n="detect: only the online pid's COMPLETE wait made an edge; timeouts none"
gp_jq "$n" "$O" "[.[] | select(.edge)] | length == 1 and
	.[0].pid == $TPID and .[0].entry == \"WAIT_EVENTS\" and
	.[0].edge == \"idle\""
n="detect: WAIT_EVENTS returns counted in the online process only (2)"
gp_jq "$n" "$O" '[.[] | select(.counts)] | last | .counts.wait_returns == 2'
n="detect: the other process's wait really completed"
gp_jq "$n" /tmp/dw-other.out '[.[] | select(.step == "events")] |
	length == 1 and .[0].wait_result == 0'
kill $TPID $DPID 2>/dev/null
wait $TPID $DPID 2>/dev/null
exit 0
