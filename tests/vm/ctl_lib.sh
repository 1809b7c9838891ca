# SPDX-License-Identifier: GPL-2.0
# Helpers for the gpreempt-ctl guest tests (3*.sh), sourced after lib.sh.
# (Not a test: the harness runs only [0-9]*.sh.)

# ctl_wait_json FILE JQ-CONDITION [SECS]: until a line of FILE matches.
ctl_wait_json() {
	_i=0
	while ! jq -c "select($2)" "$1" 2>/dev/null | grep -q .; do
		_i=$((_i + 1))
		[ $_i -gt $((${3:-10} * 10 * GP_WAIT_SCALE)) ] && return 1
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
		[ $_i -gt $(($2 * 10 * GP_WAIT_SCALE)) ] && return 1
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
	# not before the budget; the upper bound only catches a hang
	if [ $_rc -eq 8 ] && [ $_dt -ge 450 ] && [ $_dt -lt $((10000 * GP_WAIT_SCALE)) ] &&
	   grep -q "has no KFD process" /tmp/k2.err; then
		gp_ok "$_n (${_dt} ms)"
	else
		gp_fail "$_n" "rc=$_rc after ${_dt} ms $(cat /tmp/k2.err)"
	fi
}

# While a holder keeps $TPID (which logs the signals it gets to OUT as
# {"step":"signal","sig":N}): SIGSTOP stops it, SIGCONT continues it and
# it then sees SIGUSR2. A ptrace holder must pass both on, not swallow
# them. Result NAME.
ctl_stop_cont_ok() { # name out
	local i=0 st=
	kill -STOP "$TPID"
	while [ $i -lt $((30 * GP_WAIT_SCALE)) ]; do
		st=$(ctl_field "$TPID" State)
		case $st in T|t) break ;; esac
		i=$((i + 1))
		sleep 0.1
	done
	kill -CONT "$TPID"
	kill -USR2 "$TPID"
	case $st in
	T|t)
		if ctl_wait_json "$2" '.step == "signal" and .sig == 12' 5; then
			gp_ok "$1"
		else
			gp_fail "$1" "no SIGUSR2 line after SIGCONT"
		fi ;;
	*) gp_fail "$1" "state after SIGSTOP: '$st'" ;;
	esac
}

# One request to the running daemon: reply in /tmp/d.out, exit code in rc.
d_send() {
	gpreempt-ctl daemon --send "$1" > /tmp/d.out 2> /tmp/d.err
	rc=$?
}

# attach $TPID through the daemon ($DPID): ok when the reply's session
# line matches the regex and the daemon is now the target's tracer.
d_attach_ok() { # name session-regex daemon-log
	d_send "attach pid=$TPID"
	if [ $rc -eq 0 ] && grep -q "$2" /tmp/d.out &&
	   [ "$(ctl_field "$TPID" TracerPid)" = "$DPID" ]; then
		gp_ok "$1"
	else
		gp_fail "$1" "rc=$rc tracer=$(ctl_field "$TPID" TracerPid) $(cat /tmp/d.out)"
		gp_log "$3"
	fi
}

# ctl_held_start NAME LOG DAEMON-ARG...: the scene of the arbiter-holds
# tests (65, 69): root's online stand-in (OPID, a shell named
# online-standin), nobody's offline job (T, a kfd-exerciser: a real KFD
# process with its runtime enabled, output in /tmp/NAME-off.out) and a
# daemon (DPID, stderr appended to LOG) with DAEMON-ARG... and the arbiter
# options both tests use. True once both are ready and the daemon has
# attached the job; ctl_held_stop ends all three.
ctl_held_start() {
	_n=$1
	_log=$2
	shift 2
	gp_nobody
	chmod 0666 /dev/kfd
	sh -c 'while :; do sleep 1; done' online-standin &
	OPID=$!
	rm -f "/tmp/$_n-off.ready" "/tmp/$_n.ready"
	su -s /bin/sh nobody -c "exec kfd-exerciser open runtime-enable ready:/tmp/$_n-off.ready wait:300000" \
		> "/tmp/$_n-off.out" 2>&1 &
	T=$!
	gpreempt-ctl daemon "$@" --ready "/tmp/$_n.ready" \
		--online uid=0,cmdline=online-standin --offline uid=65534 \
		--resume-after 300ms --scope node 2>> "$_log" &
	DPID=$!
	gp_wait_file "/tmp/$_n-off.ready" 20 &&
		gp_wait_file "/tmp/$_n.ready" 20 &&
		gp_wait_log "$_log" "offline pid $T .* attached" 20
}

ctl_held_stop() {
	kill "$T" "$OPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
}
