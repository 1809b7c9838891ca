# SPDX-License-Identifier: GPL-2.0
# Helpers for the gpreempt-trace guest tests (2*.sh); sourced after lib.sh.
#   tr_start OUT [FLAGS...]   start gpreempt-trace -j in the background,
#                             wait for its ready file; 1 if it never came
#   tr_stop                   SIGINT it, wait; $tr_rc is its exit code
#   tr_hist_matches OUT       every timed event kind has a histogram whose
#                             count equals the number of such events

tr_start() {
	tr_out=$1
	shift
	rm -f /tmp/tr.ready
	gpreempt-trace -j --ready-file /tmp/tr.ready "$@" > "$tr_out" \
		2> "$tr_out.err" &
	tr_pid=$!
	gp_wait_file /tmp/tr.ready 120 && return 0
	gp_log "$tr_out.err"
	kill "$tr_pid" 2>/dev/null
	wait "$tr_pid"
	return 1
}

tr_stop() {
	kill -INT "$tr_pid"
	wait "$tr_pid"
	tr_rc=$?
}

# Instant events (q_add, q_del, exit) have no histogram; dbg_trap has one
# per debug-trap op ("sub").
tr_hist_matches() {
	jq -s -e '
	  ([.[] | select(.type == "event" and .duration_ns > 0)]
	   | group_by([.op, (.dbg_op_raw // 0)])
	   | map({key: "\(.[0].op)/\(.[0].dbg_op_raw // 0)", value: length})
	   | from_entries) as $ev
	  | ([.[] | select(.type == "hist")]
	   | map({key: "\(.op)/\(.sub)", value: .count}) | from_entries) as $h
	  | ($ev | length) > 0 and $ev == $h' "$1" > /dev/null
}
