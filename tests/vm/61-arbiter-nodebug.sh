# SPDX-License-Identifier: GPL-2.0
# The arbiter where the debug API is missing (6.1: KFD 1.11) or KFD takes
# no process (7.x without a GPU): the daemon still starts and takes
# notify, an offline KFD process it cannot attach to is reported with the
# reason and left untouched (never traced, never stopped), and busy/idle
# change nothing but the policy's state. 6.12 is 60-arbiter-notify.sh.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

if [ "$GP_KERNEL" = 6.12 ]; then
	gp_skip "arbiter without the debug API" "6.12 has it: 60-arbiter-notify.sh"
	exit 0
fi

SOCK=/tmp/arb.sock
LOG=/tmp/arb.log

sh -c 'while :; do sleep 1; done' online-standin &
OPID=$!
T1=
# 6.1: a real KFD process (no runtime-enable: that ioctl is 1.13+).
if [ "$GP_KERNEL" = 6.1 ]; then
	ctl_target off1 open ready:/tmp/off1.ready wait:120000 && T1=$TPID
fi
rm -f /tmp/arb.ready
gpreempt-ctl daemon --socket $SOCK --ready /tmp/arb.ready \
	--online uid=0,cmdline=online-standin --offline uid=0,cmdline=ready:/tmp/off \
	2> $LOG &
DPID=$!

n="arbiter daemon starts on $GP_KERNEL"
if gp_wait_file /tmp/arb.ready 20; then
	gp_ok "$n"
else
	gp_fail "$n" "no ready file"
	gp_log $LOG
	kill $OPID $T1 $DPID 2>/dev/null
	exit 0
fi

if [ "$GP_KERNEL" = 6.1 ]; then
	n="6.1: offline KFD process found, attach refused with the reason, untouched"
	_i=0
	while ! grep -q "offline pid $T1 .*cannot attach yet" $LOG && [ $_i -lt $((50 * GP_WAIT_SCALE)) ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
	if [ -n "$T1" ] && grep -q "offline pid $T1 .*cannot attach yet: .*1\.13" $LOG &&
	   [ "$(ctl_field "$T1" TracerPid)" = 0 ] &&
	   [ "$(ctl_field "$T1" State | cut -c1)" = S ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "T1=$T1 tracer=$(ctl_field "$T1" TracerPid)"
		gp_log $LOG
	fi
fi

n="notify busy/idle on $GP_KERNEL: accepted, policy state follows"
gpreempt-ctl notify busy --pid "$OPID" -s $SOCK > /tmp/n1.out 2>&1
r1=$?
gpreempt-ctl policy -j -s $SOCK > /tmp/p1.json 2>&1
gpreempt-ctl notify idle --pid "$OPID" -s $SOCK > /tmp/n2.out 2>&1
r2=$?
gpreempt-ctl policy -j -s $SOCK > /tmp/p2.json 2>&1
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
   ctl_has /tmp/p1.json '.type == "arbiter" and .online_busy == 1 and .suspends == 0' &&
   ! ctl_has /tmp/p1.json '.type == "proc" and .class == "offline"' &&
   ctl_has /tmp/p2.json '.type == "arbiter" and .online_busy == 0 and .busy_periods == 1'; then
	gp_ok "$n"
else
	gp_fail "$n" "r1=$r1 r2=$r2 $(cat /tmp/n1.out /tmp/n2.out)"
	gp_log /tmp/p1.json
fi

kill -TERM $DPID
wait $DPID
drc=$?
gp_check "arbiter daemon exits 0 on SIGTERM ($GP_KERNEL)" [ $drc -eq 0 ]
kill $OPID $T1 2>/dev/null
wait 2>/dev/null
exit 0
