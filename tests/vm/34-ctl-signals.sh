# SPDX-License-Identifier: GPL-2.0
# Signal pass-through (6.12): while gpreempt-ctl holds a target as its
# ptrace tracer, signals still reach the target (re-injected), SIGSTOP and
# SIGCONT keep their job-control meaning, and the target can exit; the
# holder then notices and ends by itself.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "ctl signal pass-through" || exit 0

n="ctl holding: a signal sent to the target is delivered"
if ctl_target s1 open runtime-enable ready:/tmp/s1.ready wait:60000; then
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/sig.json 2> /tmp/sig.err &
	cpid=$!
	ctl_wait_json /tmp/sig.json '.type == "hold"' 10
	[ "$(ctl_field "$TPID" TracerPid)" = "$cpid" ] ||
		gp_fail "ctl holding: the target is traced by gpreempt-ctl" \
			"TracerPid=$(ctl_field "$TPID" TracerPid)"
	kill -USR1 "$TPID"
	if ctl_wait_json /tmp/s1.out '.step == "signal" and .sig == 10' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "no SIGUSR1 line"
		gp_log /tmp/s1.out
	fi

	n="ctl holding: SIGSTOP stops the target, SIGCONT continues it"
	ctl_stop_cont_ok "$n" /tmp/s1.out

	n="ctl holding: SIGTERM ends the target, the holder notices"
	kill -TERM "$TPID"
	if ctl_gone "$TPID" 5 &&
	   ctl_wait_json /tmp/sig.json '.type == "target_exit"' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "state=$(ctl_field "$TPID" State)"
		gp_log /tmp/sig.json
	fi
	wait "$TPID"
	trc=$?
	wait "$cpid"
	rc=$?
	n="ctl holding: target exits 0 on SIGTERM, gpreempt-ctl exits 0"
	if [ $trc -eq 0 ] && [ $rc -eq 0 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "target rc=$trc ctl rc=$rc $(cat /tmp/sig.err)"
	fi
else
	gp_fail "$n" "exerciser target did not start"
fi

# SIGTERM and SIGHUP to gpreempt-ctl end a hold like SIGINT: resume,
# DISABLE, detach.
for sig in TERM HUP; do
	n="ctl SIG$sig to the holder: resumes, detaches, exit 0"
	if ctl_target h$sig open runtime-enable ready:/tmp/h$sig.ready wait:60000; then
		gpreempt-ctl suspend -p "$TPID" -q 3 -j > /tmp/h$sig.json 2>&1 &
		cpid=$!
		ctl_wait_json /tmp/h$sig.json '.type == "hold"' 10
		kill -$sig "$cpid"
		wait "$cpid"
		rc=$?
		# -q 3 is invalid here (no queues): exit 10 is the suspend's
		if [ $rc -eq 10 ] &&
		   ctl_has /tmp/h$sig.json ".type == \"signal\" and .signal == \"$sig\"" &&
		   ctl_has /tmp/h$sig.json '.type == "resume" and .ret == 0' &&
		   ctl_has /tmp/h$sig.json '.type == "detach"' &&
		   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
			gp_ok "$n"
		else
			gp_fail "$n" "rc=$rc $(cat /tmp/h$sig.json)"
		fi
	else
		gp_fail "$n" "exerciser target did not start"
	fi
	kill "$TPID" 2>/dev/null
done

n="ctl holding: SIGKILL to the target still kills it"
if ctl_target s2 open runtime-enable ready:/tmp/s2.ready wait:60000; then
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/sig2.json 2> /tmp/sig2.err &
	cpid=$!
	ctl_wait_json /tmp/sig2.json '.type == "hold"' 10
	kill -KILL "$TPID"
	wait "$TPID"
	trc=$?
	wait "$cpid"
	rc=$?
	if [ $trc -eq 137 ] && [ $rc -eq 0 ] &&
	   ctl_has /tmp/sig2.json '.type == "target_exit"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "target rc=$trc ctl rc=$rc"
	fi
else
	gp_fail "$n" "exerciser target did not start"
fi
wait
