# SPDX-License-Identifier: GPL-2.0
# gp-disk: hip
# The launch detector's whole chain on 6.12 with no app change: Debian
# trixie's libamdhip64 5.7.1 (the HIP disk, scripts/hipdisk.sh) under an
# unmodified program (hip-launch: dlopen of the library by its soname,
# hipGetDeviceCount, then hipLaunchKernel in rounds; no GPU, so every call
# returns 100 while the uprobes still fire). The daemon runs
# `--detect launch`, finds the program online through KFD, puts its
# uprobes in it, and suspends a real ROCr offline process (rocr-probe)
# on the busy edge; gpreempt-trace records KFD's own suspend_queues and
# resume_queues. The busy ends two ways: a hipDeviceSynchronize return
# (sync uretprobe) and --launch-grace after the last launch. The
# WAIT_EVENTS return is 66-detect-wait.sh's (no GPU here to wait on).
# Nothing is a stand-in but the missing GPU.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh
. /gp/tests/vm/arb_lib.sh
. /gp/tests/vm/rocr_lib.sh

ctl_only_612 "launch detector: unmodified HIP program suspends ROCr offline" || exit 0
rocr_present "launch detector: real ROCr offline process" || exit 0
if [ ! -e /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 ] || [ ! -x /gp/bin/hip-launch ]; then
	gp_fail "launch detector: trixie's libamdhip64 in the guest" \
		"no HIP disk: scripts/hipdisk.sh path failed on the host (the HIP root of scripts/rocr.sh fetch missing?)"
	exit 0
fi

SOCK=/tmp/dl.sock
TR=/tmp/dl-trace.json
LOG=/tmp/dl.log
S=""; G=""; T=""; DPID=""
wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

cleanup() {
	kill $S $G $T $DPID 2>/dev/null
	wait $S $G $T $DPID 2>/dev/null
	tr_stop
}

# hip NAME ARGS: the unmodified program, paused before each round until
# /tmp/NAME.go appears; its pid in $HPID once HIP is loaded
hip() {
	_n=$1
	shift
	rm -f "/tmp/$_n.ready" "/tmp/$_n.go"
	hip-launch -r "/tmp/$_n.ready" -g "/tmp/$_n.go" "$@" > "/tmp/$_n.out" 2>&1 &
	HPID=$!
	gp_wait_file "/tmp/$_n.ready" 60
}

# go NAME N: let NAME run its next round; true once it printed N rounds
go() {
	touch "/tmp/$1.go"
	_i=0
	while [ "$(grep -c '"step":"round"' "/tmp/$1.out")" -lt "$2" ]; do
		_i=$((_i + 1))
		[ $_i -gt $((60 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}

if ! tr_start "$TR"; then
	gp_fail "launch detector: gpreempt-trace starts" "no ready file"
	exit 0
fi
n="launch detector: an unmodified HIP program loads trixie's libamdhip64 in the guest (no device: 100)"
# 2 rounds each: the second never gets its go-ahead, so both stay alive
if hip dls -f launch -n 1000 -k 2 -s && S=$HPID && hip dlg -f launch -n 1000 -k 2 && G=$HPID; then
	gp_jq "$n" /tmp/dls.out 'any(.[]; .step == "count" and .status == 100)'
	echo "GPINFO HIP in the guest: $(head -n1 /tmp/dls.out)" > "$GP_RESULTS"
else
	gp_fail "$n" "hip-launch never got ready"
	gp_log /tmp/dls.out
	gp_log /tmp/dlg.out
	cleanup
	exit 0
fi
if ! rocr_target dloff; then
	gp_fail "launch detector: ROCr offline process starts" "$(cat /tmp/dloff.out)"
	cleanup
	exit 0
fi
T=$TPID

rm -f /tmp/dl.ready
gpreempt-ctl daemon --socket $SOCK --ready /tmp/dl.ready \
	--online uid=0,cmdline=hip-launch --offline uid=0,cmdline=rocr-probe \
	--detect launch --launch-grace 1s --resume-after 300ms --scope node \
	2> $LOG &
DPID=$!

n="launch detector: the daemon finds both programs online through KFD and puts its uprobes in their libamdhip64"
if gp_wait_file /tmp/dl.ready 30 &&
   wait_log "found online pid $S" 30 && wait_log "found online pid $G" 30 &&
   wait_log "launches of pid $S: [0-9]* probes in /hip/usr/lib/x86_64-linux-gnu/libamdhip64" 60 &&
   wait_log "launches of pid $G: [0-9]* probes in /hip/usr/lib/x86_64-linux-gnu/libamdhip64" 60 &&
   wait_log "offline pid $T .* attached" 30; then
	gp_ok "$n"
else
	gp_fail "$n" "not found, not probed or not attached (kfd proc: $(ls /sys/class/kfd/kfd/proc 2>&1 | tr '\n' ' '))"
	gp_log $LOG
	cleanup
	exit 0
fi

# cycle NAME PROG PID WHY: PROG's next round of launches suspends the ROCr
# process (the kernel's suspend_queues), the busy ends for WHY, and it is
# resumed: the idle comes after the suspend was carried out and the resume
# --resume-after (300 ms) later (10 ms /proc/uptime steps)
cycle() {
	t0=$(now_ns)
	if go "$2" 1 && ev_wait suspend "$T" "$t0" 1 30 &&
	   wait_log "launches of pid $3: busy (hipLaunchKernel)" 30 &&
	   wait_log "launches of pid $3: idle ($4)" 30 &&
	   ev_wait resume "$T" "$t0" 1 30; then
		s=$(ev_first suspend "$T" "$t0")
		r=$(ev_first resume "$T" "$t0")
		if [ $((r - s)) -ge 290000000 ] &&
		   grep -q "suspend pid $T (busy)" $LOG; then
			gp_ok "$1"
		else
			gp_fail "$1" "resumed $(( (r - s) / 1000000 )) ms after the suspend"
			gp_log $LOG
		fi
	else
		gp_fail "$1" "no suspend/resume pair from the kernel"
		gp_log $LOG
		gp_log "/tmp/$2.out"
	fi
}
cycle "launch detector: hipLaunchKernel in the online program suspends the ROCr process (kernel's suspend_queues), the sync's return resumes it" \
	dls "$S" "sync returned"
sleep 0.5
cycle "launch detector: launches with no sync suspend the ROCr process; --launch-grace ends the busy and it resumes" \
	dlg "$G" "no launch for --launch-grace"

n="launch detector: one busy and one idle edge per program (edges, not launches)"
if [ "$(grep -c "launches of pid $S: busy" $LOG)" -eq 1 ] &&
   [ "$(grep -c "launches of pid $G: busy" $LOG)" -eq 1 ] &&
   [ "$(grep -c "launches of pid $S: idle" $LOG)" -eq 1 ] &&
   [ "$(grep -c "launches of pid $G: idle" $LOG)" -eq 1 ]; then
	gp_ok "$n"
else
	gp_fail "$n" "edge lines differ"
fi
gp_log $LOG
cleanup
exit 0
