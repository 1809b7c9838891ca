# SPDX-License-Identifier: GPL-2.0
# Guest half of the per-program BPF cost (busybox sh, run by scripts/vm.sh
# run; bench/run.sh drives it). gpreempt-trace runs in summary mode
# (fentry and kprobes) and in event mode while bench/progstats counts the
# kernel's own run time of each BPF program over one kfd-loop run: what
# each probe costs per call, apart from the trampoline or kprobe that
# calls it (the rest of the added time the overhead part measures).
#
# Parameters on the kernel command line (VM_APPEND):
#   gpb.progcalls=N   calls per loop (default 2000)
# Output lines:
#   BENCH progcalls N                          calls per loop
#   BENCH prog MODE LOOP PROGRAM RUNS NS_PER_RUN
#   BENCH skip progs WHY
#   BENCH end progs

PATH=/gp/bin:/usr/bin:/bin:/sbin
WAIT_SCALE=5	# a wait's bound: its idle-host figure times this (docs/development.md)
# a tracer attach's bound on a loaded host: see guest-overhead.sh
ATTACH_MAX=500
W=/tmp/gpp
mkdir -p $W
CALLS=2000
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.progcalls=*) CALLS=${arg#*=} ;;
	esac
done
echo "BENCH progcalls $CALLS"
PIN0=
command -v taskset > /dev/null && PIN0="taskset -c 0"

for mode in summary summary-k events; do
	case $mode in
	summary) args=-s ;;
	summary-k) args="-s --kprobes" ;;
	events) args= ;;
	esac
	rm -f $W/t.ready
	out=$(startwait -o $W/$mode.out -f $W/t.ready -t $ATTACH_MAX -- \
		gpreempt-trace -j $args --ready-file $W/t.ready) ||
		{ echo "BENCH skip progs $mode: $(tail -2 $W/$mode.out | tr '\n' ' ')"; continue; }
	set -- $out
	tpid=$1
	for loop in create dbg; do
		$PIN0 progstats -- kfd-loop $loop $CALLS 1 2> $W/p.err |
			awk -v m=$mode -v l=$loop '$1 == "PROG" { print "BENCH prog", m, l, $2, $3, $4 }'
	done
	kill -INT $tpid
	i=0
	while [ -d /proc/$tpid ] && ! grep -q '^State:.*Z' /proc/$tpid/status 2>/dev/null &&
	      [ $i -lt $((300 * WAIT_SCALE)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
done
echo "BENCH end progs"
