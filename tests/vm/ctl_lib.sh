# SPDX-License-Identifier: GPL-2.0
# Helpers for the gpreempt-ctl guest tests (3*.sh), sourced after lib.sh.
# (Not a test: the harness runs only [0-9]*.sh.)

# ctl_wait_json FILE JQ-CONDITION [SECS]: until a line of FILE matches.
ctl_wait_json() {
	_i=0
	while ! jq -c "select($2)" "$1" 2>/dev/null | grep -q .; do
		_i=$((_i + 1))
		[ $_i -gt $((${3:-10} * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

# ctl_has FILE JQ-CONDITION: does a line of FILE match now?
ctl_has() {
	jq -c "select($2)" "$1" 2>/dev/null | grep -q .
}

# ctl_target NAME STEP...: start kfd-exerciser STEP... in the background
# with its output in /tmp/NAME.out; the steps must include
# ready:/tmp/NAME.ready. Sets TPID; fails if it never gets ready.
ctl_target() {
	_n=$1
	shift
	rm -f "/tmp/$_n.ready"
	kfd-exerciser "$@" > "/tmp/$_n.out" 2>&1 &
	TPID=$!
	gp_wait_file "/tmp/$_n.ready" 10
}

# ctl_field PID KEY: a field of /proc/PID/status ("TracerPid", "State").
ctl_field() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null
}

# ctl_gone PID SECS: wait for PID to disappear (reaped or not ours).
ctl_gone() {
	_i=0
	while [ -d "/proc/$1" ] && [ "$(ctl_field "$1" State)" != Z ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

ctl_only_612() { # test-name: skip unless the whole debug protocol runs
	[ "$GP_KERNEL" = 6.12 ] && return 0
	gp_skip "$1" "needs KFD >= 1.13 with a process (6.12)"
	return 1
}
