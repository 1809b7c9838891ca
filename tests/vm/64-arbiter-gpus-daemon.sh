# SPDX-License-Identifier: GPL-2.0
# Per-GPU arbitration in the daemon (issue 20) on the real KFD (6.12):
#  1. a `notify busy --gpu` on one GPU makes the daemon's arbiter issue,
#     for the offline process, ONE suspend ioctl naming exactly its queues
#     on that GPU; gpreempt-trace sees that ioctl (queues_asked) and its
#     resume;
#  2. with the default --gang cgroup, two real ROCr processes (rocr-probe,
#     Debian trixie's runtime) in one cgroup are one job: a busy on the GPU
#     of one of them suspends both, idle resumes both;
#  3. per-GPU machines over three toggles: busy/idle on one GPU suspends
#     and resumes its offline process each time, and the offline process
#     on the other GPU gets no ioctl (the arbiter line counts 3, derived
#     from the per-GPU policy);
#  4. per-GPU hysteresis and budget: busy toggles on one GPU beyond the
#     budget window (--min-offline-share 50 --window 4s): a short idle
#     inside --resume-after issues no ioctl, the offline process there is
#     let run for its min-share (a "budget" resume, then a "window"
#     suspend), and the offline process on the other GPU gets no ioctl.
# The VM has no GPU node, so queue placement comes from a STAND-IN sysfs
# tree (--kfd-proc /tmp/kfd-gd: <pid>/queues/<qid>/{gpuid,type,size}, the
# kernel's format); KFD answers those ids invalid (no such queue here),
# and the ioctls themselves, their targets and their queue counts are
# the kernel's.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh
. /gp/tests/vm/rocr_lib.sh

ctl_only_612 "arbiter per GPU" || exit 0

SOCK=/tmp/gd.sock
LOG=/tmp/gd.log
ST=/tmp/kfd-gd

standin_queue() { # pid qid gpu_id
	_d=$ST/$1/queues/$2
	mkdir -p "$_d"
	printf '%u\n' "$3" > "$_d/gpuid"
	printf '0\n' > "$_d/type"
	printf '1048576\n' > "$_d/size"
}

wait_log() { gp_wait_log $LOG "$@"; } # REGEX SECS

# A scenario's failure: why, then the daemon's log.
fail_log() { # name why
	gp_fail "$1" "$2"
	gp_log $LOG
}

# A scenario's end: the daemon stopped, its offline processes killed.
s_end() { # pid...
	d_stop
	kill "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

d_start() { # flags
	rm -f /tmp/gd.ready
	: > $LOG
	gpreempt-ctl daemon --socket $SOCK --ready /tmp/gd.ready \
		--online uid=0,cmdline=online-gpu-standin --kfd-proc $ST \
		--resume-after 200ms "$@" 2>> $LOG &
	DPID=$!
	gp_wait_file /tmp/gd.ready 20
}

d_stop() {
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
}

notify() { # busy|idle GPU_IDS
	gpreempt-ctl notify "$1" --pid "$OPID" --gpu "$2" --socket $SOCK \
		2>> $LOG
}

# events: the trace's suspend/resume ioctls on pid $2, as op:queues_asked
calls() { # trace pid
	jq -r -s --argjson t "$2" '[.[] | select(.type == "event" and
		(.op == "suspend" or .op == "resume") and .target_pid == $t)
		| "\(.op):\(.queues_asked)"] | join(" ")' "$1"
}

sh -c 'while :; do sleep 1; done' online-gpu-standin &
OPID=$!
rm -rf $ST

# --- 1. one ioctl naming exactly the subset ---
n="arbiter --scope gpu: busy on GPU 10002 suspends exactly the offline queues there, in one ioctl"
if ctl_target gd1 open runtime-enable ready:/tmp/gd1.ready wait:300000; then
	T1=$TPID
	# queues 0,1,4 on GPU 10001; 2,3 on GPU 10002
	standin_queue "$T1" 0 10001
	standin_queue "$T1" 1 10001
	standin_queue "$T1" 2 10002
	standin_queue "$T1" 3 10002
	standin_queue "$T1" 4 10001
	if d_start --offline uid=0,cmdline=ready:/tmp/gd1 --gang none &&
	   wait_log "offline pid $T1 .* attached" 20 &&
	   tr_start /tmp/gd1-trace.json; then
		notify busy 10002
		brc=$?
		gpreempt-ctl policy --socket $SOCK -j > /tmp/gd1-pol.json
		notify idle 10002
		wait_log "resume pid $T1 (idle)" 10
		tr_stop
		gp_log /tmp/gd1-pol.json
		c=$(calls /tmp/gd1-trace.json "$T1")
		if [ $brc -eq 0 ] && [ "$c" = "suspend:2 resume:2" ] &&
		   grep -q "suspend pid $T1 (busy): 2 queues named" $LOG &&
		   ctl_has /tmp/gd1-pol.json ".type == \"gproc\" and .pid == $T1 and .gpus == \"10001,10002\" and .queues == 5 and .suspended_queues == 2" &&
		   ctl_has /tmp/gd1-pol.json '.type == "gpu" and .gpu_id == 10002 and .state == "busy"' &&
		   ctl_has /tmp/gd1-pol.json '.type == "gpu" and .gpu_id == 10001 and .state == "idle"'; then
			gp_ok "$n"
		else
			fail_log "$n" "busy rc=$brc; ioctls on $T1: '$c'"
		fi

		n="arbiter --scope gpu: busy on a GPU with no offline queue issues no ioctl"
		tr_start /tmp/gd2-trace.json
		notify busy 10077
		notify idle 10077
		sleep 0.5
		tr_stop
		c=$(calls /tmp/gd2-trace.json "$T1")
		if [ -z "$c" ]; then
			gp_ok "$n"
		else
			gp_fail "$n" "ioctls on $T1: '$c'"
		fi
	else
		fail_log "$n" "daemon, attach or tracer not ready"
	fi
	s_end "$T1"
