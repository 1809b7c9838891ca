# SPDX-License-Identifier: GPL-2.0
# Helpers for the arbiter guest tests (6*.sh),
# sourced after lib.sh. $TR is gpreempt-trace -j's output (trace_lib.sh).
#   now_ns                      CLOCK_BOOTTIME (the tracer's ts_boot_ns)
#   ev_count OP PID SINCE_NS    kernel events OP for target PID since then
#   ev_wait OP PID SINCE_NS N SECS   until at least N such events
#   ev_first OP PID SINCE_NS    the first such event's time, or 0

# via /proc/uptime, 10 ms steps ("12.34"); string-built: busybox awk's %d
# stops at 2^31.
now_ns() {
	read -r _up _ < /proc/uptime
	echo "${_up%.*}${_up#*.}0000000"
}

ev_count() {
	jq -s --arg op "$1" --argjson t "$2" --argjson s "$3" \
	   '[.[] | select(.type == "event" and .op == $op and
	     .target_pid == $t and .ts_boot_ns >= $s)] | length' "$TR" \
	   2>/dev/null || echo 0
}

ev_wait() {
	_i=0
	while [ "$(ev_count "$1" "$2" "$3")" -lt "$4" ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($5 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}

ev_first() {
	jq -s --arg op "$1" --argjson t "$2" --argjson s "$3" \
	   '[.[] | select(.type == "event" and .op == $op and
	     .target_pid == $t and .ts_boot_ns >= $s) | .ts_boot_ns]
	    | first // 0' "$TR"
}
