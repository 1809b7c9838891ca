# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl daemon against the real KFD. 6.12: warm sessions on
# exerciser targets over the default socket: attach (the daemon becomes
# the tracer), suspend and resume of bogus queue ids (each invalid, exit
# 10, the kernel's own answer), status, detach (target untraced and
# running), a target that exits is dropped, malformed requests refused
# with nothing changed, a non-root client refused (socket mode, then
# SO_PEERCRED). 6.1 and 7.x: the daemon runs and explains why it cannot
# suspend (exit 7: no debug API; exit 4: KFD refuses the process).
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

SOCK=/run/gpreempt/ctl.sock

# d_send REQUEST: raw request; reply in /tmp/d.out, $rc its exit code.
d_start() { # extra daemon flags
	rm -f /tmp/daemon.ready
	gpreempt-ctl daemon --ready /tmp/daemon.ready "$@" \
		2> /tmp/daemon.log &
	DPID=$!
	gp_wait_file /tmp/daemon.ready 20
}

d_stop() {
	kill -TERM "$DPID"
	wait "$DPID"
	drc=$?
}

d_check_stop() {
	if [ $drc -eq 0 ] && [ ! -e $SOCK ]; then
		gp_ok "daemon exits 0 on SIGTERM, socket removed"
	else
		gp_fail "daemon exits 0 on SIGTERM, socket removed" "rc=$drc"
	fi
}

n="daemon starts and serves status on $SOCK"
if d_start && [ "$(stat -c '%a %u' $SOCK)" = "600 0" ]; then
	d_send status
	if [ $rc -eq 0 ] &&
	   grep -q "^daemon pid=$DPID sessions=0 detaching=0 max_hold_ns=10000000000 " /tmp/d.out; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/d.out /tmp/d.err)"
	fi
else
	gp_fail "$n" "no ready file or wrong socket mode"
	gp_log /tmp/daemon.log
	exit 0
fi

if [ "$GP_KERNEL" != 6.12 ]; then
	# No debug API (6.1) or no KFD process (7.x): refused with the
	# documented code, the target untouched.
	sleep 60 &
	spid=$!
	d_send "attach pid=$spid"
	if [ "$GP_KERNEL" = 6.1 ]; then want=7; else want=4; fi
	n="daemon attach on $GP_KERNEL: refused, exit $want"
	if [ $rc -eq $want ] && grep -q "^err $want " /tmp/d.out &&
	   [ "$(ctl_field $spid TracerPid)" = 0 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/d.out)"
	fi
	kill $spid
	d_stop
	d_check_stop
	exit 0
fi

# --- 6.12: the whole protocol -------------------------------------------
if ! ctl_target t1 open runtime-enable ready:/tmp/t1.ready wait:120000; then
	gp_fail "daemon: exerciser target starts" "no ready file"
	d_stop
	exit 0
fi

d_attach_ok "daemon attach: warm session, the daemon is the tracer" \
	"^session pid=$TPID runtime=ENABLED queues=0 held=0 held_ns=0 left_ns=0 resume_failures=0$" \
	/tmp/daemon.log

n="daemon suspend of bogus queue ids: each invalid, exit 10"
gpreempt-ctl suspend -p "$TPID" -q 7 -q 1234 -g 5 -j > /tmp/s.json 2> /tmp/s.err
rc=$?
gp_log /tmp/s.json
if [ $rc -eq 10 ] &&
   ctl_has /tmp/s.json '.type == "suspend" and .ret == 0 and .invalid == 2 and ([.queues[] | select(.status == "invalid") | .id] == [7, 1234])' &&
   ! ctl_has /tmp/s.json '.type == "attach"'; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/s.err)"
fi

n="daemon status: the target held, watchdog armed"
gpreempt-ctl status -j > /tmp/st.json 2> /tmp/st.err
rc=$?
gp_log /tmp/st.json
if [ $rc -eq 0 ] &&
   ctl_has /tmp/st.json ".type == \"daemon\" and .pid == $DPID and .sessions == 1" &&
   ctl_has /tmp/st.json ".type == \"session\" and .pid == $TPID and .runtime_state == \"ENABLED\" and .held_ns > 0 and .left_ns > 0 and .left_ns <= 10000000000"; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/st.err)"
fi

n="daemon resume of bogus queue ids: each invalid, exit 10"
d_send "resume pid=$TPID queues=7,1234"
if [ $rc -eq 10 ] &&
   grep -q "^op call=resume pid=$TPID ret=0 .* requested=2 ok=0 invalid=2 error=0 queues=7:invalid,1234:invalid$" /tmp/d.out &&
   grep -q "^err 10 " /tmp/d.out; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/d.out)"