else
	gp_fail "$n" "exerciser target not ready"
fi

# --- 2. a gang of real ROCr processes ---
n="arbiter --gang cgroup: two ROCr processes of one cgroup are suspended and resumed together"
if rocr_present "$n"; then
	# The kernel shows a process's cgroup v2 path ("0::" in
	# /proc/PID/cgroup) only once a cgroup2 hierarchy is mounted
	# (proc_cgroup_show, cgrp_dfl_visible): systemd always mounts one;
	# the guest's minimal init does not.
	grep -q ' cgroup2 ' /proc/mounts ||
		{ mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup; }
	if rocr_target gr1 && R1=$TPID && rocr_target gr2 && R2=$TPID; then
		standin_queue "$R1" 0 10001
		standin_queue "$R2" 0 10002
		c1=$(grep '^0::' /proc/$R1/cgroup)
		if [ -z "$c1" ] || [ "$c1" != "$(grep '^0::' /proc/$R2/cgroup)" ]; then
			gp_fail "$n" "the two ROCr processes are not in one cgroup v2 group: $(cat /proc/$R1/cgroup /proc/$R2/cgroup)"
		elif d_start --offline uid=0,cmdline=/tmp/gr &&
		     wait_log "offline pid $R1 .* attached" 30 &&
		     wait_log "offline pid $R2 .* attached" 30 &&
		     tr_start /tmp/gd3-trace.json; then
			notify busy 10001
			brc=$?
			gpreempt-ctl policy --socket $SOCK -j > /tmp/gd3-pol.json
			notify idle 10001
			wait_log "resume pid $R2 (idle)" 10
			tr_stop
			gp_log /tmp/gd3-pol.json
			c1=$(calls /tmp/gd3-trace.json "$R1")
			c2=$(calls /tmp/gd3-trace.json "$R2")
			if [ $brc -eq 0 ] &&
			   echo "$c1" | grep -q '^suspend:[0-9]* resume:[0-9]*$' &&
			   echo "$c2" | grep -q '^suspend:[0-9]* resume:[0-9]*$' &&
			   ctl_has /tmp/gd3-pol.json ".type == \"gang\" and .members == 2" &&
			   ctl_has /tmp/gd3-pol.json ".type == \"gproc\" and .pid == $R2 and .whole == 1" &&
			   grep -q "suspend pid $R1 (busy): .*(all)" $LOG &&
			   grep -q "suspend pid $R2 (busy): .*(all)" $LOG; then
				gp_ok "$n"
			else
				fail_log "$n" "busy rc=$brc; $R1: '$c1'; $R2: '$c2'"
			fi
		else
			fail_log "$n" "daemon, attach or tracer not ready"
		fi
	else
		gp_fail "$n" "ROCr targets not ready: $(cat /tmp/gr1.out /tmp/gr2.out 2>/dev/null)"
	fi
	s_end "$R1" "$R2"
