# SPDX-License-Identifier: GPL-2.0
# --detect queues (issue 10, item 2) on the real KFD: the daemon embeds the
# tracer, attaches its probes to the stock amdgpu module and watches the
# queues online processes create, with a gpreempt-trace running beside it.
# The online stand-in is a kfd-exerciser (a real KFD process) whose
# CREATE_QUEUE the kernel refuses with EINVAL (no GPU here): the daemon
# must see that create and NOT watch it (only successful creates make a
# queue). A successful create, and the watcher following a real AQL queue,
# need a GPU (L3); the daemon's side of that is tests/unit/test_policy_qfeed
# and test_policy_qdaemon.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

if [ "$GP_KERNEL" = 7.x ]; then
	gp_skip "arbiter queues" "7.x refuses KFD processes without a GPU"
	exit 0
fi

SOCK=/tmp/aq.sock
LOG=/tmp/aq.log
TR=/tmp/aq-trace.json
: > $LOG

wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

cleanup() {
	kill "$EX" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$tr_pid" ] && tr_stop
}

# The separate tracer first: it owns the pin, the daemon pins nothing.
if ! tr_start "$TR"; then
	gp_fail "arbiter queues: gpreempt-trace starts" "no ready file"
	exit 0
fi
rm -f /tmp/aq.ready
gpreempt-ctl daemon --socket $SOCK --ready /tmp/aq.ready \
	--online uid=0,cmdline=online-ex --offline uid=0,comm=no-such-job \
	--detect notify,queues 2>> $LOG &
DPID=$!

n="daemon --detect queues: embedded tracer on, create hook attached"
if gp_wait_file /tmp/aq.ready 120 &&
   wait_log "arbiter: embedded tracer on (.*queue creates of online processes are watched" 5 &&
   gpreempt-ctl policy -j -s $SOCK > /tmp/aq-p0.json 2>&1 &&
   ctl_has /tmp/aq-p0.json '.type == "tracer" and .state == "on" and .feeding == 1 and .hooks >= 2'; then
	gp_ok "$n"
else
	gp_fail "$n" "see the log"
	gp_log $LOG
	gp_log /tmp/aq-p0.json
	cleanup
	exit 0
fi

n="gpreempt-trace beside the daemon: still running, its map still pinned"
if kill -0 "$tr_pid" 2>/dev/null && [ -e /sys/fs/bpf/gpreempt/queues ]; then
	gp_ok "$n"
else
	gp_fail "$n" "trace gone or pin missing"
	gp_log "$TR.err"
fi

# The online stand-in: found by the daemon (cmdline), then CREATE_QUEUE.
kfd-exerciser open ready:/tmp/online-ex.ready sleep:500 \
	create:gpu=0xdeadbeef,type=aql,prio=7,pct=100,ring=4096 \
	destroy:qid=3 wait:300000 > /tmp/aq-ex.json 2>&1 &
EX=$!
gp_wait_file /tmp/online-ex.ready 10

n="online stand-in's failed create (EINVAL) is seen and NOT watched"
if wait_log "create by online pid $EX failed (Invalid argument)" 10 &&
   gpreempt-ctl policy -j -s $SOCK > /tmp/aq-p1.json 2>&1 &&
   ctl_has /tmp/aq-p1.json '.type == "tracer" and .creates >= 1 and .create_failed >= 1 and .added == 0' &&
   ctl_has /tmp/aq-p1.json ".type == \"proc\" and .class == \"online\" and .pid == $EX and .watched == 0" &&
   ! ctl_has /tmp/aq-p1.json '.type == "watch"' &&
   ! grep -q "queue .* of online pid $EX created: watching" $LOG; then
	gp_ok "$n"
else
	gp_fail "$n" "see the policy output"
	gp_log /tmp/aq-p1.json
	gp_log $LOG
	gp_log /tmp/aq-ex.json
fi

n="daemon SIGTERM: exits 0, the tracer beside it keeps running"
kill "$DPID"
wait "$DPID"
drc=$?
DPID=
if [ $drc -eq 0 ] && kill -0 "$tr_pid" 2>/dev/null; then
	gp_ok "$n"
else
	gp_fail "$n" "daemon rc=$drc"
	gp_log $LOG
fi

kill "$EX" 2>/dev/null
wait "$EX" 2>/dev/null
tr_stop
tr_pid=
n="gpreempt-trace saw the same create (ret -22) from the stand-in"
if [ $tr_rc -eq 0 ] && jq -s -e --argjson p "$EX" '
    [.[] | select(.type == "event" and .op == "create" and .pid == $p)]
    | length == 1 and .[0].ret == -22' "$TR" > /dev/null; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$tr_rc"
	gp_log "$TR"
fi

gp_skip "a successful create is watched and followed" \
	"needs a GPU: the VM's KFD creates no queue (L3 kit)"
cleanup
wait 2>/dev/null
exit 0
