# SPDX-License-Identifier: GPL-2.0
# The daemon's per-user quota on 6.12, with real KFD processes: a non-root
# client (nobody, through --group) may have DAEMON_MAX_PER_UID (8) of its
# own processes held at once; the ninth attach is refused with exit 9 and
# says why, and root, who has no quota, can still attach it.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "daemon per-user quota" || exit 0

gp_nobody
chmod 1777 /tmp
# nobody's own KFD processes need /dev/kfd (a real system has a group)
chmod 0666 /dev/kfd

SOCK=/tmp/gpq.sock
rm -f /tmp/q.ready
gpreempt-ctl daemon --socket $SOCK --group nogroup --ready /tmp/q.ready \
	< /dev/null > /dev/null 2> /tmp/q.log &
DPID=$!
n="daemon: a non-root user may have 8 targets held, the ninth is refused"
pids=
ok=1
k=1
while [ $k -le 9 ]; do
	rm -f /tmp/q$k.ready
	# nothing of ours held open; k, not i: lib.sh's gp_wait_file uses i
	su -s /bin/sh nobody -c "exec kfd-exerciser open \
		ready:/tmp/q$k.ready sleep:30000" \
		< /dev/null > /tmp/q$k.out 2>&1 &
	gp_wait_file /tmp/q$k.ready 10 || { ok=0; cat /tmp/q$k.out; break; }
	echo "quota: target $k is pid $(cat /tmp/q$k.ready)"
	pids="$pids $(cat /tmp/q$k.ready 2>/dev/null)"
	k=$((k + 1))
done
if [ $ok = 1 ] && gp_wait_file /tmp/q.ready 20; then
	k=0
	for p in $pids; do
		k=$((k + 1))
		su -s /bin/sh nobody -c "gpreempt-ctl daemon --socket $SOCK \
			--send 'attach pid=$p'" < /dev/null > /tmp/qa$k.out 2>&1
		rc=$?
		echo "quota: attach $k (pid $p) as nobody: $rc"
		if [ $k -le 8 ] && [ $rc -ne 0 ]; then
			ok=0
			gp_log /tmp/qa$k.out
		fi
	done
	# root has no quota
	gpreempt-ctl daemon --socket $SOCK --send "attach pid=$p" \
		> /tmp/qr.out 2>&1
	rrc=$?
	gpreempt-ctl daemon --socket $SOCK --send status > /tmp/qs.out 2>&1
	if [ $ok = 1 ] && [ $rc -eq 9 ] && [ $rrc -eq 0 ] &&
	   grep -q "^err 9 .*holds 8 targets" /tmp/qa9.out &&
	   grep -q "sessions=9 " /tmp/qs.out; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc root rc=$rrc"
		gp_log /tmp/qa9.out
		gp_log /tmp/qr.out
		gp_log /tmp/qs.out
		gp_log /tmp/q.log
	fi
else
	gp_fail "$n" "targets or daemon did not start"
	gp_log /tmp/q1.out
	gp_log /tmp/q.log
fi
kill -TERM $DPID 2>/dev/null
wait $DPID 2>/dev/null
for p in $pids; do kill "$p" 2>/dev/null; done
chmod 0600 /dev/kfd
