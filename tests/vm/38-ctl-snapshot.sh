# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl snapshot against the real KFD sysfs and debugfs files of
# the stock amdgpu module (no GPU: the topology has CPU nodes only).
# 6.1 / 6.12: the exerciser's KFD process is listed from sysfs with its
# procfs details and in the debugfs mqds dump (the kernel's own header
# line, parsed); 7.x: no KFD process can exist without a GPU, so the
# report has none, and the dumps are still read. All three: the live
# flag follows gpreempt-trace's pinned queue map.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

n="ctl snapshot: topology read, no GPU node, exit 0"
gpreempt-ctl snapshot -j > /tmp/s0.json 2> /tmp/s0.err
rc=$?
gp_log /tmp/s0.err
if [ -d /sys/class/kfd/kfd/topology/nodes ] && [ $rc -eq 0 ] &&
   ctl_has /tmp/s0.json '.type == "snapshot" and .gpus == 0' &&
   ! ctl_has /tmp/s0.json '.type == "gpu"'; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc"
	gp_log /tmp/s0.json
fi

n="ctl snapshot: debugfs kfd/mqds and hqds present and parsed"
if [ -r /sys/kernel/debug/kfd/mqds ] &&
   ctl_has /tmp/s0.json '.type == "snapshot" and .mqds == "ok" and .hqds == "ok"'; then
	gp_ok "$n"
else
	gp_fail "$n" "$(ls /sys/kernel/debug/kfd 2>&1)"
fi

n="ctl snapshot: live state from gpreempt-trace's pinned map while it runs"
if tr_start /tmp/s-tr.json; then
	gpreempt-ctl snapshot -j > /tmp/s-live.json 2>&1
	tr_stop
	gpreempt-ctl snapshot -j > /tmp/s-nolive.json 2>&1
	if ctl_has /tmp/s-live.json '.type == "snapshot" and .live == true' &&
	   ctl_has /tmp/s-nolive.json '.type == "snapshot" and .live == false'; then
		gp_ok "$n"
	else
		gp_fail "$n" "live flag wrong"
		gp_log /tmp/s-live.json
	fi
else
	gp_fail "$n" "gpreempt-trace did not start"
fi

if [ "$GP_KERNEL" = 7.x ]; then
	n="ctl snapshot (7.x): no KFD process, report says so"
	gpreempt-ctl snapshot > /tmp/s7.txt 2>&1
	rc=$?
	gp_log /tmp/s7.txt
	if [ $rc -eq 0 ] && ctl_has /tmp/s0.json '.type == "snapshot" and .processes == 0' &&
	   grep -q "KFD processes: none" /tmp/s7.txt &&
	   grep -q "no GPU node" /tmp/s7.txt; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi
	exit 0
fi

n="ctl snapshot: the exerciser's process from sysfs, procfs and debugfs"
ctl_target s1 open ready:/tmp/s1.ready wait:60000
p1=$TPID
gpreempt-ctl snapshot -j > /tmp/s1.json 2> /tmp/s1.err
rc=$?
gpreempt-ctl snapshot > /tmp/s1.txt 2>&1
gp_log /tmp/s1.txt
grep "^Process " /sys/kernel/debug/kfd/mqds > /tmp/mqds.hdr
gp_log /tmp/mqds.hdr
if [ $rc -eq 0 ] &&
   ctl_has /tmp/s1.json ".type == \"process\" and .pid == $p1 and .ns_pid == $p1 and .uid == 0 and .comm == \"kfd-exerciser\" and .queues == 0" &&
   ctl_has /tmp/s1.json ".type == \"snapshot\" and .processes >= 1 and .mqds == \"ok\"" &&
   grep -q "^Process $p1 PASID " /tmp/mqds.hdr &&
   grep -q "^$p1 .*kfd-exerciser" /tmp/s1.txt &&
   grep -q "^$p1 .*no queues (PASID " /tmp/s1.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc $(cat /tmp/s1.err)"
	gp_log /tmp/s1.json
fi

n="ctl snapshot: every text line under 80 columns"
if [ -s /tmp/s1.txt ] && ! awk 'length > 79 { bad = 1 } END { exit !bad }' /tmp/s1.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "a line is 80 columns or more"
fi

n="ctl snapshot: debugfs unmounted: fields absent, said why, still exit 0"
if umount /sys/kernel/debug 2>/dev/null; then
	gpreempt-ctl snapshot > /tmp/s2.txt 2>&1
	rc=$?
	gpreempt-ctl snapshot -j > /tmp/s2.json 2>/dev/null
	mount -t debugfs debugfs /sys/kernel/debug
	gp_log /tmp/s2.txt
	if [ $rc -eq 0 ] && grep -q "MQDs: none: debugfs is not mounted" /tmp/s2.txt &&
	   ctl_has /tmp/s2.json ".type == \"snapshot\" and .mqds == \"ENOENT\"" &&
	   ctl_has /tmp/s2.json ".type == \"process\" and .pid == $p1"; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi
else
	gp_skip "$n" "debugfs busy, cannot unmount"
fi
if [ "$GP_KERNEL" = 6.12 ]; then
	n="ctl snapshot: a process held by gpreempt-ctl suspend shows its holder"
	ctl_target s3 open runtime-enable ready:/tmp/s3.ready wait:60000
	p3=$TPID
	gpreempt-ctl suspend -p "$p3" -j > /tmp/s3.json 2>&1 &
	cpid=$!
	ctl_wait_json /tmp/s3.json '.type == "hold"' 10
	gpreempt-ctl snapshot -j > /tmp/s3s.json 2>&1
	gpreempt-ctl snapshot > /tmp/s3s.txt 2>&1
	gp_log /tmp/s3s.txt
	if ctl_has /tmp/s3s.json ".type == \"process\" and .pid == $p3 and .tracer_pid == $cpid and .tracer_comm == \"gpreempt-ctl\"" &&
	   grep -q "held (ptrace) by $cpid (gpreempt-ctl)" /tmp/s3s.txt; then
		gp_ok "$n"
	else
		gp_fail "$n" "holder not shown"
		gp_log /tmp/s3s.json
	fi
	kill -INT "$cpid"
	wait "$cpid"
	kill "$p3" 2>/dev/null
fi
kill "$p1" 2>/dev/null
wait
