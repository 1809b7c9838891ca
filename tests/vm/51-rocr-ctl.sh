# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl against real ROCr processes (rocr-probe: hsa_init() of
# Debian's runtime, then waiting). 6.12: attach to a process whose runtime
# ROCr enabled, suspend, resume, detach, as seen by gpreempt-trace too;
# signals to the held process, including the SIGTERM that runs
# hsa_shut_down() (ROCr's RUNTIME_DISABLE must be answered); the kernel's
# resume when the holder is SIGKILLed; a holder attached before ROCr
# enables its runtime (a second hsa_init()).
# 6.1: no debug API, exit 7. 7.x: KFD refuses the process, exit 4.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh
. /gp/tests/vm/rocr_lib.sh

rocr_present "rocr ctl: real ROCr targets" || exit 0

if [ "$GP_KERNEL" != 6.12 ]; then
	if [ "$GP_KERNEL" = 6.1 ]; then
		want=7 msg="has no debug-trap API"
	else
		want=4 msg="refuses to create a process"
	fi
	n="rocr ctl suspend --pid of a ROCr process on $GP_KERNEL: refused, exit $want, target untouched"
	if rocr_target r0; then
		gpreempt-ctl suspend --pid "$TPID" --for 1s > /tmp/r0.txt 2> /tmp/r0.err
		rc=$?
		gp_log /tmp/r0.err
		if [ $rc -eq $want ] && grep -q "$msg" /tmp/r0.err &&
		   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
			gp_ok "$n"
		else
			gp_fail "$n" "rc=$rc"
		fi
	else
		gp_fail "$n" "rocr-probe did not start"
	fi
	kill "$TPID" 2>/dev/null
	wait
	exit 0
fi

