# shellcheck shell=bash
# daemon_bg ARGS...: "$CTL" daemon --ready "$D/ready" ARGS in the
# background (DPID), stderr to "$D/log"; ready when the file appears
# (5 s at most), else its log is shown and it fails.
daemon_bg() {
	"$CTL" daemon --ready "$D/ready" "$@" 2>"$D/log" &
	DPID=$!
	for _ in $(seq 100); do
		[ -s "$D/ready" ] && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$D/log"
	return 1
}
