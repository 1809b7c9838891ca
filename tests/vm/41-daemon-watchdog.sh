# SPDX-License-Identifier: GPL-2.0
# The daemon's hold limits on 6.12, witnessed by the kernel: gpreempt-trace
# runs alongside and records KFD's own suspend_queues/resume_queues calls
# for the target. A hold ends by itself after --max-hold (the watchdog),
# sooner with --for, and on SIGTERM the daemon resumes and detaches before
# it exits. The VM has no GPU, so the queue ids are bogus (KFD answers
# INVALID): what is checked is that the resume reaches the kernel at the
# right time, from the daemon, without any client asking.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

ctl_only_612 "daemon watchdog" || exit 0

SOCK=/tmp/gpw.sock
TR=/tmp/w-trace.json

# ev_gap OP1 OP2 MIN_MS MAX_MS: the first OP2 event after the last OP1
# event for the target comes MIN..MAX ms later (kernel timestamps).
ev_gap() {
	jq -s -e --argjson t "$TPID" --arg a "$1" --arg b "$2" \
	   --argjson lo "$3" --argjson hi "$4" '
	  [.[] | select(.type == "event" and .target_pid == $t)] as $e
	  | ([$e[] | select(.op == $a)] | last | .ts_boot_ns) as $t0
	  | ([$e[] | select(.op == $b and .ts_boot_ns > $t0)] | first
	     | .ts_boot_ns) as $t1
	  | ($t1 - $t0) / 1000000 | . >= $lo and . <= $hi' "$TR" > /dev/null
}

# wait_log TEXT SECS: until the daemon's log has TEXT.
wait_log() {
	_i=0
	while ! grep -q "$1" /tmp/wd.log; do
		_i=$((_i + 1))
		[ $_i -gt $(($2 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}

if ! tr_start "$TR"; then
	gp_fail "daemon watchdog: gpreempt-trace starts" "no ready file"
	exit 0
fi
rm -f /tmp/wd.ready
gpreempt-ctl daemon --socket $SOCK --max-hold 2s --ready /tmp/wd.ready \
	2> /tmp/wd.log &
DPID=$!
if ! gp_wait_file /tmp/wd.ready 20 ||
   ! ctl_target tw open runtime-enable ready:/tmp/tw.ready wait:120000; then
	gp_fail "daemon watchdog: daemon and target start" "no ready file"
	gp_log /tmp/wd.log
	tr_stop
	kill $DPID
	exit 0
fi

# 1. --max-hold 2s: nobody resumes, the watchdog does.
n="daemon watchdog resumes after --max-hold 2s (kernel saw it)"
gpreempt-ctl suspend -p "$TPID" -q 7 --socket $SOCK > /tmp/w1.out 2>&1
rc=$?
gpreempt-ctl status --socket $SOCK -j > /tmp/w1s.json
if [ $rc -eq 10 ] &&
   ctl_has /tmp/w1s.json ".type == \"session\" and .pid == $TPID and .left_ns > 0" &&
   wait_log "watchdog (--max-hold 2.000 s): resumed pid $TPID" 8; then
	gpreempt-ctl status --socket $SOCK -j > /tmp/w1s.json
	sleep 0.5	# let the tracer's ring buffer drain
	if ctl_has /tmp/w1s.json ".type == \"session\" and .pid == $TPID and .held_ns == 0" &&
	   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ] &&
	   ev_gap suspend resume 1900 4000; then
		gp_ok "$n"
	else
		gp_fail "$n" "hold not ended, session lost, or no kernel resume 2 s after the suspend"
		gp_log /tmp/w1s.json
		gp_log "$TR"
	fi
else
	gp_fail "$n" "rc=$rc, no hold, or no watchdog line"
	gp_log /tmp/w1.out
	gp_log /tmp/wd.log
fi

# 1b. The client says the hold the daemon applied, not the one it asked.
n="daemon: the client reports the hold --max-hold applied, not --for"
gpreempt-ctl suspend -p "$TPID" -q 7 --for 60s --socket $SOCK -j \
	> /tmp/w4.json 2>&1
rc=$?
if [ $rc -eq 10 ] && ctl_has /tmp/w4.json ".type == \"hold\" and
   .pid == $TPID and .requested_ns == 60000000000 and
   .hold_ns > 0 and .hold_ns <= 2000000000"; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc"
	gp_log /tmp/w4.json
fi
gpreempt-ctl resume -p "$TPID" --socket $SOCK > /dev/null 2>&1
sleep 0.5	# a resume event apart from the next case's

# 2. --for 300ms ends the hold sooner than --max-hold.
n="daemon ends a --for 300ms hold by itself (kernel saw it)"
gpreempt-ctl suspend -p "$TPID" -q 7 --for 300ms --socket $SOCK > /tmp/w2.out 2>&1
rc=$?
if [ $rc -eq 10 ] && wait_log "hold time over: resumed pid $TPID" 3; then
	sleep 0.5
	if ev_gap suspend resume 250 1500; then
		gp_ok "$n"
	else
		gp_fail "$n" "no kernel resume 300 ms after the suspend"
		gp_log "$TR"
	fi
else
	gp_fail "$n" "rc=$rc"
	gp_log /tmp/w2.out
	gp_log /tmp/wd.log
fi

# 3. SIGTERM while holding: resume, detach, exit 0.
n="daemon SIGTERM while holding: resumes, detaches, exits 0"
gpreempt-ctl suspend -p "$TPID" -q 7 --socket $SOCK > /tmp/w3.out 2>&1
kill -TERM $DPID
wait $DPID
drc=$?
sleep 0.5
gp_log /tmp/wd.log
if [ $drc -eq 0 ] && [ ! -e $SOCK ] &&
   grep -q "shutdown: resumed pid $TPID" /tmp/wd.log &&
   [ "$(ctl_field "$TPID" TracerPid)" = 0 ] && ev_gap suspend resume 0 2000; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$drc tracer=$(ctl_field "$TPID" TracerPid)"
fi

n="daemon target runs on after the daemon left"
kill -USR1 "$TPID"
if ctl_wait_json /tmp/tw.out '.step == "signal" and .sig == 10' 5; then
	gp_ok "$n"
else
	gp_fail "$n" "no signal line from the target"
	gp_log /tmp/tw.out
fi
kill "$TPID"
tr_stop
wait
