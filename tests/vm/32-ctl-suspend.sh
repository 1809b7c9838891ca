# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl suspend/resume against exerciser targets on the real KFD
# (6.12): bogus queue ids come back INVALID (exit 10), a runtime that
# never enabled debug support, a pid without KFD process and an already
# traced target are refused with their documented messages.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "ctl suspend/resume against exerciser targets" || exit 0

# 1. Runtime-enabled target, bogus queue ids.
n="ctl suspend of bogus queue ids: each invalid, exit 10"
if ctl_target t1 open runtime-enable ready:/tmp/t1.ready wait:60000; then
	gpreempt-ctl suspend -p "$TPID" -q 7 -q 1234 --for 200ms -j \
		> /tmp/s1.json 2> /tmp/s1.err
	rc=$?
	gp_log /tmp/s1.json
	if [ $rc -eq 10 ] &&
	   ctl_has /tmp/s1.json '.type == "suspend" and .ret == 0 and .invalid == 2 and .ok == 0 and ([.queues[] | select(.status == "invalid") | .id] == [7, 1234])' &&
	   ctl_has /tmp/s1.json '.type == "resume" and .invalid == 2' &&
	   ctl_has /tmp/s1.json '.type == "detach"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi

	n="ctl resume of bogus queue ids: each invalid, exit 10"
	gpreempt-ctl resume -p "$TPID" -q 7 -q 1234 > /tmp/r1.txt 2> /tmp/r1.err
	rc=$?
	gp_log /tmp/r1.txt
	if [ $rc -eq 10 ] && grep -q "queue 7 .*invalid" /tmp/r1.txt &&
	   grep -q "queue 1234 .*invalid" /tmp/r1.txt; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/r1.err)"
	fi

	n="ctl resume while a one-shot suspend holds: says who, exit 9"
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/s6.json 2>&1 &
	cpid=$!
	ctl_wait_json /tmp/s6.json '.type == "hold"' 10
	gpreempt-ctl resume -p "$TPID" > /tmp/r6.out 2> /tmp/r6.err
	rc=$?
	kill -INT "$cpid"
	wait "$cpid"
	if [ $rc -eq 9 ] &&
	   grep -q "is held by gpreempt-ctl pid $cpid.*kill -INT $cpid" /tmp/r6.err; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/r6.err)"
	fi

	n="ctl suspend of every queue (none here) succeeds, exit 0"
	gpreempt-ctl suspend -p "$TPID" --for 100ms -j > /tmp/s2.json 2> /tmp/s2.err
	rc=$?
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/s2.json '.type == "attach" and .runtime_state == "ENABLED"' &&
	   ctl_has /tmp/s2.json '.type == "suspend" and .ret == 0 and .requested == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/s2.err)"
	fi

	n="ctl leaves the target untraced and running"
	kill -USR1 "$TPID"
	if [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
	   ctl_wait_json /tmp/t1.out '.step == "signal" and .sig == 10' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "TracerPid=$(ctl_field "$TPID" TracerPid)"
		gp_log /tmp/t1.out
	fi
else
	gp_fail "$n" "exerciser target did not start"
fi
kill "$TPID" 2>/dev/null

# 2. A target whose runtime never enabled debug support.
n="ctl suspend of a runtime-disabled target: documented message, exit 8"
if ctl_target t2 open ready:/tmp/t2.ready wait:60000; then
	gpreempt-ctl suspend -p "$TPID" --for 100ms > /tmp/s3.out 2> /tmp/s3.err
	rc=$?
	gp_log /tmp/s3.err
	if [ $rc -eq 8 ] &&
	   grep -q "runtime has not enabled debug support" /tmp/s3.err &&
	   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi
else
	gp_fail "$n" "exerciser target did not start"
fi
kill "$TPID" 2>/dev/null

# 3. A process that never opened /dev/kfd.
n="ctl suspend of a process without KFD process: refused, exit 8"
sleep 60 &
spid=$!
gpreempt-ctl suspend -p "$spid" --for 100ms > /tmp/s4.out 2> /tmp/s4.err
rc=$?
if [ $rc -eq 8 ] && grep -q "has no KFD process" /tmp/s4.err; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/s4.err)"
fi
kill "$spid"

# 4. A target another tracer (a debugger) already holds.
n="ctl suspend of an already traced target: refused, exit 9"
if ctl_target t3 open runtime-enable ready:/tmp/t3.ready wait:60000; then
	kfd-exerciser seize:pid="$TPID" wait:60000 > /tmp/tracer.out 2>&1 &
	xpid=$!
	i=0
	while [ "$(ctl_field "$TPID" TracerPid)" != "$xpid" ] && [ $i -lt $((50 * GP_WAIT_SCALE)) ]; do
		i=$((i + 1))
		sleep 0.1
	done
	gpreempt-ctl suspend -p "$TPID" --for 100ms > /tmp/s5.out 2> /tmp/s5.err
	rc=$?
	gp_log /tmp/s5.err
	if [ $rc -eq 9 ] && grep -q "already traced by pid $xpid" /tmp/s5.err; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi
	kill "$xpid" 2>/dev/null
else
	gp_fail "$n" "exerciser target did not start"
fi
kill "$TPID" 2>/dev/null
wait
