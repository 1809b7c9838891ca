# SPDX-License-Identifier: GPL-2.0
# A ptrace'd target suspended and resumed with raw DBG_TRAP ioctls by the
# exerciser (not by gpreempt-ctl) shows up as suspend and resume events
# carrying the target's pid, the number of queues asked and a duration,
# next to the debug-trap ioctls themselves. 6.12 only: 6.1 has no debug
# API (20-trace-attach checks it is reported absent), 7.x no KFD process.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/trace_lib.sh

if [ "$GP_KERNEL" != 6.12 ]; then
	gp_skip "trace sees debug-trap suspend/resume" \
		"the debug-trap protocol runs only on 6.12 in the VM"
	exit 0
fi

run_mode() { # name flags...
	name=$1
	shift
	out=/tmp/d-$name.json
	if ! tr_start "$out" "$@"; then
		gp_fail "trace $name: starts for debug-target" "no ready file"
		return
	fi
	kfd-exerciser debug-target:qids=7+1234,grace=5 > /tmp/dt-$name.json
	tr_stop
	me=$(jq -r 'select(.step == "fork") | .pid' /tmp/dt-$name.json)
	for op in suspend resume; do
		if jq -s -e --argjson t "$me" --arg op $op '
		    [.[] | select(.type == "event" and .op == $op
				  and .queues_asked == 2)]
		    | length == 1 and (.[0] | .target_pid == $t and .pid == $t
		      and .duration_ns > 0 and .ret == 0
		      and .queues_done == 0)' "$out" > /dev/null
		then
			gp_ok "trace $name: $op event with the target's pid, 2 queues"
		else
			gp_fail "trace $name: $op event with the target's pid, 2 queues" \
				"target=$me"
			gp_log "$out"
			gp_log /tmp/dt-$name.json
		fi
	done
	if jq -s -e '[.[] | select(.type == "event" and .op == "suspend")]
	    | length == 1 and .[0].grace_period_kcycles == 5' "$out" \
	    > /dev/null; then
		gp_ok "trace $name: suspend carries the grace period"
	else
		gp_fail "trace $name: suspend carries the grace period" "not 5"
	fi
	n=$(jq -s --argjson t "$me" '[.[] | select(.type == "event"
	     and .op == "dbg_trap" and .target_pid == $t and .ret == 0
	     and (.dbg_op_raw == 6 or .dbg_op_raw == 7))] | length' "$out")
	if [ "$n" = 2 ]; then
		gp_ok "trace $name: SUSPEND and RESUME debug-trap ioctls seen"
	else
		gp_fail "trace $name: SUSPEND and RESUME debug-trap ioctls seen" \
			"got $n"
	fi
	if tr_hist_matches "$out"; then
		gp_ok "trace $name: debug histograms count every event"
	else
		gp_fail "trace $name: debug histograms count every event" \
			"mismatch"
		gp_log "$out"
	fi
}

run_mode fentry
run_mode kprobes -k