fi

n="daemon resume ends the hold"
d_send "status pid=$TPID"
if [ $rc -eq 0 ] && grep -q "^session pid=$TPID .* held_ns=0 left_ns=0 resume_failures=0$" /tmp/d.out; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/d.out)"
fi

# Malformed requests change nothing: the session and its tracer stay.
n="daemon malformed requests: err 2, session unchanged"
bad=0
for req in "suspend" "suspend pid=$TPID queues=1,1" "suspend pid=0$TPID" \
	   "detach pid=$TPID extra=1" "resume pid=$TPID grace=3" "hello"; do
	d_send "$req"
	if [ $rc -ne 2 ] || ! grep -q "^err 2 22 " /tmp/d.out; then
		bad=1
		echo "request '$req': rc=$rc $(cat /tmp/d.out)"
	fi
done
d_send "status"
if [ $bad = 0 ] && grep -q "sessions=1 " /tmp/d.out &&
   grep -q "^session pid=$TPID .* held_ns=0 " /tmp/d.out &&
   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ]; then
	gp_ok "$n"
else
	gp_fail "$n" "bad=$bad $(cat /tmp/d.out)"
fi

# A non-root client. busybox su drops to a real unprivileged uid.
gp_nobody
n="daemon refuses a non-root client (socket 0600): exit 3"
su -s /bin/sh nobody -c "gpreempt-ctl suspend -p $TPID -q 7" \
	> /tmp/nr.out 2> /tmp/nr.err
rc=$?
if [ $rc -eq 3 ] && grep -q "Permission denied" /tmp/nr.err; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/nr.out /tmp/nr.err)"
fi
n="daemon refuses a non-root client by SO_PEERCRED (socket 0666): exit 3"
chmod 0666 $SOCK
su -s /bin/sh nobody -c "gpreempt-ctl daemon --send 'suspend pid=$TPID queues=7'" \
	> /tmp/nr.out 2> /tmp/nr.err
nrc=$?
chmod 0600 $SOCK
d_send "status pid=$TPID"
if [ $nrc -eq 3 ] && grep -q "^err 3 13 permission denied: uid 65534" /tmp/nr.out &&
   grep -q "refused pid [0-9]* uid 65534" /tmp/daemon.log &&
   grep -q "^session pid=$TPID .* held_ns=0 " /tmp/d.out; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$nrc $(cat /tmp/nr.out /tmp/nr.err)"
fi

