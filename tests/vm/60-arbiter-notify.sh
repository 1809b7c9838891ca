# SPDX-License-Identifier: GPL-2.0
# The arbiter (issue 10) on 6.12, witnessed by the kernel: gpreempt-trace
# runs alongside and records KFD's own suspend_queues/resume_queues for
# each offline process. Stand-ins: the online "server" is a shell whose
# command line says online-standin (it needs no GPU: notify is the signal);
# the offline "training jobs" are kfd-exerciser processes with the debug
# runtime enabled (real KFD processes; the VM has no GPU, so they have no
# queues: what is checked is that each suspend/resume reaches the kernel,
# when, and from whom). Real AQL queues are only on a real GPU (L3).
# --scope node: processes without queues sit on no GPU, so only the node
# machine suspends them (per-GPU scope: 64-arbiter-gpus-daemon.sh).
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh
. /gp/tests/vm/arb_lib.sh

ctl_only_612 "arbiter" || exit 0

SOCK=/tmp/arb.sock
TR=/tmp/arb-trace.json
LOG=/tmp/arb.log

wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

notify() { # busy|idle [more flags]: as root for the online stand-in
	gpreempt-ctl notify "$@" --pid "$OPID" -s $SOCK > /tmp/n.out 2>&1
}

cleanup() {
	kill "$T1" "$T2" "$T3" "$OPID" "$HPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	tr_stop
}

# A non-root uid for the refusal test (as 40-daemon.sh sets it up).
gp_nobody

if ! tr_start "$TR"; then
	gp_fail "arbiter: gpreempt-trace starts" "no ready file"
	exit 0
fi
sh -c 'while :; do sleep 1; done' online-standin &
OPID=$!
ctl_target off1 open runtime-enable ready:/tmp/off1.ready wait:300000
T1=$TPID
ctl_target off2 open runtime-enable ready:/tmp/off2.ready wait:300000
T2=$TPID
d_start() { # extra flags; the log is appended to
	rm -f /tmp/arb.ready
	gpreempt-ctl daemon --socket $SOCK --ready /tmp/arb.ready --group 65534 \
		--online uid=0,cmdline=online-standin --offline uid=0,cmdline=ready:/tmp/off \
		--resume-after 300ms --scope node "$@" 2>> $LOG &
	DPID=$!
}
# No budget here: a budget resume could come before --resume-after.
d_start

n="arbiter finds both offline stand-ins and attaches ahead of time"
if gp_wait_file /tmp/arb.ready 20 &&
   wait_log "offline pid $T1 .* attached" 10 &&
   wait_log "offline pid $T2 .* attached" 10 &&
   [ "$(ctl_field "$T1" TracerPid)" = "$DPID" ] &&
   [ "$(ctl_field "$T2" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "not attached"
	gp_log $LOG
	cleanup
	exit 0
fi

# 1. busy: every offline process suspended, the kernel says so.
n="notify busy: the kernel suspends every offline process"
t0=$(now_ns)
notify busy
rc=$?
if [ $rc -eq 0 ] && ev_wait suspend "$T1" "$t0" 1 5 &&
   ev_wait suspend "$T2" "$t0" 1 5 &&
   grep -q "suspend pid $T1 (busy)" $LOG &&
   grep -q "suspend pid $T2 (busy)" $LOG; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/n.out)"
	gp_log $LOG
fi

# 2. idle: resumed, but not before --resume-after (300 ms).
n="notify idle: resume no earlier than --resume-after 300ms"
sleep 0.2
t_idle=$(now_ns)
notify idle
rc=$?
if [ $rc -eq 0 ] && ev_wait resume "$T1" "$t_idle" 1 5 &&
   ev_wait resume "$T2" "$t_idle" 1 5; then
	r1=$(ev_first resume "$T1" "$t_idle")
	r2=$(ev_first resume "$T2" "$t_idle")
	# /proc/uptime is 10 ms coarse: allow that much.
	if [ $((r1 - t_idle)) -ge 290000000 ] &&
	   [ $((r2 - t_idle)) -ge 290000000 ] &&
	   grep -q "resume pid $T1 (idle)" $LOG; then
		gp_ok "$n"
	else
		gp_fail "$n" "resumed $(( (r1 - t_idle) / 1000000 )) ms after idle"
	fi
