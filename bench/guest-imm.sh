# SPDX-License-Identifier: GPL-2.0
# Guest half of the immediate-path latency (busybox sh, run by
# scripts/vm.sh run; bench/run.sh drives it): bench/imm-lat embeds the
# probe (user/trace/probe.h, GP_EMIT_IMMEDIATE) with every KFD hook of
# the guest's kernel attached, as the daemon does, and times real exit
# events from their BPF timestamp to the consumer's callback, at 100
# events/s and back to back, under the default scheduler and SCHED_FIFO.
#
# Parameters on the kernel command line (VM_APPEND):
#   gpb.immn=N   events at 100/s (back to back: 2N) (default 1000)
# Output lines:
#   BENCH imm SCHED RATE N P50_NS P99_NS MAX_NS MISSED   (SCHED: below)
#   BENCH skip imm WHY
#   BENCH end imm

PATH=/gp/bin:/usr/bin:/bin:/sbin
N=1000
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.immn=*) N=${arg#*=} ;;
	esac
done
# SCHED: other or fifo, and "/pipe" for the baseline (imm-lat -B): the
# same wakeup of a consumer asleep in poll, by a pipe write, no BPF.
for sched in other fifo other/pipe fifo/pipe; do
	set --
	case $sched in fifo*) set -- -f 10 ;; esac	# busybox has no chrt
	case $sched in */pipe) set -- "$@" -B ;; esac
	for rate in 100 0; do
		n=$N
		[ $rate = 0 ] && n=$((2 * N))
		imm-lat -n $n -r $rate "$@" > /tmp/imm.out 2> /tmp/imm.err
		if grep -q '^imm ' /tmp/imm.out; then
			sed "s|^imm |BENCH imm $sched |" /tmp/imm.out
		else
			echo "BENCH skip imm $sched rate $rate: $(tail -1 /tmp/imm.err)"
		fi
	done
done
echo "BENCH end imm"
