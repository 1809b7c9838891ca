# SPDX-License-Identifier: GPL-2.0
# The runtime handshake (6.12): a target that enables its runtime after
# gpreempt-ctl attached blocks in RUNTIME_ENABLE until the debugger sends
# SEND_RUNTIME_EVENT; gpreempt-ctl must answer so the target never hangs.
# The same holds for RUNTIME_DISABLE (ROCr shutdown) while a hold lasts.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

ctl_only_612 "ctl runtime handshake" || exit 0

# 1. Attach first, then the target enables its runtime. The target's
# stdin is a fifo: its first 'wait' step ends when we close our end.
n="ctl attached before RUNTIME_ENABLE: the target does not hang"
rm -f /tmp/g.fifo /tmp/g.ready2
mkfifo /tmp/g.fifo
# read-write: opening never blocks (no EINTR), and closing it is EOF
exec 3<> /tmp/g.fifo
# (then sleep, not wait: the fifo stays at EOF)
kfd-exerciser open ready:/tmp/g.ready wait runtime-enable \
	ready:/tmp/g.ready2 sleep:60000 < /tmp/g.fifo > /tmp/g.out 2>&1 3>&- &
TPID=$!
if gp_wait_file /tmp/g.ready 10; then
	# 3>&-: the holder must not keep the fifo's write end open
	gpreempt-ctl suspend -p "$TPID" --wait-runtime 20s --for 60s -j \
		> /tmp/g.json 2> /tmp/g.err 3>&- &
	cpid=$!
	ctl_wait_json /tmp/g.json '.type == "wait_runtime"' 10
	exec 3>&-
	# It must return while the holder still holds: a teardown (which
	# interrupts the target) would release it too, and prove nothing.
	if gp_wait_file /tmp/g.ready2 10 &&
	   ctl_has /tmp/g.out '.step == "runtime-enable" and .ret == 0' &&
	   kill -0 "$cpid" && ! ctl_has /tmp/g.json '.type == "detach"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "RUNTIME_ENABLE did not return while held"
		gp_log /tmp/g.out
	fi
	ctl_wait_json /tmp/g.json '.type == "hold"' 10
	kill -INT "$cpid"
	wait "$cpid"
	rc=$?
	gp_log /tmp/g.json
	n="ctl sees the runtime enabled, then suspends and resumes, exit 0"
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/g.json '.type == "attach" and .runtime_state == "DISABLED"' &&
	   ctl_has /tmp/g.json '.type == "runtime" and .runtime_state == "ENABLED"' &&
	   ctl_has /tmp/g.json '.type == "suspend" and .ret == 0' &&
	   ctl_has /tmp/g.json '.type == "resume" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/g.err)"
	fi
else
	exec 3>&-
	gp_fail "$n" "exerciser target did not start"
fi
kill -KILL "$TPID" 2>/dev/null

# 2. A holder that gave up (runtime not enabled yet, no --wait-runtime)
# must leave nothing behind that would block a later RUNTIME_ENABLE.
n="ctl gave up before RUNTIME_ENABLE: a later RUNTIME_ENABLE does not block"
rm -f /tmp/e.fifo /tmp/e.ready2
mkfifo /tmp/e.fifo
# read-write: opening never blocks (no EINTR), and closing it is EOF
exec 5<> /tmp/e.fifo
kfd-exerciser open ready:/tmp/e.ready wait runtime-enable \
	ready:/tmp/e.ready2 sleep:60000 < /tmp/e.fifo > /tmp/e.out 2>&1 5>&- &
TPID=$!
if gp_wait_file /tmp/e.ready 10; then
	# -q 1: a named queue, which the failed ioctl never touched
	gpreempt-ctl suspend -p "$TPID" -q 1 --for 100ms -j > /tmp/e.json \
		2> /tmp/e.err 5>&-
	rc=$?
	exec 5>&-
	if [ $rc -eq 8 ] && gp_wait_file /tmp/e.ready2 10 &&
	   ctl_has /tmp/e.out '.step == "runtime-enable" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/e.err)"
		gp_log /tmp/e.out
	fi
	n="ctl: a suspend whose ioctl failed reports no queue as ok"
	if ctl_has /tmp/e.json '.type == "suspend" and .ret < 0 and
	   (.queues | length) == 1 and .queues[0].status == "not_done"'; then
		gp_ok "$n"
	else
		gp_fail "$n" "$(grep suspend /tmp/e.json)"
	fi
