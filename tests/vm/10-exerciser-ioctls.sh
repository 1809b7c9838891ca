# SPDX-License-Identifier: GPL-2.0
# What the real KFD answers to the plain (non-debugger) ioctls the
# kfd-exerciser drives, and the exerciser's own contract (ready/wait/
# signals, --repeat/--quiet, exit codes). Every assertion is on the JSON
# the exerciser printed for a real ioctl in this kernel.
. /gp/tests/vm/lib.sh

E=kfd-exerciser
out=/tmp/ex10.out

# ex_jq NAME EXPR: EXPR (jq -s, over all lines of $out) must be true.
ex_jq() { gp_jq "$1" "$out" "$2"; }

# Signals and ready/wait need no KFD: checked on every kernel.
rm -f /tmp/ex10.ready
$E ready:/tmp/ex10.ready wait:60000 > "$out" 2>&1 &
pid=$!
if gp_wait_file /tmp/ex10.ready 30; then
	kill -USR1 $pid
	kill -USR2 $pid
	kill -TERM $pid
	wait $pid
	rc=$?
	gp_check "exerciser: ready file holds our pid" \
		test "$(cat /tmp/ex10.ready)" = "$pid"
	gp_check "exerciser: wait ends with exit 0 on SIGTERM" test $rc -eq 0
	ex_jq "exerciser: prints one signal line per USR1/USR2/TERM" \
		'[.[] | select(.step == "signal") | .sig] | sort == [10, 12, 15]'
	ex_jq "exerciser: wait reports reason signal" \
		'any(.[]; .step == "wait" and .reason == "signal")'
else
	kill $pid 2>/dev/null
	gp_fail "exerciser: ready file appears" "no /tmp/ex10.ready in 30 s"
fi

$E nosuchstep > "$out" 2>&1
gp_check "exerciser: bad usage exits 2" test $? -eq 2

if [ "$GP_KERNEL" = 7.x ]; then
	$E open create:gpu=0xdeadbeef > "$out" 2>/dev/null
	rc=$?
	gp_check "exerciser: open failure exits 1 (7.x)" test $rc -eq 1
	ex_jq "exerciser: stops at the EINVAL open, runs no later step (7.x)" \
		'.[0].step == "open" and .[0].ret == -1 and .[0].errno == 22 and
		 (map(select(.step == "create")) | length == 0)'
	exit 0
fi

$E create:gpu=0xdeadbeef,type=aql,prio=15,pct=50,ring=8192 \
	destroy:qid=3 > "$out" 2>&1
gp_check "exerciser: failed ioctls still exit 0" test $? -eq 0
ex_jq "CREATE_QUEUE on a bogus gpu_id fails EINVAL" \
	'any(.[]; .step == "create" and .ret == -1 and .errno == 22 and
	     .gpu_id == "0xdeadbeef" and .type == 2 and .prio == 15 and
	     .pct == 50 and .ring_size == 8192)'
ex_jq "DESTROY_QUEUE of an unknown queue id fails EINVAL" \
	'any(.[]; .step == "destroy" and .qid == 3 and .errno == 22)'

$E dbg:op=suspend,qids=7 runtime-enable runtime-enable runtime-disable \
	> "$out" 2>&1
if [ "$GP_KERNEL" = 6.1 ]; then
	# KFD 1.11: ioctl nrs 0x25/0x26 are past the dispatcher's table.
	ex_jq "DBG_TRAP and RUNTIME_ENABLE absent: ENOTTY (KFD 1.11)" \
		'[.[] | select(.step == "dbg" or (.step | startswith("runtime-")))
		 | .errno] == [25, 25, 25, 25]'
else
	ex_jq "DBG_TRAP SUSPEND on self without ENABLE fails EINVAL" \
		'any(.[]; .step == "dbg" and .op == "suspend" and .errno == 22)'
	ex_jq "RUNTIME_ENABLE 0, again EBUSY, disable 0" \
		'[.[] | select(.step | startswith("runtime-")) | .errno] ==
		 [0, 16, 0]'
fi

$E -q -n 200 version > "$out" 2>&1
ex_jq "exerciser: --quiet --repeat prints only the summary" \
	'length == 1 and .[0].step == "summary" and .[0].iterations == 200 and
	 .[0].ioctls == 200 and .[0].errors == 0'
