# SPDX-License-Identifier: GPL-2.0
# The KFD debug-trap protocol, driven by kfd-exerciser against the real
# kernel: the facts gpreempt-ctl is built on. 6.12 runs it end to end
# (scenario A: attach to a running target; B: ROCdbgapi's order, where the
# target's RUNTIME_ENABLE blocks until the debugger answers). 6.1 has no
# debug API; 7.x cannot open /dev/kfd without a GPU node.
. /gp/tests/vm/lib.sh

E=kfd-exerciser
out=/tmp/ex11.out

# ex_jq NAME EXPR: EXPR (jq -s, over all lines of $out) must be true.
ex_jq() { gp_jq "$1" "$out" "$2"; }

if [ "$GP_KERNEL" = 7.x ]; then
	gp_skip "debug-trap protocol" "7.x refuses open(/dev/kfd) without a GPU node"
	exit 0
fi

# Every dbg line of the scenario except the EPERM probe (it comes first).
DBG='[.[] | select(.step == "dbg")]'

$E debug-target:eperm=1,qids=7+1234 > "$out" 2>&1
if [ "$GP_KERNEL" = 6.1 ]; then
	# Unknown ioctl nr: the 6.1 dispatcher answers ENOTTY.
	ex_jq "debug-target on KFD 1.11: every debug ioctl fails ENOTTY" \
		"any(.[]; .step == \"target-runtime-enable\" and .errno == 25) and
		 any(.[]; .step == \"seize\" and .ret == 0) and
		 ($DBG | length == 7 and all(.errno == 25))"
	exit 0
fi

ex_jq "A: DBG_TRAP ENABLE before PTRACE_SEIZE fails EPERM" \
	"$DBG | .[0].op == \"enable\" and .[0].errno == 1"
ex_jq "A: PTRACE_SEIZE then ENABLE: runtime_state 1, ttmp_setup 1, r_debug" \
	"(.[] | select(.step == \"target-runtime-enable\") | .r_debug) as \$r |
	 any(.[]; .step == \"seize\" and .ret == 0) and
	 ($DBG | .[1] | .op == \"enable\" and .ret == 0 and .rinfo_size == 16 and
	  .runtime_state == 1 and .ttmp_setup == 1 and .r_debug == \$r)"
ex_jq "A: SET_EXCEPTIONS 0, snapshot 0 queues of 64 B" \
	"$DBG | any(.op == \"set-exceptions\" and .ret == 0) and
	 any(.op == \"snapshot\" and .ret == 0 and .num_queues == 0 and
	     .entry_size == 64)"
ex_jq "A: SUSPEND([7,1234]) returns 0, both ids marked INVALID" \
	"$DBG | any(.op == \"suspend\" and .ret == 0 and
	     .qids == [\"0x80000007\", \"0x800004d2\"])"
ex_jq "A: RESUME returns 0 with the same marking, DISABLE 0" \
	"$DBG | any(.op == \"resume\" and .ret == 0 and
	     .qids == [\"0x80000007\", \"0x800004d2\"]) and
	 any(.op == \"disable\" and .ret == 0)"
ex_jq "A: no unexpected failure, target killed and reaped" \
	'any(.[]; .step == "debug-target" and .errors == 0) and
	 any(.[]; .step == "target-exit" and .signal == 9)'

$E debug-target:order=before,qids=7+1234 > "$out" 2>&1
ex_jq "B: ENABLE before the target's runtime: runtime_state 0" \
	"$DBG | .[0].op == \"enable\" and .[0].ret == 0 and
	 .[0].runtime_state == 0"
ex_jq "B: KFD writes '.' to the dbg_fd pipe when the target enables" \
	'any(.[]; .step == "poll-event" and .ret == 1 and .data == ".")'
ex_jq "B: QUERY_DEBUG_EVENT reports EC_PROCESS_RUNTIME" \
	"$DBG | any(.op == \"query\" and .ret == 0 and
	     .exception_mask == \"0x800000000000\")"
ex_jq "B: SEND_RUNTIME_EVENT unblocks the target's RUNTIME_ENABLE" \
	"($DBG | any(.op == \"send-runtime\" and .ret == 0)) and
	 any(.[]; .step == \"target-runtime-enable\" and .ret == 0)"
ex_jq "B: then SUSPEND/RESUME/DISABLE as in A, no failure" \
	"($DBG | any(.op == \"suspend\" and .ret == 0 and
	      .qids == [\"0x80000007\", \"0x800004d2\"])) and
	 any(.[]; .step == \"debug-target\" and .errors == 0)"

# Why dbg_fd is a pipe: KFD writes one byte, eventfd_write() refuses
# anything shorter than eight, so the debugger is never woken; the event
# itself is still pending and the handshake completes without the wakeup.
$E debug-target:order=before,dbgfd=eventfd,timeout=500 > "$out" 2>&1
ex_jq "B with an eventfd dbg_fd: no wakeup, event still queryable" \
	"any(.[]; .step == \"poll-event\" and .err == \"ETIMEDOUT\") and
	 ($DBG | any(.op == \"query\" and .exception_mask == \"0x800000000000\")) and
	 any(.[]; .step == \"target-runtime-enable\" and .ret == 0)"

# Two separate processes, as gpreempt-ctl works: a target that only opened
# KFD (runtime never enabled), and one that enabled it.
rm -f /tmp/ex11.t1 /tmp/ex11.t2
$E open ready:/tmp/ex11.t1 wait:60000 > /tmp/ex11.t1.out 2>&1 &
t1=$!
$E runtime-enable ready:/tmp/ex11.t2 wait:60000 > /tmp/ex11.t2.out 2>&1 &
t2=$!
if gp_wait_file /tmp/ex11.t1 30 && gp_wait_file /tmp/ex11.t2 30; then
	$E seize:$t1 dbg:pid=$t1,op=enable dbg:pid=$t1,op=suspend,qids=1 \
		dbg:pid=$t1,op=disable > "$out" 2>&1
	ex_jq "SUSPEND of a target whose runtime is not enabled fails EPERM" \
		"$DBG | .[0].ret == 0 and .[0].runtime_state == 0 and
		 .[1].op == \"suspend\" and .[1].errno == 1"
	$E dbg:pid=$t2,op=enable seize:pid=$t2 dbg:pid=$t2,op=enable \
		dbg:pid=$t2,op=suspend,qids=1+2 dbg:pid=$t2,op=resume,qids=1+2 \
		dbg:pid=$t2,op=disable > "$out" 2>&1
	ex_jq "other process: EPERM unptraced, then ENABLE/SUSPEND/RESUME/DISABLE" \
		"$DBG | map(.errno) == [1, 0, 0, 0, 0] and
		 .[2].qids == [\"0x80000001\", \"0x80000002\"]"
	# The debugger exited (ptrace and KFD session gone): the target
	# still runs and still gets its signals.
	kill -USR1 $t2
	kill -TERM $t1 $t2
	wait $t2
	rc=$?
	wait $t1
	out=/tmp/ex11.t2.out
	ex_jq "target outlives its debugger, gets USR1 and TERM" \
		'([.[] | select(.step == "signal") | .sig] | sort == [10, 15]) and
		 any(.[]; .step == "wait" and .reason == "signal")'
	gp_check "target exits 0 after SIGTERM" test $rc -eq 0
else
	kill $t1 $t2 2>/dev/null
	gp_fail "exerciser targets ready" "no ready file in 30 s"
fi
