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
if [ $rc -eq 0 ] && [ $dt -ge 1900 ] && [ $dt -lt 10000 ] &&
   grep -q 'No KFD queues\|latency' /tmp/d.out; then
	gp_ok "trace -d 2 ends on time (${dt} ms after attach), exit 0"
else
	gp_fail "trace -d 2 ends on time" "rc=$rc after ${dt} ms"
	gp_log /tmp/d.out
	gp_log /tmp/d.err
fi
