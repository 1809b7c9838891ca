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

# ctl_no_kfd_in_budget NAME [ARG...]: `gpreempt-ctl suspend --wait-runtime
# 500ms ARG...` on a process that never opens /dev/kfd ends with exit 8,
# "has no KFD process", once the budget is spent, not before.
ctl_no_kfd_in_budget() {
	_n=$1
	shift
	sleep 60 &
	_spid=$!
	_t0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	gpreempt-ctl suspend -p "$_spid" --wait-runtime 500ms "$@" \
		> /tmp/k2.out 2> /tmp/k2.err
	_rc=$?
	_dt=$(($(awk '{ printf "%d", $1 * 1000 }' /proc/uptime) - _t0))
	kill "$_spid"
	wait "$_spid" 2>/dev/null
	if [ $_rc -eq 8 ] && [ $_dt -ge 450 ] && [ $_dt -lt 10000 ] &&
	   grep -q "has no KFD process" /tmp/k2.err; then
		gp_ok "$_n (${_dt} ms)"
	else
		gp_fail "$_n" "rc=$_rc after ${_dt} ms $(cat /tmp/k2.err)"
	fi
}
