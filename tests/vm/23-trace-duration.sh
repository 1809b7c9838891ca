# SPDX-License-Identifier: GPL-2.0
# gpreempt-trace -d ends on time: not before DURATION has passed since it
# attached (its ready file), not long after, exit 0, final report printed.
# Bounds are generous: TCG is slow and the host may be loaded.
. /gp/tests/vm/lib.sh

up_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

rm -f /tmp/d.ready
gpreempt-trace -d 2 --ready-file /tmp/d.ready > /tmp/d.out 2> /tmp/d.err &
pid=$!
if ! gp_wait_file /tmp/d.ready 60; then
	gp_fail "trace -d 2 ends on time" "never attached"
	gp_log /tmp/d.err
	kill -9 $pid
	exit 0
fi
t0=$(up_ms)
wait $pid
rc=$?
dt=$(($(up_ms) - t0))
if [ $rc -eq 0 ] && [ $dt -ge 1900 ] && [ $dt -lt $((10000 * GP_WAIT_SCALE)) ] &&
   grep -q 'No KFD queues\|latency' /tmp/d.out; then
	gp_ok "trace -d 2 ends on time (${dt} ms after attach), exit 0"
else
	gp_fail "trace -d 2 ends on time" "rc=$rc after ${dt} ms"
	gp_log /tmp/d.out
	gp_log /tmp/d.err
fi

# --ready-file never writes through a symlink planted at FILE or FILE.tmp
# (pidfile_write: O_NOFOLLOW | O_EXCL, then rename over FILE).
n="trace --ready-file never writes through a planted symlink"
echo precious > /tmp/victim
echo precious > /tmp/victim2
rm -f /tmp/s.ready /tmp/s.ready.tmp
ln -s /tmp/victim /tmp/s.ready.tmp
ln -s /tmp/victim2 /tmp/s.ready
gpreempt-trace -d 1 --ready-file /tmp/s.ready > /tmp/s.out 2> /tmp/s.err
rc=$?
if [ $rc -eq 0 ] && [ "$(cat /tmp/victim)" = precious ] &&
   [ "$(cat /tmp/victim2)" = precious ] && [ ! -L /tmp/s.ready ] &&
   grep -qx '[0-9][0-9]*' /tmp/s.ready; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc victim=$(cat /tmp/victim) victim2=$(cat /tmp/victim2)"
	ls -l /tmp/s.ready* 2>&1
	gp_log /tmp/s.err
fi
