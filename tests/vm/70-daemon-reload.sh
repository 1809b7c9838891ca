# SPDX-License-Identifier: GPL-2.0
# SIGHUP reloads the daemon's --config without dropping a hold (issue 13),
# against the real KFD. 6.12: the daemon holds an exerciser target
# (attached, suspended with a bogus queue id: the kernel answers
# "invalid" and the hold starts), the file changes, SIGHUP: the same
# daemon still traces the target, the hold keeps its deadline, the new
# max-hold shows; a bad file is refused and changes nothing; SIGTERM then
# resumes and detaches. The --metrics endpoint (busybox wget) shows the
# session and the kernel's "invalid" answer. Then the arbiter (issue 10)
# under SIGHUP: an offline exerciser suspended by a busy stays suspended
# and traced across a reload that changes the policy's timings, and a
# reload whose offline selector no longer names it resumes it and ends
# the arbiter's ptrace session (TracerPid 0: the kernel's word).
# 6.1 / 7.x: no hold is possible there (no debug API / no KFD process):
# skipped with the reason.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

if [ "$GP_KERNEL" != 6.12 ]; then
	gp_skip "daemon SIGHUP keeps holds" "needs KFD >= 1.13 with a process (6.12)"
	exit 0
fi

CONF=/tmp/gpreempt.conf
ip link set lo up 2>/dev/null
printf '# reload test\nmax-hold 60s\nmetrics 127.0.0.1:9464\n' > $CONF
rm -f /tmp/r.ready
gpreempt-ctl daemon --config $CONF --ready /tmp/r.ready 2> /tmp/r.log &
DPID=$!
if ! gp_wait_file /tmp/r.ready 20; then
	gp_fail "daemon --config starts" "no ready file"
	gp_log /tmp/r.log
	exit 0
fi
if ! ctl_target r1 open runtime-enable ready:/tmp/r1.ready wait:120000; then
	gp_fail "reload: exerciser target starts" "no ready file"
	kill -TERM $DPID
	exit 0
fi

n="reload: the daemon holds the target (max-hold 60s from the file)"
d_send "suspend pid=$TPID queues=7"
d_send "status pid=$TPID"
gp_log /tmp/d.out
left0=$(sed -n "s/^session pid=$TPID .* left_ns=\([0-9]*\).*$/\1/p" /tmp/d.out)
if grep -q "max_hold_ns=60000000000 " /tmp/d.out && [ -n "$left0" ] &&
   [ "$left0" -gt 30000000000 ] &&
   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/d.out /tmp/d.err)"
fi

n="metrics while holding: one session, the suspend and KFD's 'invalid' counted"
if wget -q -O /tmp/m.txt http://127.0.0.1:9464/metrics &&
   grep -q '^gpreempt_sessions_held 1$' /tmp/m.txt &&
   grep -q '^gpreempt_requests_total{op="suspend"} 1$' /tmp/m.txt &&
   grep -q '^gpreempt_errors_total{cause="queues_failed"} 1$' /tmp/m.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "$(grep -E 'held|suspend"|queues_failed' /tmp/m.txt 2>&1)"
fi

n="SIGHUP applies the new file; the same daemon keeps the hold and its deadline"
printf 'max-hold 20s\nverbose\nmetrics 127.0.0.1:9464\n' > $CONF
kill -HUP $DPID
for _ in $(seq 50); do grep -q "reloaded $CONF" /tmp/r.log && break; sleep 0.1; done
d_send "status pid=$TPID"
gp_log /tmp/d.out
left1=$(sed -n "s/^session pid=$TPID .* left_ns=\([0-9]*\).*$/\1/p" /tmp/d.out)
if kill -0 $DPID 2>/dev/null &&
   grep -q "reloaded $CONF: --max-hold 20.000 s, verbose; 1 target kept" /tmp/r.log &&
   grep -q "^daemon pid=$DPID sessions=1 .*max_hold_ns=20000000000 " /tmp/d.out &&
   [ -n "$left1" ] && [ "$left1" -gt 20000000000 ] &&
   grep -q "^session pid=$TPID .* held=.* held_ns=[1-9]" /tmp/d.out &&
   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "left0=$left0 left1=$left1 $(cat /tmp/d.out)"
	gp_log /tmp/r.log