else
	gp_fail "$n" "rc=$rc no resume $(cat /tmp/n.out)"
	gp_log $LOG
fi

# 3. The online server's connection dies: its busy ends, offline resumes.
n="online connection killed: offline resumes"
sleep 0.5
t0=$(now_ns)
# The held connection reads a fifo we keep open: no stray process.
mkfifo /tmp/hold.fifo
gpreempt-ctl notify busy --hold --pid "$OPID" -s $SOCK < /tmp/hold.fifo \
	> /tmp/h.out 2>&1 &
HPID=$!
exec 3> /tmp/hold.fifo
_i=0
while ! grep -q "busy for pid $OPID" /tmp/h.out && [ $_i -lt $((50 * GP_WAIT_SCALE)) ]; do
	_i=$((_i + 1))
	sleep 0.1
done
if grep -q "busy for pid $OPID" /tmp/h.out && ev_wait suspend "$T1" "$t0" 1 5; then
	t_kill=$(now_ns)
	kill -KILL "$HPID"
	if ev_wait resume "$T1" "$t_kill" 1 5 &&
	   ev_wait resume "$T2" "$t_kill" 1 5 &&
	   grep -q "its busy ends" $LOG; then
		gp_ok "$n"
	else
		gp_fail "$n" "no resume after the kill"
		gp_log $LOG
	fi
else
	gp_fail "$n" "busy --hold did not suspend: $(cat /tmp/h.out)"
fi
exec 3>&-

# 4. An offline process that appears while online is busy is suspended.
n="offline started while busy: suspended once attached"
sleep 0.5
notify busy
t0=$(now_ns)
ctl_target off3 open runtime-enable ready:/tmp/off3.ready wait:300000
T3=$TPID
if wait_log "offline pid $T3 .* attached, online busy: suspending" 10 &&
   ev_wait suspend "$T3" "$t0" 1 5 &&
   grep -q "suspend pid $T3 (attached)" $LOG; then
	gp_ok "$n"
else
	gp_fail "$n" "T3=$T3 not suspended"
	gp_log $LOG
fi

# 5. A non-owner may not signal for the online process (root's).
n="notify from a non-owner uid is refused, nothing changes"
su -s /bin/sh nobody -c "gpreempt-ctl notify idle --pid $OPID -s $SOCK" \
	> /tmp/nr.out 2>&1
nrc=$?
gpreempt-ctl policy -j -s $SOCK > /tmp/p.json 2>&1
if [ $nrc -eq 3 ] && grep -q "uid 65534 may not signal for pid $OPID" /tmp/nr.out &&
   ctl_has /tmp/p.json '.type == "arbiter" and .online_busy == 1'; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$nrc $(cat /tmp/nr.out)"
	gp_log /tmp/p.json
fi

n="policy -j: counters and the offline processes"
gp_log /tmp/p.json
if ctl_has /tmp/p.json '.type == "arbiter" and .busy_periods >= 3 and .failures == 0' &&
   ctl_has /tmp/p.json ".type == \"proc\" and .class == \"offline\" and .pid == $T1 and .suspended == 1 and .suspends >= 3" &&
   ctl_has /tmp/p.json ".type == \"proc\" and .class == \"online\" and .pid == $OPID" &&
   ctl_has /tmp/p.json '.type == "hist" and .name == "suspend_ioctl" and .count >= 4'; then
	gp_ok "$n"
else
	gp_fail "$n" "missing fields"
fi