fi
# --- 3. per-GPU machines over several toggles ---
# Two offline processes, one per GPU (stand-in placement); three busy ->
# idle -> resume cycles on GPU 10001 only. 10001's machine suspends and
# resumes its process once per cycle (after --resume-after); 10002's
# process is never touched, and 10002's machine has no busy period.
n="arbiter --scope gpu: three toggles on GPU 10001 leave the offline process on GPU 10002 untouched (per-GPU machines)"
count_log() { # REGEX N SECS: wait for N matching lines
	_i=0
	while [ "$(grep -c "$1" $LOG)" -lt "$2" ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($3 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}

# Two offline stand-ins, H1 with queues 0,1 on GPU 10001 and H2 with
# queue 0 on GPU 10002, and the daemon over them (flags: its own).
two_gpus() { # prefix daemon-flags...
	_p=$1
	shift
	H1="" H2=""
	ctl_target ${_p}1 open runtime-enable ready:/tmp/${_p}1.ready wait:300000 &&
	H1=$TPID &&
	ctl_target ${_p}2 open runtime-enable ready:/tmp/${_p}2.ready wait:300000 &&
	H2=$TPID || return 1
	standin_queue "$H1" 0 10001
	standin_queue "$H1" 1 10001
	standin_queue "$H2" 0 10002
	d_start --offline uid=0,cmdline=ready:/tmp/$_p --gang none "$@" &&
	wait_log "offline pid $H1 .* attached" 20 &&
	wait_log "offline pid $H2 .* attached" 20 &&
	tr_start /tmp/$_p-trace.json
}
if two_gpus gh; then
	ok=1
	for k in 1 2 3; do
		notify busy 10001 || ok=0
		count_log "suspend pid $H1 (busy)" $k 10 || ok=0
		notify idle 10001 || ok=0
		count_log "resume pid $H1 (idle)" $k 10 || ok=0
	done
	gpreempt-ctl policy --socket $SOCK -j > /tmp/gh-pol.json
	tr_stop
	gp_log /tmp/gh-pol.json
	c1=$(calls /tmp/gh-trace.json "$H1")
	c2=$(calls /tmp/gh-trace.json "$H2")
	if [ $ok = 1 ] &&
	   [ "$c1" = "suspend:2 resume:2 suspend:2 resume:2 suspend:2 resume:2" ] &&
	   [ -z "$c2" ] &&
	   ctl_has /tmp/gh-pol.json '.type == "gpu" and .gpu_id == 10001 and .busy_periods == 3 and .suspends == 3 and .resumes == 3' &&
	   ctl_has /tmp/gh-pol.json '.type == "gpu" and .gpu_id == 10002 and .busy_periods == 0 and .suspends == 0' &&
	   ctl_has /tmp/gh-pol.json '.type == "arbiter" and .suspends == 3 and .resumes == 3'; then
		gp_ok "$n"
	else
		fail_log "$n" "ok=$ok; $H1: '$c1'; $H2: '$c2'"
	fi
else
	fail_log "$n" "targets, daemon, attach or tracer not ready"
fi
s_end $H1 $H2

# --- 4. per-GPU hysteresis and budget ---
# --min-offline-share 50 --window 4s: offline on a GPU may be held 2 s of
# each 4 s window; --resume-after 3s: the idle/busy toggle below sits
# inside the hysteresis gap. Busy on 10001, idle, busy again at once
# (two busy periods, one suspend, no resume: hysteresis), then held busy
# until the budget resumes H1 ("budget") and the next window suspends it
# again ("window"); then idle. H2 (GPU 10002) is never touched.
# --resume-after grows with GP_WAIT_SCALE: the idle and the second busy
# are two gpreempt-ctl runs in a TCG guest, and on a loaded host more
# than 3 s between them would resume H1 "(idle)" and break the pattern.
# The window stays 4 s: a busy that comes after the budget's resume finds
# the budget spent and the next window suspends, the same three lines
# (scaling the window too let --max-hold, 10 s, end the hold first).
n="arbiter --scope gpu: hysteresis and budget per GPU: toggles on 10001 beyond the budget window let its offline process run its min-share; 10002's is never suspended"
if two_gpus gb --min-offline-share 50 --window 4s \
	--resume-after $((3 * GP_WAIT_SCALE))s; then
	ok=1
	notify busy 10001 || ok=0
	count_log "suspend pid $H1 (busy)" 1 10 || ok=0
	notify idle 10001 || ok=0
	notify busy 10001 || ok=0
	count_log "resume pid $H1 (budget)" 1 10 || ok=0
	count_log "suspend pid $H1 (window)" 1 10 || ok=0
	notify idle 10001 || ok=0
	# resumed: by the idle's linger, or by a second budget if this
	# loaded guest was slow to send the idle
	count_log "resume pid $H1 (\(idle\|budget\))" 2 10 || ok=0
	gpreempt-ctl policy --socket $SOCK -j > /tmp/gb-pol.json
	tr_stop
	gp_log /tmp/gb-pol.json
	c1=$(calls /tmp/gb-trace.json "$H1")
	c2=$(calls /tmp/gb-trace.json "$H2")
	# the toggle inside --resume-after: one busy suspend, no idle resume
	# before the budget's
	first=$(grep -o "\(suspend\|resume\) pid $H1 ([a-z-]*)" $LOG | head -3 | tr '\n' ' ')
	if [ $ok = 1 ] &&
	   [ "$first" = "suspend pid $H1 (busy) resume pid $H1 (budget) suspend pid $H1 (window) " ] &&
	   [ "$(grep -c "suspend pid $H1 (busy)" $LOG)" = 1 ] &&
	   echo "$c1" | grep -q '^suspend:2 resume:2 suspend:2 .*resume:2$' &&
	   [ -z "$c2" ] &&
	   ctl_has /tmp/gb-pol.json '.type == "gpu" and .gpu_id == 10001 and .busy_periods == 2 and .budget_resumes >= 1' &&
	   ctl_has /tmp/gb-pol.json '.type == "gpu" and .gpu_id == 10002 and .busy_periods == 0 and .suspends == 0 and .budget_resumes == 0'; then
		gp_ok "$n"
	else
		fail_log "$n" "ok=$ok; first: '$first'; $H1: '$c1'; $H2: '$c2'"
	fi
else
	fail_log "$n" "targets, daemon, attach or tracer not ready"
fi
s_end $H1 $H2

kill "$OPID" 2>/dev/null
wait "$OPID" 2>/dev/null
exit 0
