# SPDX-License-Identifier: GPL-2.0
# The tenant socket with real KFD holds (issue 24, "Who is who"), on 6.12.
# The daemon serves an admin socket and a tenant socket in its own
# directory. The offline job is a kfd-exerciser stand-in (a real KFD
# process, no GPU) run as nobody (65534); the online stand-in is root's
# shell. Root's busy comes in on the tenant socket, where root is a
# tenant of uid 0: it may signal for its own process, and the arbiter
# suspends nobody's job for it. On the tenant socket, nobody's resume of
# its held job is refused as a verb the socket does not serve, and uid 0
# there sees neither the arbiter's hold in status nor nobody's process in
# policy; the admin socket shows both.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "tenant socket" || exit 0

SOCK=/tmp/tsa/ctl.sock
TSOCK=/tmp/tst/ctl.sock
LOG=/tmp/ts.log

wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

n="root's busy on the tenant socket (a tenant of uid 0) has nobody's job suspended"
if ctl_held_start ts $LOG --socket $SOCK --tenant-socket $TSOCK &&
   [ "$(stat -c %a $TSOCK)" = 666 ] && [ "$(stat -c %a $SOCK)" = 600 ] &&
   GPREEMPT_SOCKET=$TSOCK gpreempt-ctl notify busy --pid "$OPID" > /tmp/tsn.out 2>&1 &&
   wait_log "suspend pid $T (busy)" 10; then
	gp_ok "$n"
else
	gp_fail "$n" "T=$T $(cat /tmp/ts-off.out /tmp/tsn.out)"
	gp_log $LOG
	ctl_held_stop
	exit 0
fi

n="nobody's resume of its held job on the tenant socket is refused; the job stays suspended"
su -s /bin/sh nobody -c "gpreempt-ctl daemon --socket $TSOCK --send 'resume pid=$T'" > /tmp/tsr.out 2>&1
r=$?
if [ $r -eq 3 ] &&
   grep -q "'resume' is not served on the tenant socket" /tmp/tsr.out &&
   [ "$(ctl_field "$T" TracerPid)" = "$DPID" ] &&
   gpreempt-ctl daemon --socket $SOCK --send policy 2>&1 |
	grep -q "^proc pid=$T class=offline .*suspended=1 "; then
	gp_ok "$n"
else
	gp_fail "$n" "r=$r $(cat /tmp/tsr.out)"
fi

n="uid 0 on the tenant socket sees neither the arbiter's hold nor nobody's process; the admin socket shows both"
gpreempt-ctl daemon --socket $TSOCK --send status > /tmp/tss.out 2>&1
gpreempt-ctl daemon --socket $SOCK --send status > /tmp/tsas.out 2>&1
gpreempt-ctl daemon --socket $TSOCK --send policy > /tmp/tsp.out 2>&1
gpreempt-ctl daemon --socket $SOCK --send policy > /tmp/tsap.out 2>&1
if grep -q "^ok" /tmp/tss.out && ! grep -q "pid=$T " /tmp/tss.out &&
   grep -q "pid=$T " /tmp/tsas.out &&
   grep -q "^proc pid=$OPID class=online" /tmp/tsp.out &&
   ! grep -q "pid=$T " /tmp/tsp.out &&
   grep -q "^proc pid=$T class=offline" /tmp/tsap.out; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/tss.out /tmp/tsas.out /tmp/tsp.out)"
fi

n="idle on the tenant socket resumes nobody's job"
if GPREEMPT_SOCKET=$TSOCK gpreempt-ctl notify idle --pid "$OPID" > /tmp/tsi.out 2>&1 &&
   wait_log "resume pid $T" 10; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/tsi.out)"
	gp_log $LOG
fi
ctl_held_stop
