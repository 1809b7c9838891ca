# SPDX-License-Identifier: GPL-2.0
# The arbiter's holds are the arbiter's (issue 24 item 4), on 6.12. The
# offline job is a kfd-exerciser stand-in (a real KFD process, no GPU)
# run as nobody (65534), a tenant; the online stand-in is root's shell,
# driven by notify as in 60-arbiter-notify.sh. While online is busy the
# arbiter holds the job suspended: nobody's resume and detach of its own
# job are refused, exit 3, naming the arbiter, and the job stays
# suspended; root's resume is applied and the policy accounts for it.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "arbiter holds" || exit 0

SOCK=/tmp/hold.sock
LOG=/tmp/hold.log

wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

pol() { gpreempt-ctl daemon --socket $SOCK --send policy 2>&1; }

# --window 1s: root's resume in the last scenario must outlast window
# boundaries while online stays busy (it runs until online's next busy
# edge); before, each new window suspended it again (cause window).
n="arbiter holds nobody's offline job suspended while online is busy"
if ctl_held_start hold $LOG --socket $SOCK --group 65534 --window 1s &&
   gpreempt-ctl notify busy --pid "$OPID" -s $SOCK > /tmp/hn.out 2>&1 &&
   wait_log "suspend pid $T (busy)" 10; then
	gp_ok "$n"
else
	gp_fail "$n" "T=$T $(cat /tmp/hold-off.out /tmp/hn.out)"
	gp_log $LOG
	ctl_held_stop
	exit 0
fi

n="the owner's resume and detach of its held job are refused, naming the arbiter"
su -s /bin/sh nobody -c "gpreempt-ctl daemon --socket $SOCK --send 'resume pid=$T'" > /tmp/hr.out 2>&1
r1=$?
su -s /bin/sh nobody -c "gpreempt-ctl daemon --socket $SOCK --send 'detach pid=$T'" > /tmp/hd.out 2>&1
r2=$?
if [ $r1 -eq 3 ] && [ $r2 -eq 3 ] &&
   grep -q "pid $T is held by the arbiter (offline, suspended while online is busy)" /tmp/hr.out &&
   grep -q "is held by the arbiter" /tmp/hd.out &&
   [ "$(ctl_field "$T" TracerPid)" = "$DPID" ] &&
   pol | grep -q "^proc pid=$T class=offline .*suspended=1 "; then
	gp_ok "$n"
else
	gp_fail "$n" "r1=$r1 r2=$r2 $(cat /tmp/hr.out /tmp/hd.out)"
	pol | head -20
fi

n="root's resume of the held job is applied and the policy accounts for it"
if gpreempt-ctl daemon --socket $SOCK --send "resume pid=$T" > /tmp/hra.out 2>&1 &&
   wait_log "pid $T resumed by the node's admin" 10 &&
   ! pol | grep -q "^proc pid=$T class=offline .*suspended=1 "; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/hra.out)"
	pol | head -20
	gp_log $LOG
fi
# Three 1 s windows pass (the wait is the point, not a bound): the
# daemon's tick and the policy request act on each window boundary.
n="root's resumed job keeps running past window boundaries while online stays busy"
sleep 3
if pol | grep -q "^arbiter state=busy online_busy=1 " &&
   ! pol | grep -q "^proc pid=$T class=offline .*suspended=1 " &&
   ! grep -q "suspend pid $T (window)" $LOG; then
	gp_ok "$n"
else
	gp_fail "$n" "$(grep "pid $T" $LOG | tail -5)"
	pol | head -20
fi
ctl_held_stop
