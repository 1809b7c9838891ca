# SPDX-License-Identifier: GPL-2.0
# Guest half of the arbiter benchmark (busybox sh; bench/arbiter.sh runs
# it with scripts/vm.sh run). For K offline processes (kfd-exerciser with
# its runtime enabled, attached by the daemon ahead of time): N busy/idle
# rounds on one connection (bench/arb-lat), then the daemon's own
# histograms (policy -j). --resume-after 0: every idle resumes at once, so
# every busy suspends all K.
# Then the 8-GPU part (issue 20): K offline processes (gpb.gks, default
# "1 8 64") spread over 8 GPUs, process i on gpu_id 10001 + i % 8 with
# queues 0 and 1 there. The VM has no GPU node: the placement is a
# STAND-IN sysfs tree (--kfd-proc, the kernel's format, as test 64); KFD
# answers those queue ids invalid, and the ioctls, their targets and
# their cost are the kernel's. Each busy names GPU 10001. Node scope
# first (the baseline: every offline process suspended), then gpu scope
# (only those on 10001), each with fresh processes and a fresh daemon.
# Node scope names every queue of a fresh snapshot (none in the VM), gpu
# scope the stand-in ids on 10001: compare ioctls, not queue counts.
# Kernel command line: gpb.n=N (default 300), gpb.ks="1 4 16"; gpb.arbn=N
# overrides gpb.n (bench/run.sh --quick shares one boot with guest-ctl.sh);
# gpb.gks="1 8 64".
# Output: BENCH arb K I BUSY_NS IDLE_NS | BENCH pol K JSON |
#	BENCH garb SCOPE K I BUSY_NS IDLE_NS | BENCH gioctl SCOPE K SUSPENDS
#	ROUNDS | BENCH end arbiter
PATH=/gp/bin:/usr/bin:/bin:/sbin
WAIT_SCALE=5	# a wait's bound: its idle-host figure times this (docs/development.md)
N=300
KS="1 4 16"
GKS="1 8 64"
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.n=*) N=${arg#*=} ;;
	gpb.ks=*) KS=$(echo "${arg#*=}" | tr , ' ') ;;
	gpb.gks=*) GKS=$(echo "${arg#*=}" | tr , ' ') ;;
	gpb.arbn=*) NA=${arg#*=} ;;
	esac
done
N=${NA:-$N}
S=/tmp/arbb.sock
ST=/tmp/kfd-gb
# K offline stand-ins, ready files /tmp/arbk<I>.ready; pids in $pids.
offline_start() { # K
	pids=""
	i=0
	while [ $i -lt "$1" ]; do
		rm -f /tmp/arbk$i.ready
		kfd-exerciser open runtime-enable ready:/tmp/arbk$i.ready \
			wait:600000 > /dev/null 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$1" ]; do
		j=0
		while [ ! -e /tmp/arbk$i.ready ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
			sleep 0.1; j=$((j + 1))
		done
		i=$((i + 1))
	done
}
# Offline processes the daemon holds: its policy's rows (its log drops
# lines past 50/s, so a count of log lines misses some of 64 attaches).
att() {
	_c=$(gpreempt-ctl policy -j -s $S 2>/dev/null |
		jq -s '[.[] | select(.type == "gproc")] | length' 2>/dev/null)
	echo "${_c:-0}"
}
daemon_start() { # K daemon-flags...
	_k=$1
	shift
	rm -f /tmp/arbb.ready
	gpreempt-ctl daemon -s $S --ready /tmp/arbb.ready \
		--offline uid=0,cmdline=ready:/tmp/arbk --resume-after 0 "$@" \
		2> /tmp/arbb.log &
	dpid=$!
	j=0
	while [ ! -e /tmp/arbb.ready ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
		sleep 0.1; j=$((j + 1))
	done
	j=0
	while [ "$(att)" -lt "$_k" ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
		sleep 0.1; j=$((j + 1))
	done
}
all_stop() {
	kill -TERM $dpid
	wait $dpid
	kill $pids 2>/dev/null
	wait 2>/dev/null
}
for K in $KS; do
	offline_start "$K"
	daemon_start "$K"
	echo "BENCH info K=$K offline attached: $(att)"
	arb-lat $S "$N" "$K" 1000
	gpreempt-ctl policy -j -s $S | sed "s/^/BENCH pol $K /"
	all_stop
done
for K in $GKS; do
	for SC in node gpu; do
		offline_start "$K"
		rm -rf $ST
		i=0
		for p in $pids; do
			for q in 0 1; do
				mkdir -p $ST/$p/queues/$q
				echo $((10001 + i % 8)) > $ST/$p/queues/$q/gpuid
				echo 0 > $ST/$p/queues/$q/type
				echo 1048576 > $ST/$p/queues/$q/size
			done
			i=$((i + 1))
		done
		daemon_start "$K" --scope $SC --gang none --kfd-proc $ST
		echo "BENCH info gpus K=$K scope=$SC offline attached: $(att)"
		# 100 ms between edges: every idle's resume (--resume-after 0,
		# on the daemon's timer) is done before the next busy, so each
		# busy is a toggle (a busy inside it would cancel the resume)
		arb-lat $S "$N" "$K" 100000 10001 | sed "s/^BENCH arb /BENCH garb $SC /"
		grep 'suspend pid .* (busy)' /tmp/arbb.log | head -1 |
			sed "s/^/BENCH info gpus K=$K scope=$SC first: /"
		# SUSPEND ioctls a busy caused (the daemon's own count: its
		# log is rate-limited), over the N toggles
		gpreempt-ctl policy -j -s $S > /tmp/arbb.pol
		echo "BENCH gioctl $SC $K $(jq -s '[.[] | select(.name == "trigger_to_suspend") | .count] | add // 0' /tmp/arbb.pol) $N"
		all_stop
	done
done
echo "BENCH end arbiter"
