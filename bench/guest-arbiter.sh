# SPDX-License-Identifier: GPL-2.0
# Guest half of the arbiter benchmark (busybox sh; bench/arbiter.sh runs
# it with scripts/vm.sh run). For K offline processes (kfd-exerciser with
# its runtime enabled, attached by the daemon ahead of time): N busy/idle
# rounds on one connection (bench/arb-lat), then the daemon's own
# histograms (policy -j). --resume-after 0: every idle resumes at once, so
# every busy suspends all K.
# Kernel command line: gpb.n=N (default 300), gpb.ks="1 4 16"; gpb.arbn=N
# overrides gpb.n (bench/run.sh --quick shares one boot with guest-ctl.sh).
# Output: BENCH arb K I BUSY_NS IDLE_NS | BENCH pol K JSON | BENCH end arbiter
PATH=/gp/bin:/usr/bin:/bin:/sbin
WAIT_SCALE=5	# a wait's bound: its idle-host figure times this (docs/development.md)
N=300
KS="1 4 16"
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.n=*) N=${arg#*=} ;;
	gpb.ks=*) KS=$(echo "${arg#*=}" | tr , ' ') ;;
	gpb.arbn=*) NA=${arg#*=} ;;
	esac
done
N=${NA:-$N}
S=/tmp/arbb.sock
for K in $KS; do
	pids=""
	i=0
	while [ $i -lt "$K" ]; do
		rm -f /tmp/arbk$i.ready
		kfd-exerciser open runtime-enable ready:/tmp/arbk$i.ready \
			wait:600000 > /dev/null 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$K" ]; do
		j=0
		while [ ! -e /tmp/arbk$i.ready ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
			sleep 0.1; j=$((j + 1))
		done
		i=$((i + 1))
	done
	rm -f /tmp/arbb.ready
	gpreempt-ctl daemon -s $S --ready /tmp/arbb.ready \
		--offline uid=0,cmdline=ready:/tmp/arbk --resume-after 0 \
		2> /tmp/arbb.log &
	dpid=$!
	j=0
	while [ ! -e /tmp/arbb.ready ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
		sleep 0.1; j=$((j + 1))
	done
	att() {
		_c=$(grep -c 'offline pid .* attached' /tmp/arbb.log 2>/dev/null)
		echo "${_c:-0}"
	}
	j=0
	while [ "$(att)" -lt "$K" ] && [ $j -lt $((300 * WAIT_SCALE)) ]; do
		sleep 0.1; j=$((j + 1))
	done
	echo "BENCH info K=$K offline attached: $(att)"
	arb-lat $S "$N" "$K" 1000
	gpreempt-ctl policy -j -s $S | sed "s/^/BENCH pol $K /"
	kill -TERM $dpid
	wait $dpid
	kill $pids 2>/dev/null
	wait 2>/dev/null
done
echo "BENCH end arbiter"
