# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl list/status from /sys/class/kfd/kfd/proc (no BPF needed):
# every KFD process with its tracer and queue count (no GPU here, so no
# queues). Runs on 6.1 and 6.12; 7.x has no KFD process to list.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

if [ "$GP_KERNEL" = 7.x ]; then
	gp_skip "ctl list" "7.x creates no KFD process without a GPU"
	exit 0
fi

n="ctl list: shows each KFD process with comm, queues and tracer"
ctl_target l1 open ready:/tmp/l1.ready wait:60000
p1=$TPID
ctl_target l2 open ready:/tmp/l2.ready wait:60000
p2=$TPID
gpreempt-ctl list -j > /tmp/l.json 2> /tmp/l.err
rc=$?
gpreempt-ctl list > /tmp/l.txt 2>&1
gp_log /tmp/l.txt
if [ $rc -eq 0 ] &&
   ctl_has /tmp/l.json ".type == \"process\" and .pid == $p1 and .comm == \"kfd-exerciser\" and .queues == 0 and .tracer_pid == 0" &&
   ctl_has /tmp/l.json ".type == \"process\" and .pid == $p2" &&
   grep -q "^$p1 .*kfd-exerciser" /tmp/l.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/l.err)"
	gp_log /tmp/l.json
fi

n="ctl list --pid: only that process; a pid without KFD process: exit 8"
gpreempt-ctl list --pid "$p2" -j > /tmp/l2.json 2>&1
rc=$?
sleep 60 &
spid=$!
gpreempt-ctl list --pid "$spid" > /tmp/l3.out 2> /tmp/l3.err
rc3=$?
if [ $rc -eq 0 ] && [ "$(jq -c 'select(.type == "process") | .pid' /tmp/l2.json)" = "$p2" ] &&
   [ $rc3 -eq 8 ] && grep -q "has no KFD process" /tmp/l3.err; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc rc3=$rc3 $(cat /tmp/l2.json /tmp/l3.err)"
fi
kill "$spid"

if [ "$GP_KERNEL" = 6.12 ]; then
	n="ctl status: shows the target held by gpreempt-ctl while it holds"
	kill "$p1" "$p2"
	ctl_target l4 open runtime-enable ready:/tmp/l4.ready wait:60000
	gpreempt-ctl suspend -p "$TPID" -j > /tmp/l4.json 2>&1 &
	cpid=$!
	ctl_wait_json /tmp/l4.json '.type == "hold"' 10
	gpreempt-ctl status -j > /tmp/st.json 2> /tmp/st.err
	rc=$?
	gp_log /tmp/st.json
	if [ $rc -eq 0 ] &&
	   ctl_has /tmp/st.json ".type == \"status\" and .pid == $TPID and .tracer_pid == $cpid and .held_by_gpreempt"; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/st.err)"
	fi
	kill -INT "$cpid"
	wait "$cpid"
fi
kill "$p1" "$p2" "$TPID" 2>/dev/null
wait
