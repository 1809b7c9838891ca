# shellcheck shell=bash
# daemon_setup [--kfd-ok]: the shared start of a daemon test's setup():
# CTL is the built gpreempt-ctl, the test needs root, and (unless
# --kfd-ok) a host with /dev/kfd is left to the VM tests; DPID is empty.
daemon_setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ "${1:-}" = --kfd-ok ] || [ ! -e /dev/kfd ] ||
		skip "this host has /dev/kfd: the VM tests cover it"
	DPID=
}

# daemon_bg ARGS...: "$CTL" daemon --ready "$D/ready" ARGS in the
# background (DPID), stderr to "$D/log"; ready when the file appears
# (a minute at most: a loaded CI host is slow), else its log is shown
# and it fails.
daemon_bg() {
	"$CTL" daemon --ready "$D/ready" "$@" 2>"$D/log" &
	DPID=$!
	for _ in $(seq 600); do
		[ -s "$D/ready" ] && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$D/log"
	return 1
}
