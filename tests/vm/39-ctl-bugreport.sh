# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl bugreport against the real KFD of the stock amdgpu module:
# the archive holds check, versions (amdgpu's), the KFD topology files,
# list/status/policy of a running daemon, its log (--daemon-log), the
# pinned trace's queue rows and histograms, amdgpu/KFD kernel-log lines and the KFD
# process with its command line; --redact leaves that command line out
# of every file.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

# A KFD process whose command line carries a marker.
MARK=brsecret4242
ctl_target "$MARK" -q open runtime-enable "ready:/tmp/$MARK.ready" wait
gpreempt-ctl daemon --socket /tmp/br.sock --ready /tmp/br.dready \
	2> /tmp/br-daemon.log &
DPID=$!
gp_wait_file /tmp/br.dready 60
tr_start /tmp/br-tr.json
# KFD ioctls the tracer records in its histograms
kfd-exerciser -q create:gpu=0xdeadbeef,type=aql,prio=7,ring=4096 destroy:qid=3 > /dev/null 2>&1

n="bugreport: archive written, exit 0"
gpreempt-ctl bugreport -o /tmp/br.tgz --socket /tmp/br.sock \
	--daemon-log /tmp/br-daemon.log > /tmp/br.out 2>&1
rc=$?
gp_log /tmp/br.out
rm -rf /tmp/br && mkdir -p /tmp/br
if [ $rc -eq 0 ] && tar -xzf /tmp/br.tgz -C /tmp/br; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc"
fi
B=/tmp/br/gpreempt-bugreport

n="bugreport: the expected files"
miss=
for f in MANIFEST check.txt versions.txt snapshot.txt list.txt status.txt \
	 policy.txt daemon-log.txt trace-queues.json trace-histograms.txt \
	 kernel-log.txt \
	 processes.txt topology/system_properties topology/nodes/0/properties; do
	[ -s "$B/$f" ] || miss="$miss $f"
done
if [ -z "$miss" ]; then gp_ok "$n"; else gp_fail "$n" "missing:$miss"; ls -R /tmp/br; fi

# 7.x refuses open(/dev/kfd) without a GPU node (00-kfd): no KFD process
# and no ioctl reaching KFD, so the process's rows, the trace's and the
# histograms have nothing to show there; the rest is checked on every kernel.
kproc=1
[ "$GP_KERNEL" = 7.x ] && kproc=0
n="bugreport: contents are the machine's (check, amdgpu, daemon, trace, kernel log)"
[ $kproc = 1 ] || n="$n, 7.x: no KFD process"
why=
grep -q '^kfd_device ' "$B/check.txt" || why="$why check"
grep -q '^amdgpu initstate: live' "$B/versions.txt" || why="$why amdgpu"
if [ $kproc = 1 ]; then
	grep -q "pid $TPID" "$B/status.txt" "$B/list.txt" 2>/dev/null ||
		grep -q "$TPID" "$B/list.txt" || why="$why list"
	grep -q '"type"' "$B/trace-queues.json" || why="$why trace"
	grep -q 'count: [1-9]' "$B/trace-histograms.txt" || why="$why histograms"
	grep -q "^$TPID kfd-exerciser (kfd) .*$MARK" "$B/processes.txt" ||
		why="$why processes"
fi
grep -q 'listening on /tmp/br.sock' "$B/daemon-log.txt" || why="$why daemon-log"
grep -qi 'kfd\|amdgpu' "$B/kernel-log.txt" || why="$why kernel-log"
if [ -z "$why" ]; then gp_ok "$n"; else
	gp_fail "$n" "wrong:$why"
	for f in status.txt list.txt trace-queues.json trace-histograms.txt processes.txt versions.txt; do gp_log "$B/$f"; done
fi

n="bugreport --redact: the command line is in no file"
gpreempt-ctl bugreport -o /tmp/brr.tgz --redact --socket /tmp/br.sock \
	--daemon-log /tmp/br-daemon.log > /tmp/brr.out 2>&1
rc=$?
rm -rf /tmp/brr && mkdir -p /tmp/brr
if [ $rc -eq 0 ] && tar -xzf /tmp/brr.tgz -C /tmp/brr &&
   ! grep -r -q "$MARK" /tmp/brr &&
   { [ $kproc = 0 ] ||
     grep -q "^$TPID kfd-exerciser (kfd) \[cmdline redacted\]" \
	/tmp/brr/gpreempt-bugreport/processes.txt; }; then
	gp_ok "$n"
else
	gp_fail "$n" "rc=$rc"
	grep -r "$MARK" /tmp/brr
fi

tr_stop
kill "$DPID" "$TPID" 2>/dev/null
wait "$DPID" "$TPID" 2>/dev/null
true