# 1. One-shot suspend --for 1s, with gpreempt-trace watching.
n="rocr ctl suspend --for 1s: attach (runtime enabled by ROCr), suspend, resume, detach, exit 0"
if rocr_target r1; then
	tr_start /tmp/r1-tr.json -p "$TPID" || tr_pid=
	gpreempt-ctl suspend --pid "$TPID" --for 1s -j > /tmp/r1.json 2> /tmp/r1.err
	rc=$?
	gp_log /tmp/r1.json
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/r1.json '.type == "attach" and .runtime_state == "ENABLED"' &&
	   ctl_has /tmp/r1.json '.type == "suspend" and .ret == 0' &&
	   ctl_has /tmp/r1.json '.type == "resume" and .ret == 0' &&
	   ctl_has /tmp/r1.json '.type == "detach"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/r1.err)"
	fi

	n="rocr ctl: gpreempt-trace sees ENABLE, SUSPEND, RESUME, DISABLE on the ROCr pid, in order"
	if [ -z "$tr_pid" ]; then
		gp_fail "$n" "gpreempt-trace did not start"
	else
		tr_stop
		if jq -s -e --argjson t "$TPID" '
		    [.[] | select(.type == "event" and .op == "dbg_trap" and
				  .target_pid == $t and .ret == 0) | .dbg_op]
		    | map(select(. == "enable" or . == "suspend_queues" or
				 . == "resume_queues" or . == "disable"))
		    == ["enable", "suspend_queues", "resume_queues", "disable"]' \
		    /tmp/r1-tr.json > /dev/null &&
		   ctl_has /tmp/r1-tr.json ".type == \"event\" and .op == \"suspend\" and .target_pid == $TPID" &&
		   ctl_has /tmp/r1-tr.json ".type == \"event\" and .op == \"resume\" and .target_pid == $TPID"; then
			gp_ok "$n"
		else
			gp_fail "$n" "rc=$tr_rc"
			gp_log /tmp/r1-tr.json
		fi
	fi

	n="rocr ctl: after detach the ROCr process is untraced and still answers signals"
	kill -USR1 "$TPID"
	if [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
	   ctl_wait_json /tmp/r1.out '.step == "signal" and .sig == 10' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "TracerPid=$(ctl_field "$TPID" TracerPid)"
		gp_log /tmp/r1.out
	fi
else
	gp_fail "$n" "rocr-probe did not start: $(cat /tmp/r1.out)"
fi
kill "$TPID" 2>/dev/null
wait "$TPID" 2>/dev/null

# 2. Signals to the held ROCr process. SIGTERM ends its wait and runs
# hsa_shut_down(): ROCr's RUNTIME_DISABLE blocks in KFD until the holder
# answers the runtime event, so a holder that did not would hang it.
n="rocr ctl holding: SIGUSR1 reaches the ROCr process"
if rocr_target r2; then
	gpreempt-ctl suspend --pid "$TPID" -j > /tmp/r2.json 2> /tmp/r2.err &
	cpid=$!
	ctl_wait_json /tmp/r2.json '.type == "hold"' 10
	kill -USR1 "$TPID"
	if [ "$(ctl_field "$TPID" TracerPid)" = "$cpid" ] &&
	   ctl_wait_json /tmp/r2.out '.step == "signal" and .sig == 10' 5; then
		gp_ok "$n"
	else
		gp_fail "$n" "TracerPid=$(ctl_field "$TPID" TracerPid)"
		gp_log /tmp/r2.out
	fi

	n="rocr ctl holding: SIGSTOP stops the ROCr process, SIGCONT continues it"
	ctl_stop_cont_ok "$n" /tmp/r2.out

	n="rocr ctl holding: SIGTERM runs hsa_shut_down (RUNTIME_DISABLE answered), ROCr exits 0"
	kill -TERM "$TPID"
	if ctl_gone "$TPID" 10 &&
	   ctl_wait_json /tmp/r2.json '.type == "target_exit"' 5; then
		wait "$TPID"
		trc=$?
		wait "$cpid"
		rc=$?
		gp_log /tmp/r2.json
		# hsa_shut_down returning at all shows the holder answered
		# (KFD's runtime_disable waits on runtime_enable_sema)
		if [ $trc -eq 0 ] && [ $rc -eq 0 ] &&
		   ctl_has /tmp/r2.out '.step == "hsa_shut_down" and .status == 0' &&
		   ctl_has /tmp/r2.out '.step == "exit" and .code == 0'; then
			gp_ok "$n"
		else
			gp_fail "$n" "target rc=$trc ctl rc=$rc"
			gp_log /tmp/r2.out
		fi
	else
		gp_fail "$n" "ROCr process still there: state=$(ctl_field "$TPID" State)"
		gp_log /tmp/r2.out
		gp_log /tmp/r2.json
		kill -KILL "$TPID" "$cpid" 2>/dev/null
	fi
else
	gp_fail "$n" "rocr-probe did not start: $(cat /tmp/r2.out)"
fi
wait

# 3. The holder SIGKILLed: the kernel resumes and ends the session.
n="rocr ctl SIGKILLed while holding: the kernel resumes (gpreempt-trace), the ROCr process runs untraced"
if rocr_target r3; then
	tr_start /tmp/r3-tr.json -p "$TPID" || tr_pid=
	gpreempt-ctl suspend --pid "$TPID" -j > /tmp/r3.json 2> /tmp/r3.err &
	cpid=$!
	ctl_wait_json /tmp/r3.json '.type == "hold"' 10
	kill -KILL "$cpid"
	wait "$cpid"
	rc=$?
	kill -USR1 "$TPID"
	ok=0
	if [ $rc -eq 137 ] && [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
	   ctl_wait_json /tmp/r3.out '.step == "signal" and .sig == 10' 5; then
		ok=1
	fi
	if [ -n "$tr_pid" ]; then
		ctl_wait_json /tmp/r3-tr.json ".type == \"event\" and .op == \"resume\" and .target_pid == $TPID" 5
		tr_stop
		ctl_has /tmp/r3-tr.json ".type == \"event\" and .op == \"resume\" and .target_pid == $TPID" &&
		   ! ctl_has /tmp/r3-tr.json '.type == "event" and .op == "dbg_trap" and (.dbg_op == "resume_queues" or .dbg_op == "disable")' ||
			ok=0
	else
		ok=0
	fi
	if [ $ok = 1 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc TracerPid=$(ctl_field "$TPID" TracerPid) trace=${tr_pid:-none}"
		gp_log /tmp/r3-tr.json
	fi

	n="rocr ctl SIGKILLed while holding: a new holder attaches at once, exit 0"
	gpreempt-ctl suspend --pid "$TPID" --for 100ms -j > /tmp/r4.json 2> /tmp/r4.err
	rc=$?
	if [ $rc -eq 0 ] && ctl_has /tmp/r4.json '.type == "suspend" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/r4.err)"
	fi
else
	gp_fail "$n" "rocr-probe did not start: $(cat /tmp/r3.out)"
fi
kill "$TPID" 2>/dev/null
wait

# 4. Attached while the runtime is disabled: ROCr's RUNTIME_ENABLE blocks
# in KFD until the holder answers; hsa_init() must return while held.
# ROCr opens /dev/kfd and enables its runtime ~1 ms apart inside one
# hsa_init(), so the probe runs hsa_init + hsa_shut_down first: its KFD
# process stays (it lives with the mm), runtime disabled, and the holder
# attaches before the second hsa_init().
n="rocr ctl attached before a second hsa_init: hsa_init returns while held"
rm -f /tmp/r5.fifo /tmp/r5.before /tmp/r5.ready
mkfifo /tmp/r5.fifo
exec 3<> /tmp/r5.fifo
rocr-probe -R /tmp/r5.before -r /tmp/r5.ready < /tmp/r5.fifo > /tmp/r5.out 2>&1 3>&- &
TPID=$!
if gp_wait_file /tmp/r5.before 30; then
	gpreempt-ctl suspend --pid "$TPID" --wait-runtime 30s --for 60s -j \
		> /tmp/r5.json 2> /tmp/r5.err 3>&- &
	cpid=$!
	ctl_wait_json /tmp/r5.json '.type == "wait_runtime"' 10
	exec 3>&-
	if gp_wait_file /tmp/r5.ready 30 &&
	   [ "$(jq -s '[.[] | select(.step == "hsa_init" and .status == 0)] | length' /tmp/r5.out)" = 2 ] &&
	   kill -0 "$cpid" && ! ctl_has /tmp/r5.json '.type == "detach"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "the second hsa_init did not return while held"
		gp_log /tmp/r5.out
	fi
	ctl_wait_json /tmp/r5.json '.type == "hold"' 10
	kill -INT "$cpid"
	wait "$cpid"
	rc=$?
	gp_log /tmp/r5.json
	n="rocr ctl sees ROCr enable its runtime, then suspends and resumes, exit 0"
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/r5.json '.type == "attach" and .runtime_state == "DISABLED"' &&
	   ctl_has /tmp/r5.json '.type == "runtime" and .runtime_state == "ENABLED"' &&
	   ctl_has /tmp/r5.json '.type == "suspend" and .ret == 0' &&
	   ctl_has /tmp/r5.json '.type == "resume" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/r5.err)"
	fi
else
	exec 3>&-
	gp_fail "$n" "rocr-probe did not start: $(cat /tmp/r5.out)"
fi
kill "$TPID" 2>/dev/null
wait
