# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl SIGKILLed while it holds a target (6.12): nothing of it may
# outlive it. The kernel drops the ptrace link and, through the holder's
# mm-release notifier, DISABLEs debug on the target, which resumes all its
# queues (kfd_dbg_trap_disable -> resume_queues(all)). Shown here by: the
# target runs untraced afterwards, and a new holder can ENABLE debug on it
# at once (KFD refuses a second ENABLE while a session lives).
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "ctl SIGKILLed while holding" || exit 0

n="ctl SIGKILLed while holding: the target is left untraced and running"
if ctl_target k1 open runtime-enable ready:/tmp/k1.ready wait:60000; then
	# gpreempt-trace alongside, when it can run here: it must show the
	# kernel's own resume_queues for the target, with no RESUME_QUEUES or
	# DISABLE ioctl from gpreempt-ctl.
	rm -f /tmp/tr.ready
	gpreempt-trace -j -p "$TPID" --ready-file /tmp/tr.ready \
		> /tmp/tr.json 2> /tmp/tr.err &
	trpid=$!
	gp_wait_file /tmp/tr.ready 60 || trpid=
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/k1.json 2> /tmp/k1.err &
	cpid=$!
	if ! ctl_wait_json /tmp/k1.json '.type == "hold"' 10; then
		gp_fail "$n" "gpreempt-ctl did not hold: $(cat /tmp/k1.err)"
	fi
	kill -KILL "$cpid"
	wait "$cpid"
	rc=$?
	kill -USR1 "$TPID"
	if [ $rc -eq 137 ] && [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
	   ctl_wait_json /tmp/k1.out '.step == "signal" and .sig == 10' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc TracerPid=$(ctl_field "$TPID" TracerPid)"
	fi

	n="ctl SIGKILLed while holding: gpreempt-trace shows the kernel's own resume"
	if [ -z "$trpid" ]; then
		gp_skip "$n" "gpreempt-trace did not start: $(head -c 200 /tmp/tr.err)"
	elif ctl_wait_json /tmp/tr.json ".type == \"event\" and .op == \"resume\" and .target_pid == $TPID" 5 &&
	     ctl_has /tmp/tr.json ".type == \"event\" and .op == \"suspend\" and .target_pid == $TPID" &&
	     ! ctl_has /tmp/tr.json '.type == "event" and .op == "dbg_trap" and (.dbg_op == "resume_queues" or .dbg_op == "disable")'; then
		gp_ok "$n"
	else
		gp_fail "$n" "no kernel resume event"
		gp_log /tmp/tr.json
	fi
	[ -n "$trpid" ] && kill -INT "$trpid" 2>/dev/null

	n="ctl SIGKILLed while holding: the kernel ended its debug session (a new holder can ENABLE)"
	gpreempt-ctl suspend -p "$TPID" --for 100ms -j > /tmp/k2.json 2> /tmp/k2.err
	rc=$?
	gp_log /tmp/k2.json
	if [ $rc -eq 0 ] && ctl_has /tmp/k2.json '.type == "attach"' &&
	   ctl_has /tmp/k2.json '.type == "suspend" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/k2.err)"
	fi
else
	gp_fail "$n" "exerciser target did not start"
fi
kill "$TPID" 2>/dev/null
wait