fi

n="SIGHUP with a bad file: refused with its line, hold and settings kept"
printf 'max-hold 20s\nmetrics 127.0.0.1:9464\nmax-hold soon\n' > $CONF
kill -HUP $DPID
for _ in $(seq 50); do grep -q "reload refused" /tmp/r.log && break; sleep 0.1; done
d_send "status pid=$TPID"
if grep -q "reload refused, running configuration kept: $CONF:3: invalid duration 'soon'" /tmp/r.log &&
   grep -q "^daemon pid=$DPID sessions=1 .*max_hold_ns=20000000000 " /tmp/d.out &&
   grep -q "^session pid=$TPID .* held_ns=[1-9]" /tmp/d.out &&
   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/d.out)"
	gp_log /tmp/r.log
fi

n="SIGTERM after reloads: the target resumed, detached and running"
kill -TERM $DPID
wait $DPID
drc=$?
if [ $drc -eq 0 ] && [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
   kill -0 "$TPID" 2>/dev/null; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$drc tracer=$(ctl_field "$TPID" TracerPid)"
	gp_log /tmp/r.log
fi
kill "$TPID" 2>/dev/null

# --- the arbiter under SIGHUP ---
ACONF=/tmp/arb-reload.conf
ASOCK=/tmp/arb-reload.sock
ALOG=/tmp/arb-reload.log
alog_wait() { gp_wait_log $ALOG "$@"; } # TEXT SECS
a_policy() { # JQ-FILTER: policy -j's records as one array, jq -e
	gpreempt-ctl policy -j -s $ASOCK > /tmp/p.out 2>&1 &&
		jq -s -e "$1" /tmp/p.out > /dev/null
}
a_off() { # PID: its offline record
	echo "[.[] | select(.type == \"proc\" and .pid == $1)]"
}
ARB='[.[] | select(.type == "arbiter")][0]'
sh -c 'while :; do sleep 1; done' online-standin &
OPID=$!
ctl_target a1 open runtime-enable ready:/tmp/a1.ready wait:300000
A1=$TPID
printf 'socket %s\nmax-hold 60s\nmetrics 127.0.0.1:9465\nscope node\nonline uid=0,cmdline=online-standin\noffline uid=0,cmdline=ready:/tmp/a1\nresume-after 300ms\n' \
	$ASOCK > $ACONF
rm -f /tmp/a.ready
gpreempt-ctl daemon --config $ACONF --ready /tmp/a.ready 2> $ALOG &
DPID=$!

n="arbiter reload: the offline stand-in is attached and suspended by busy"
if gp_wait_file /tmp/a.ready 20 && alog_wait "offline pid $A1 .* attached" 10 &&
   gpreempt-ctl notify busy --pid "$OPID" -s $ASOCK > /tmp/n.out 2>&1 &&
   alog_wait "suspend pid $A1 (busy)" 5 &&
   a_policy "$(a_off $A1)[0] | .class == \"offline\" and .suspended == 1" &&
   [ "$(ctl_field "$A1" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/n.out /tmp/p.out 2>&1)"
	gp_log $ALOG
fi

n="metrics: the arbiter's suspend in gpreempt_policy_* and the per-process families"
if wget -q -O /tmp/am.txt http://127.0.0.1:9465/metrics &&
   grep -q '^gpreempt_policy_online_busy 1$' /tmp/am.txt &&
   grep -q '^gpreempt_policy_offline_suspended 1$' /tmp/am.txt &&
   grep -q '^gpreempt_policy_suspends_total 1$' /tmp/am.txt &&
   grep -q '^gpreempt_policy_suspend_duration_seconds_count 1$' /tmp/am.txt &&
   grep -q '^gpreempt_policy_trigger_to_suspend_seconds_count 1$' /tmp/am.txt &&
   grep -q "^gpreempt_policy_offline_suspended_seconds_total{pid=\"$A1\",comm=\"kfd-exerciser\"} " /tmp/am.txt &&
   grep -q "^gpreempt_suspends_total{pid=\"$A1\",comm=\"kfd-exerciser\"} 1$" /tmp/am.txt &&
   grep -q '^gpreempt_processes_suspended 1$' /tmp/am.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "$(grep -E '^gpreempt_(policy_(online|offline|suspends)|suspends_total|processes)' /tmp/am.txt 2>&1)"
fi

n="arbiter reload: new timings, the offline hold and the session survive"
printf 'socket %s\nmax-hold 60s\nmetrics 127.0.0.1:9465\nscope node\nonline uid=0,cmdline=online-standin\noffline uid=0,cmdline=ready:/tmp/a1\nresume-after 500ms\nwindow 2s\n' \
	$ASOCK > $ACONF
kill -HUP $DPID
if alog_wait "arbiter: reloaded: 1 online and 1 offline selectors, detect notify, --resume-after 500.000 ms, --min-offline-share 0%, --window 2.000 s" 5 &&
   grep -q "0 processes reclassified, 1 offline held" $ALOG &&
   a_policy "$ARB | .resume_after_ns == 500000000 and .window_ns == 2000000000 and .online_busy == 1" &&
   a_policy "$(a_off $A1)[0] | .class == \"offline\" and .suspended == 1" &&
   ! grep -q "resume pid $A1" $ALOG &&
   [ "$(ctl_field "$A1" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/p.out)"
	gp_log $ALOG
fi

n="arbiter reload: offline no longer selected: resumed and released (TracerPid 0)"
printf 'socket %s\nmax-hold 60s\nmetrics 127.0.0.1:9465\nscope node\nonline uid=0,cmdline=online-standin\noffline uid=0,cmdline=no-such-job\n' \
	$ASOCK > $ACONF
kill -HUP $DPID
i=0
while [ "$(ctl_field "$A1" TracerPid)" != 0 ] && [ $i -lt $((50 * GP_WAIT_SCALE)) ]; do
	i=$((i + 1)); sleep 0.1
done
if alog_wait "1 process reclassified, 0 offline held" 5 &&
   grep -q "offline pid $A1 .* reclassified (reload): now none" $ALOG &&
   grep -q "resume pid $A1 (detach)" $ALOG &&
   [ "$(ctl_field "$A1" TracerPid)" = 0 ] && kill -0 "$A1" 2>/dev/null &&
   a_policy "$(a_off $A1) | length == 0" && a_policy "$ARB | .online_busy == 1"; then
	gp_ok "$n"
else
	gp_fail "$n" "tracer=$(ctl_field "$A1" TracerPid) $(cat /tmp/p.out)"
	gp_log $ALOG
fi

# The 'classify' verb moves a process as a reload does: class offline
# attaches it (and, online being busy, suspends it), class none resumes it
# and ends the arbiter's session, not only its class.
n="classify class=offline attaches and suspends; class=none resumes and releases (TracerPid 0)"
: > /tmp/c.err
gpreempt-ctl daemon -s $ASOCK --send "classify pid=$A1 class=offline" \
	> /dev/null 2>> /tmp/c.err
i=0
while [ "$(ctl_field "$A1" TracerPid)" != "$DPID" ] && [ $i -lt $((100 * GP_WAIT_SCALE)) ]; do
	i=$((i + 1)); sleep 0.1
done
attached=$(ctl_field "$A1" TracerPid)
alog_wait "suspend pid $A1 (busy)" 5 && suspended=1 || suspended=0
gpreempt-ctl daemon -s $ASOCK --send "classify pid=$A1 class=none" \
	> /dev/null 2>> /tmp/c.err
i=0
while [ "$(ctl_field "$A1" TracerPid)" != 0 ] && [ $i -lt $((50 * GP_WAIT_SCALE)) ]; do
	i=$((i + 1)); sleep 0.1
done
if [ "$attached" = "$DPID" ] && [ $suspended = 1 ] &&
   alog_wait "pid $A1 (kfd-exerciser): detaching the arbiter's session" 5 &&
   [ "$(ctl_field "$A1" TracerPid)" = 0 ] && kill -0 "$A1" 2>/dev/null &&
   a_policy "$(a_off $A1) | length == 0"; then
	gp_ok "$n"
else
	gp_fail "$n" "attached=$attached suspended=$suspended tracer=$(ctl_field "$A1" TracerPid) $(cat /tmp/c.err)"
	gp_log $ALOG
fi
kill -TERM $DPID
wait $DPID
kill "$A1" "$OPID" 2>/dev/null
