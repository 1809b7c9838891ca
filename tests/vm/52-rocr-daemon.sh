# SPDX-License-Identifier: GPL-2.0
# The gpreempt-ctl daemon against real ROCr processes. 6.12: a warm
# session on a process whose runtime ROCr enabled (the daemon becomes its
# tracer), suspend and resume through the client, status, detach, and a
# held ROCr process that shuts down (hsa_shut_down's RUNTIME_DISABLE
# answered by the daemon's loop) and is dropped; the watchdog resumes a
# ROCr process held past --max-hold. 6.1 / 7.x: the attach is
# refused with exit 7 / 4, the ROCr process untouched.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/rocr_lib.sh

rocr_present "rocr daemon: real ROCr targets" || exit 0

rm -f /tmp/rd.ready
gpreempt-ctl daemon --ready /tmp/rd.ready 2> /tmp/rdaemon.log &
DPID=$!
if ! gp_wait_file /tmp/rd.ready 20; then
	gp_fail "rocr daemon: starts" "no ready file"
	gp_log /tmp/rdaemon.log
	exit 0
fi

if ! rocr_target d1; then
	gp_fail "rocr daemon: ROCr target starts" "$(cat /tmp/d1.out)"
	kill -TERM "$DPID"
	wait
	exit 0
fi

if [ "$GP_KERNEL" != 6.12 ]; then
	if [ "$GP_KERNEL" = 6.1 ]; then want=7; else want=4; fi
	n="rocr daemon attach to a ROCr process on $GP_KERNEL: refused, exit $want"
	d_send "attach pid=$TPID"
	if [ $rc -eq $want ] && grep -q "^err $want " /tmp/d.out &&
	   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/d.out)"
	fi
	kill "$TPID"
	kill -TERM "$DPID"
	wait
	exit 0
fi

d_attach_ok "rocr daemon attach: warm session, runtime enabled by ROCr, the daemon is the tracer" \
	"^session pid=$TPID runtime=ENABLED queues=0 " /tmp/rdaemon.log

n="rocr daemon suspend through the client: every queue (none), ret 0, exit 0"
gpreempt-ctl suspend -p "$TPID" -j > /tmp/ds.json 2> /tmp/ds.err
rc=$?
gp_log /tmp/ds.json
if [ $rc -eq 0 ] && ctl_has /tmp/ds.json '.type == "suspend" and .ret == 0' &&
   ! ctl_has /tmp/ds.json '.type == "attach"'; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/ds.err)"
fi

n="rocr daemon status: the ROCr process held, watchdog armed"
gpreempt-ctl status -j > /tmp/dst.json 2> /tmp/dst.err
rc=$?
if [ $rc -eq 0 ] &&
   ctl_has /tmp/dst.json ".type == \"session\" and .pid == $TPID and .runtime_state == \"ENABLED\" and .held_ns > 0 and .left_ns > 0"; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/dst.json /tmp/dst.err)"
fi

n="rocr daemon resume through the client, exit 0; the hold ends"
gpreempt-ctl resume -p "$TPID" -j > /tmp/dr.json 2> /tmp/dr.err
rc=$?
d_send "status pid=$TPID"
if [ $rc -eq 0 ] && ctl_has /tmp/dr.json '.type == "resume" and .ret == 0' &&
   grep -q "^session pid=$TPID .* held_ns=0 left_ns=0\( \|$\)" /tmp/d.out; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/dr.err /tmp/d.out)"
fi

n="rocr daemon detach: the ROCr process untraced and answering signals"
d_send "detach pid=$TPID"
kill -USR1 "$TPID"
if [ $rc -eq 0 ] && [ "$(ctl_field "$TPID" TracerPid)" = 0 ] &&
   ctl_wait_json /tmp/d1.out '.step == "signal" and .sig == 10' 5; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc tracer=$(ctl_field "$TPID" TracerPid) $(cat /tmp/d.out)"
fi

# hsa_shut_down() while held: ROCr's RUNTIME_DISABLE blocks in KFD until
# the daemon's loop answers the runtime event.
n="rocr daemon: a held ROCr process shuts down cleanly (hsa_shut_down ok) and is dropped"
d_send "suspend pid=$TPID"
src=$rc
kill -TERM "$TPID"
if [ $src -eq 0 ] && ctl_gone "$TPID" 15; then
	wait "$TPID"
	trc=$?
	i=0
	while [ $i -lt $((30 * GP_WAIT_SCALE)) ]; do
		d_send status
		grep -q "sessions=0 " /tmp/d.out && break
		i=$((i + 1))
		sleep 0.1
	done
	if [ $trc -eq 0 ] && grep -q "sessions=0 " /tmp/d.out &&
	   ctl_has /tmp/d1.out '.step == "hsa_shut_down" and .status == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "target rc=$trc $(cat /tmp/d.out)"
		gp_log /tmp/d1.out
	fi
else
	gp_fail "$n" "suspend rc=$src, or the ROCr process did not exit: state=$(ctl_field "$TPID" State)"
	gp_log /tmp/d1.out
	kill -KILL "$TPID" 2>/dev/null
fi

kill -TERM "$DPID"
wait "$DPID"
drc=$?
gp_log /tmp/rdaemon.log
n="rocr daemon exits 0 on SIGTERM"
if [ $drc -eq 0 ]; then gp_ok "$n"; else gp_fail "$n" "rc=$drc"; fi

# The watchdog: a daemon of its own with --max-hold 2s; nobody resumes.
n="rocr daemon watchdog resumes a ROCr process held past --max-hold 2s"
rm -f /tmp/rw.ready
gpreempt-ctl daemon --socket /tmp/rw.sock --max-hold 2s --ready /tmp/rw.ready \
	2> /tmp/rw.log &
WPID=$!
if gp_wait_file /tmp/rw.ready 20 && rocr_target d2; then
	gpreempt-ctl suspend -p "$TPID" --socket /tmp/rw.sock > /tmp/rw1.out 2>&1
	rc=$?
	i=0
	while ! grep -q "watchdog (--max-hold 2.000 s): resumed pid $TPID" /tmp/rw.log &&
	      [ $i -lt $((80 * GP_WAIT_SCALE)) ]; do
		i=$((i + 1))
		sleep 0.1
	done
	gpreempt-ctl status --socket /tmp/rw.sock -j > /tmp/rw1s.json
	if [ $rc -eq 0 ] &&
	   grep -q "watchdog (--max-hold 2.000 s): resumed pid $TPID" /tmp/rw.log &&
	   ctl_has /tmp/rw1s.json ".type == \"session\" and .pid == $TPID and .held_ns == 0" &&
	   [ "$(ctl_field "$TPID" TracerPid)" = "$WPID" ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc, or no watchdog resume"
		gp_log /tmp/rw.log
		gp_log /tmp/rw1s.json
	fi
else
	gp_fail "$n" "daemon or ROCr target did not start"
	gp_log /tmp/rw.log
fi
kill -TERM "$WPID" 2>/dev/null
wait "$WPID"
kill "$TPID" 2>/dev/null
wait