else
	exec 5>&-
	gp_fail "$n" "exerciser target did not start"
fi
kill -KILL "$TPID" 2>/dev/null

# 3. The target disables its runtime (ROCr shutdown) while held.
n="ctl holding: the target's RUNTIME_DISABLE is answered"
rm -f /tmp/h.fifo /tmp/h.ready2
mkfifo /tmp/h.fifo
# read-write: opening never blocks (no EINTR), and closing it is EOF
exec 4<> /tmp/h.fifo
kfd-exerciser open runtime-enable ready:/tmp/h.ready wait runtime-disable \
	ready:/tmp/h.ready2 sleep:60000 < /tmp/h.fifo > /tmp/h.out 2>&1 4>&- &
TPID=$!
if gp_wait_file /tmp/h.ready 10; then
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/h.json 2> /tmp/h.err 4>&- &
	cpid=$!
	ctl_wait_json /tmp/h.json '.type == "hold"' 10
	exec 4>&-
	if gp_wait_file /tmp/h.ready2 10 &&
	   ctl_has /tmp/h.out '.step == "runtime-disable" and .ret == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "RUNTIME_DISABLE did not return"
		gp_log /tmp/h.out
	fi
	kill -INT "$cpid"
	wait "$cpid"
	rc=$?
	gp_log /tmp/h.json
	n="ctl SIGINT ends the hold; the runtime is off, so no resume; exit 0"
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/h.json '.type == "signal" and .signal == "INT"' &&
	   ctl_has /tmp/h.json '.type == "runtime" and .runtime_state == "DISABLED"' &&
	   ! ctl_has /tmp/h.json '.type == "resume"' &&
	   ctl_has /tmp/h.json '.type == "detach"' &&
	   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc TracerPid=$(ctl_field "$TPID" TracerPid) $(cat /tmp/h.err)"
	fi
else
	exec 4>&-
	gp_fail "$n" "exerciser target did not start"
fi
kill -KILL "$TPID" 2>/dev/null

# 4. --wait-runtime on a process that has not opened /dev/kfd yet (ROCr
# before hsa_init): the holder waits for its KFD process, then for its
# runtime, within the one budget, instead of exit 8 at once.
n="ctl --wait-runtime waits for the target to open /dev/kfd"
rm -f /tmp/k.fifo /tmp/k.ready /tmp/k.ready2
mkfifo /tmp/k.fifo
exec 6<> /tmp/k.fifo
kfd-exerciser ready:/tmp/k.ready wait open runtime-enable \
	ready:/tmp/k.ready2 sleep:60000 < /tmp/k.fifo > /tmp/k.out 2>&1 6>&- &
TPID=$!
if gp_wait_file /tmp/k.ready 10; then
	gpreempt-ctl suspend -p "$TPID" --wait-runtime 20s --for 60s -j \
		> /tmp/k.json 2> /tmp/k.err 6>&- &
	cpid=$!
	ctl_wait_json /tmp/k.json '.type == "wait_kfd"' 10
	# still waiting, not refused, while the target has no KFD process
	sleep 0.3
	alive=no
	kill -0 "$cpid" 2>/dev/null && alive=yes
	exec 6>&-
	ctl_wait_json /tmp/k.json '.type == "hold"' 20
	kill -INT "$cpid"
	wait "$cpid"
	rc=$?
	gp_log /tmp/k.json
	if [ $alive = yes ] && [ $rc -eq 0 ] &&
	   ctl_has /tmp/k.json '.type == "wait_kfd"' &&
	   ctl_has /tmp/k.json '.type == "attach"' &&
	   ctl_has /tmp/k.json '.type == "suspend" and .ret == 0' &&
	   ctl_has /tmp/k.json '.type == "resume" and .ret == 0' &&
	   gp_wait_file /tmp/k.ready2 10; then
		gp_ok "$n"
	else
		gp_fail "$n" "alive=$alive rc=$rc $(cat /tmp/k.err)"
		gp_log /tmp/k.out
	fi
else
	exec 6>&-
	gp_fail "$n" "exerciser target did not start"
fi
kill -KILL "$TPID" 2>/dev/null

ctl_no_kfd_in_budget "ctl --wait-runtime: no KFD process within the budget is exit 8 after it" \
	--no-daemon