n="daemon detach: target untraced and running"
d_send "detach pid=$TPID"
kill -USR1 "$TPID"
if [ $rc -eq 0 ] && [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
   ctl_wait_json /tmp/t1.out '.step == "signal" and .sig == 10' 5; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc tracer=$(ctl_field "$TPID" TracerPid) $(cat /tmp/d.out)"
	gp_log /tmp/t1.out
fi

n="daemon drops a target that exits while held"
d_send "suspend pid=$TPID queues=7"
kill -TERM "$TPID"
if ctl_gone "$TPID" 10; then
	i=0
	while [ $i -lt $((30 * GP_WAIT_SCALE)) ]; do
		d_send status
		grep -q "sessions=0 " /tmp/d.out && break
		i=$((i + 1))
		sleep 0.1
	done
	if grep -q "sessions=0 " /tmp/d.out &&
	   grep -q "pid $TPID exited: dropped" /tmp/daemon.log; then
		gp_ok "$n"
	else
		gp_fail "$n" "$(cat /tmp/d.out)"
	fi
else
	gp_fail "$n" "target did not exit on SIGTERM while held"
fi
wait "$TPID" 2>/dev/null

# The runtime handshake in the daemon's loop: attached while the target's
# runtime is still DISABLED, the target then calls RUNTIME_ENABLE, which
# blocks in the kernel until the daemon answers EC_PROCESS_RUNTIME. Its
# stdin is a fifo: the first 'wait' step ends when we close our end.
n="daemon attached before RUNTIME_ENABLE: answers, the target does not hang"
rm -f /tmp/g.fifo /tmp/g.ready /tmp/g.ready2
mkfifo /tmp/g.fifo
kfd-exerciser open ready:/tmp/g.ready wait runtime-enable \
	ready:/tmp/g.ready2 sleep:60000 < /tmp/g.fifo > /tmp/g.out 2>&1 &
TPID=$!
exec 3> /tmp/g.fifo
if gp_wait_file /tmp/g.ready 10; then
	gpreempt-ctl daemon --send "attach pid=$TPID" > /tmp/d.out \
		2> /tmp/d.err 3>&-
	rc=$?
	gp_log /tmp/d.out
	exec 3>&-
	if [ $rc -eq 0 ] &&
	   grep -q "^session pid=$TPID runtime=DISABLED " /tmp/d.out &&
	   gp_wait_file /tmp/g.ready2 10 &&
	   ctl_has /tmp/g.out '.step == "runtime-enable" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc, or RUNTIME_ENABLE did not return"
		gp_log /tmp/g.out
	fi
	n="daemon sees the runtime enabled, then suspends on the same session"
	d_send "status pid=$TPID"
	grep -q "^session pid=$TPID runtime=ENABLED " /tmp/d.out; st=$?
	d_send "suspend pid=$TPID queues=7"
	if [ $st -eq 0 ] && [ $rc -eq 10 ] &&
	   grep -q "^op call=suspend pid=$TPID ret=0 .*queues=7:invalid$" /tmp/d.out &&
	   [ "$(grep -c "attached to pid $TPID" /tmp/daemon.log)" = 1 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/d.out)"
	fi
else
	exec 3>&-
	gp_fail "$n" "exerciser target did not start"
fi
kill "$TPID" 2>/dev/null
wait "$TPID" 2>/dev/null

# wait_case NAME LOG STEP...: a kfd-exerciser target runs STEP... and
# blocks at its "wait" step until a FIFO closes; `suspend -q 7
# --wait-runtime 20s` through the daemon is still waiting a second later,
# a status is served meanwhile, and once the FIFO closes the suspend runs
# (queue 7: KFD answers invalid, exit 10). LOG: a line the daemon must
# have logged, PID standing for the target's pid ("" for none).
wait_case() {
	n=$1
	want_log=$2
	shift 2
	rm -f /tmp/k.fifo /tmp/k.ready /tmp/k.ready2
	mkfifo /tmp/k.fifo
	kfd-exerciser "$@" ready:/tmp/k.ready2 sleep:60000 < /tmp/k.fifo \
		> /tmp/k.out 2>&1 &
	TPID=$!
	exec 3> /tmp/k.fifo
	if ! gp_wait_file /tmp/k.ready 10; then
		exec 3>&-
		gp_fail "$n" "exerciser target did not start"
		kill "$TPID" 2>/dev/null
		wait "$TPID" 2>/dev/null
		return
	fi
	gpreempt-ctl suspend -p "$TPID" -q 7 --wait-runtime 20s -j \
		> /tmp/k.json 2> /tmp/k.err 3>&- &
	CPID=$!
	sleep 1
	alive=no
	kill -0 "$CPID" 2>/dev/null && alive=yes
	d_send status	# served while that one waits
	st=$rc
	exec 3>&-	# now the target goes on
	wait "$CPID"
	rc=$?
	want_log=$(echo "$want_log" | sed "s/PID/$TPID/")
	if [ $alive = yes ] && [ $st -eq 0 ] && [ $rc -eq 10 ] &&
	   { [ -z "$want_log" ] || grep -q "$want_log" /tmp/daemon.log; } &&
	   ctl_has /tmp/k.json '.type == "suspend" and .ret == 0 and .invalid == 1' &&
	   gp_wait_file /tmp/k.ready2 10; then
		gp_ok "$n"
	else
		gp_fail "$n" "alive=$alive rc=$rc status=$st $(cat /tmp/k.err)"
		gp_log /tmp/k.json
	fi
	kill "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
}

# --wait-runtime through the daemon: the reply waits for the target's
# RUNTIME_ENABLE (the daemon serves others meanwhile), then suspends.
wait_case "daemon honours --wait-runtime: suspends once the runtime is enabled" "" \
	open ready:/tmp/k.ready wait runtime-enable
# ... and, on a process that has not opened /dev/kfd yet (ROCr before
# hsa_init), first for its KFD process, within the one budget; it used to
# refuse at once ("has no KFD process").
wait_case "daemon --wait-runtime waits for the target to open /dev/kfd" \
	"suspend pid PID waits up to 20000 ms for it to open /dev/kfd" \
	ready:/tmp/k.ready wait open runtime-enable
ctl_no_kfd_in_budget "daemon --wait-runtime: no KFD process within the budget is exit 8 after it"

d_stop
gp_log /tmp/daemon.log
d_check_stop