# 6. Exits: an offline process dies while suspended (dropped, the others
# stay suspended); the online one dies while busy (counts as idle).
n="offline exits while suspended: dropped, the others stay suspended"
kill -KILL "$T3"
if wait_log "pid $T3 exited: dropped" 5; then
	gpreempt-ctl policy -j -s $SOCK > /tmp/p2.json 2>&1
	if ! ctl_has /tmp/p2.json ".type == \"proc\" and .pid == $T3" &&
	   ctl_has /tmp/p2.json ".type == \"proc\" and .pid == $T1 and .suspended == 1" &&
	   ctl_has /tmp/p2.json '.type == "arbiter" and .online_busy == 1'; then
		gp_ok "$n"
	else
		gp_fail "$n" "policy after the exit"
		gp_log /tmp/p2.json
	fi
else
	gp_fail "$n" "T3 not dropped"
	gp_log $LOG
fi
T3=

n="online exits while busy: counts as idle, offline resumes"
t_exit=$(now_ns)
kill -KILL "$OPID"
wait "$OPID" 2>/dev/null
if ev_wait resume "$T1" "$t_exit" 1 5 && ev_wait resume "$T2" "$t_exit" 1 5 &&
   grep -q "online pid $OPID (.*) exited" $LOG; then
	gp_ok "$n"
else
	gp_fail "$n" "no resume after the online exit"
	gp_log $LOG
fi

# A second online stand-in, busy, so offline is suspended for step 7.
sh -c 'while :; do sleep 1; done' online-standin &
OPID=$!
t0=$(now_ns)
notify busy
if ! ev_wait suspend "$T1" "$t0" 1 5; then
	gp_fail "arbiter: second online stand-in suspends offline" "$(cat /tmp/n.out)"
fi

# 7. The daemon SIGKILLed while offline is suspended: the kernel resumes.
n="daemon SIGKILLed while suspended: the kernel resumes every offline process"
t_kill=$(now_ns)
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
DPID=
if ev_wait resume "$T1" "$t_kill" 1 5 && ev_wait resume "$T2" "$t_kill" 1 5 &&
   ! jq -s -e --argjson s "$t_kill" '[.[] | select(.type == "event" and
       .op == "dbg_trap" and .ts_boot_ns >= $s and
       (.dbg_op == "resume_queues" or .dbg_op == "disable"))] | length > 0' \
       "$TR" > /dev/null &&
   [ "$(ctl_field "$T1" TracerPid)" = 0 ]; then
	gp_ok "$n"
else
	gp_fail "$n" "no kernel resume for both, or a resume ioctl"
	gp_log "$TR"
fi
# 8. Continuous busy with --min-offline-share 20: a resume every window
# (a new daemon: the kernel ended the killed one's sessions).
: > $LOG
d_start --min-offline-share 20 --window 1s
if ! gp_wait_file /tmp/arb.ready 20 ||
   ! wait_log "offline pid $T1 .* attached" 10 ||
   ! wait_log "offline pid $T2 .* attached" 10; then
	gp_fail "arbiter: a new daemon attaches again" "not attached"
	gp_log $LOG
fi
n="continuous busy, 20% share: offline resumed in every 1 s window"
sleep 0.5
t0=$(now_ns)
notify busy
sleep 3.6
notify idle
sleep 0.5
nb=$(grep -c "resume pid $T1 (budget)" $LOG)
nr=$(ev_count resume "$T1" "$t0")
if [ "$nb" -ge 3 ] && [ "$nr" -ge 3 ] &&
   jq -s -e --argjson t "$T1" --argjson s "$t0" '
     [.[] | select(.type == "event" and .op == "resume" and
       .target_pid == $t and .ts_boot_ns >= $s) | .ts_boot_ns]
     | [range(1; length) as $i | .[$i] - .[$i - 1]]
     | map(select(. > 1500000000)) | length == 0' "$TR" > /dev/null; then
	gp_ok "$n"
else
	gp_fail "$n" "budget resumes $nb, kernel resumes $nr"
	gp_log $LOG
fi

cleanup
wait 2>/dev/null
exit 0
