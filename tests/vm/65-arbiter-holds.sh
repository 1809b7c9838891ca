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

gp_nobody
chmod 0666 /dev/kfd

sh -c 'while :; do sleep 1; done' online-standin &
OPID=$!
rm -f /tmp/hoff.ready
su -s /bin/sh nobody -c 'exec kfd-exerciser open runtime-enable ready:/tmp/hoff.ready wait:300000' > /tmp/hoff.out 2>&1 &
T=$!
pol() { gpreempt-ctl daemon --socket $SOCK --send policy 2>&1; }
cleanup() {
	kill "$T" "$OPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
}
gpreempt-ctl daemon --socket $SOCK --ready /tmp/hold.ready --group 65534 \
	--online uid=0,cmdline=online-standin --offline uid=65534 \
	--resume-after 300ms --scope node 2>> $LOG &
DPID=$!

n="arbiter holds nobody's offline job suspended while online is busy"
if gp_wait_file /tmp/hoff.ready 20 && gp_wait_file /tmp/hold.ready 20 &&
   wait_log "offline pid $T .* attached" 20 &&
   gpreempt-ctl notify busy --pid "$OPID" -s $SOCK > /tmp/hn.out 2>&1 &&
   wait_log "suspend pid $T (busy)" 10; then
	gp_ok "$n"
else
	gp_fail "$n" "T=$T $(cat /tmp/hoff.out /tmp/hn.out)"
	gp_log $LOG
	cleanup
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
cleanup
