# SPDX-License-Identifier: GPL-2.0
# Guest half of the tracer-overhead benchmark (busybox sh, run by
# scripts/vm.sh run; bench/run.sh drives it and reads its output).
#
# A tight loop of KFD ioctls (bench/kfd-loop) runs untraced and under each
# tracer in turn, in one boot, with untraced runs between the tracers so
# drift shows up in the baseline rather than in one tracer's figure. Every
# tracer keeps the same per-event state: a per-process map and a latency
# histogram of the traced functions.
#
# Parameters on the kernel command line (VM_APPEND):
#   gpb.calls=N     ioctls per batch            (default 4000)
#   gpb.batches=N   batches per run; the first is a warm-up (default 6)
#   gpb.rounds=N    passes over all tracers     (default 2)
#   gpb.tracers=a,b subset of: bpftrace bt-hist bt-printf bt-empty fgraph
#                   kphist gp-fentry gp-kprobes gp-reduced gp-cpu1 gp-summary
#                   gp-summary-k
#                   (default: all but bt-empty, which counts nothing)
# The loops run on CPU 0 (taskset), every tracer where the scheduler puts
# it, except gp-cpu1 (fentry, pinned to CPU 1).
#   gpb.startup=N   extra exec-to-attached samples per tracer (default 0)
#   gpb.pace=US     also run paced loops ("create-p", "dbg-p"): US us of
#                   sleep after each call, only the calls timed, so a
#                   tracer's loader keeps up (default 50; 0: no paced runs)
#   gpb.pcalls=N    calls per paced batch (default 300)
# Output lines (everything else is commentary):
#   BENCH run ROUND TRACER OP BATCH NS_PER_CALL ERRNO
#   BENCH attach TRACER MS VMRSS_KB VMHWM_KB
#   BENCH hits TRACER OP COUNT      events the tracer saw (proves it traced)
#   BENCH lost TRACER COUNT         events the tracer reported lost
#   BENCH cpu TRACER TICKS IOCTLS   the tracer process's CPU time (user +
#                                   system, in USER_HZ ticks) over its loops
#   BENCH skip TRACER WHY
#   BENCH info TEXT
#   BENCH end overhead

PATH=/gp/bin:/usr/bin:/bin:/sbin
# How long a tracer may take to attach: under TCG on a loaded 2-core host
# gpreempt-trace's took 36 s and bpftrace's 46 s (load 5-8), several times
# their idle figures; startwait returns as soon as it is attached or has
# died, so only a tracer stuck loading waits this long, and it stays
# below scripts/vm.sh's 600 s silence limit (docs/development.md).
ATTACH_MAX=500
T=/sys/kernel/tracing
W=/tmp/gpb
mkdir -p $W

CALLS=4000
BATCHES=6
ROUNDS=2
STARTUP=0
PACE=50
PCALLS=300
TRACERS="bpftrace bt-hist bt-printf fgraph kphist gp-fentry gp-kprobes gp-reduced
gp-cpu1 gp-summary gp-summary-k"
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpb.calls=*) CALLS=${arg#*=} ;;
	gpb.batches=*) BATCHES=${arg#*=} ;;
	gpb.rounds=*) ROUNDS=${arg#*=} ;;
	gpb.startup=*) STARTUP=${arg#*=} ;;
	gpb.pace=*) PACE=${arg#*=} ;;
	gpb.pcalls=*) PCALLS=${arg#*=} ;;
	gpb.tracers=*) TRACERS=$(echo "${arg#*=}" | tr , ' ') ;;
	gpb.btexit=*) BT_EXIT=${arg#*=} ;;
	esac
done

# The functions gpreempt-trace hooks (user/trace/attach.c), with the enum gp_op
# index (bpf/gpreempt.h) that keys the histograms; only those present in
# this kernel's amdgpu are kept (one /proc/kallsyms pass). Only
# kfd_ioctl_create_queue (create loop) and kfd_ioctl_set_debug_trap,
# suspend_queues and resume_queues (dbg loop) fire here; the rest make
# the attach work comparable.
HOOKS_ALL="0:kfd_ioctl_create_queue 1:kfd_ioctl_destroy_queue
2:kfd_procfs_add_queue 3:kfd_procfs_del_queue 4:evict_process_queues_cpsch
4:evict_process_queues_nocpsch 5:restore_process_queues_cpsch
5:restore_process_queues_nocpsch 6:kfd_process_evict_queues
7:kfd_ioctl_set_debug_trap 8:suspend_queues 9:resume_queues
10:pm_send_unmap_queue 11:amdkfd_fence_wait_timeout
12:mes_v11_0_remove_hw_queue 13:mes_v11_0_add_hw_queue
12:mes_v12_0_remove_hw_queue 13:mes_v12_0_add_hw_queue"
HOOKS=$(awk -v hooks="$(echo $HOOKS_ALL)" '
	BEGIN { n = split(hooks, h, " "); for (i = 1; i <= n; i++) { split(h[i], p, ":"); idx[p[2]] = p[1] } }
	$4 == "[amdgpu]" && ($3 in idx) && !seen[$3]++ { print idx[$3] ":" $3 }' /proc/kallsyms)
FIRING="kfd_ioctl_create_queue kfd_ioctl_set_debug_trap suspend_queues resume_queues"

info() { echo "BENCH info $*"; }
PIN0=
command -v taskset > /dev/null && PIN0="taskset -c 0"
skip() { echo "BENCH skip $1 $2"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# A tracer's parent (startwait) has exited; it may linger as a zombie.
alive() { [ -d /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
wait_gone() { # pid tenths
	local i=0
	while alive $1 && [ $i -lt $2 ]; do sleep 0.1; i=$((i + 1)); done
}

# kfd-loop prints "OP CALLS NS_PER_CALL ERRNO" per batch.
run_loops() { # round tracer
	local op b o c ns e args name
	for op in create dbg create-p dbg-p; do
		case $op in
		*-p) [ "$PACE" -gt 0 ] || continue
		     args="-p $PACE ${op%-p} $PCALLS $BATCHES" ;;
		*) args="$op $CALLS $BATCHES" ;;
		esac
		b=0
		$PIN0 kfd-loop $args > $W/loop.out 2> $W/loop.err ||
			{ info "kfd-loop $args failed: $(cat $W/loop.err)"; continue; }
		while read -r o c ns e; do
			echo "BENCH run $1 $2 $op $b $ns $e"
			b=$((b + 1))
		done < $W/loop.out
	done
}

# --- bpftrace: entry/return kprobes, a per-process call map keyed like the
# queue map (pid, gpu_id for create), a log2 latency histogram per hook
# (and per debug-trap op, as gpreempt's gp_hist_key). BEGIN runs after
# every probe is attached: that line is the ready signal. END prints only
# what the counts need and clears the rest, so bpftrace's exit does not
# print every map (see stop_bt).
bt_script() {
	local h i f extra
	local clr="clear(@calls); clear(@lat); clear(@s);"
	echo 'BEGIN { printf("gpb-ready\n"); }'
	for h in $HOOKS; do
		i=${h%%:*}
		f=${h#*:}
		case $f in
		kfd_ioctl_create_queue)
			clr="$clr clear(@q);"
			extra="@q[pid, *(uint32 *)(arg2 + 36)] = count();" ;;
		kfd_ioctl_set_debug_trap)
			clr="$clr clear(@dop);"
			extra="@dop[tid] = *(uint32 *)(arg2 + 4);" ;;
		*) extra="" ;;
		esac
		echo "kprobe:$f { @s[tid, $i] = nsecs; @calls[pid, $i] = count(); $extra }"
		if [ "$i" = 7 ]; then
			echo "kretprobe:$f /@s[tid, $i]/ { @lat[$i, @dop[tid]] = hist(nsecs - @s[tid, $i]); delete(@s[tid, $i]); delete(@dop[tid]); }"
		else
			echo "kretprobe:$f /@s[tid, $i]/ { @lat[$i, 0] = hist(nsecs - @s[tid, $i]); delete(@s[tid, $i]); }"
		fi
	done
	echo "END { print(@calls); $clr printf(\"gpb-end\\n\"); }"
}

# The one-liners a user would type: an entry probe keeps the start time
# per thread and hook (suspend_queues runs inside the debug-trap ioctl, in
# the same thread), the return probe does $1 with IDX the hook's index
# and LAT its latency.
bt_pair_script() { # body [END-body]
	local h i
	echo 'BEGIN { printf("gpb-ready\n"); }'
	echo "END { $2 clear(@s); printf(\"gpb-end\\n\"); }"
	for h in $HOOKS; do
		i=${h%%:*}
		echo "kprobe:${h#*:} { @s[tid, $i] = nsecs; }"
		echo "kretprobe:${h#*:} /@s[tid, $i]/ { $1 delete(@s[tid, $i]); }" |
			sed "s/IDX/$i/g; s/LAT/nsecs - @s[tid, $i]/g"
	done
}
# bt-hist: latency histograms only (what summary mode replaces), one per
# hook, no map.
bt_hist_script() { bt_pair_script '@h[IDX] = hist(LAT);' 'print(@h); clear(@h);'; }
# bt-printf: a per-call log (what event mode is compared with): one line
# per traced call, pid, tid, hook and latency, to a file as
# gpreempt-trace's events are.
bt_printf_script() { bt_pair_script 'printf("%d %d IDX %d\n", pid, tid, LAT);'; }
# bt-empty: the floor of any kprobe tracer, not a tool anyone would run:
# an empty program on each of the same entries and returns. Whatever a
# kprobe-based tracer adds on top of it is its own work.
bt_empty_script() {
	local h
	echo 'BEGIN { printf("gpb-ready\n"); }'
	echo 'END { printf("gpb-end\n"); }'
	for h in $HOOKS; do
		echo "kprobe:${h#*:} { }"
		echo "kretprobe:${h#*:} { }"
	done
}
# Stop a bpftrace: SIGINT runs END (its last line "gpb-end"), then
# bpftrace detaches every probe and exits, which under TCG on a loaded host
# has taken minutes. The counts come from END's output, so the exit is
# waited for only while bpftrace makes progress (output or CPU time); one
# that makes none for BT_STUCK s is killed (closing its fds detaches its
# probes) and said so. A slow baseline tool never fails the run.
# Its detach burns CPU time (each kprobe's removal patches kernel text
# on every vCPU): at 2026-11-26, 20d1fee, two CPU hogs on the host, the
# guest heard nothing from bt-hist's exit for 600 s and scripts/vm.sh
# ended the boot (no "BENCH end"). So the wait prints a line every 30 s
# (the guest's heartbeat; the host's limit follows the serial ports), and
# once END has printed the counts, the exit is given BT_EXIT s (kernel
# argument gpb.btexit) before it is killed: what follows END is teardown,
# which no figure here measures.
BT_STUCK=60
BT_EXIT=${BT_EXIT:-120}
stop_bt() { # name
	local last="" cur idle=0 t=0 ended
	kill -INT $TPID
	while alive $TPID; do
		cur="$(wc -c < $W/$1.out) $(cpu_ticks $TPID)"
		if [ "$cur" = "$last" ]; then
			idle=$((idle + 1))
		else
			idle=0
			last=$cur
		fi
		ended=
		grep -q '^gpb-end' $W/$1.out && ended=', after END'
		if [ $idle -ge $BT_STUCK ]; then
			info "$1: no progress for $BT_STUCK s after SIGINT$ended: killed"
			kill -KILL $TPID
			wait_gone $TPID 100
			break
		fi
		if [ -n "$ended" ] && [ $t -ge $BT_EXIT ]; then
			info "$1: still exiting $t s after SIGINT$ended (counts in): killed"
			kill -KILL $TPID
			wait_gone $TPID 100
			break
		fi
		t=$((t + 1))
		# commentary, not a BENCH line: run.sh keeps "BENCH info" lines
		[ $((t % 30)) = 0 ] && echo "gpb: $1 stopping, $t s after SIGINT${ended:-, END not yet}"
		sleep 1
	done
	grep -q '^gpb-end' $W/$1.out || info "$1: exited without running END"
}
stop_btprintf() {
	stop_bt bt-printf
	# lines "PID TID IDX NS"; bpftrace says "Lost N events" when its
	# perf buffer overflowed
	awk 'NF == 4 && $3 == 0 { c++ } NF == 4 && $3 == 7 { d++ }
		/Lost [0-9]+ events/ { for (i = 1; i <= NF; i++) if ($i == "Lost") l += $(i + 1) }
		END { printf "BENCH hits bt-printf create %d\nBENCH hits bt-printf dbg %d\nBENCH lost bt-printf %d\n", c, d, l }' $W/bt-printf.out
}

start_bpftrace() { # [name script-function]
	local out name=${1:-bpftrace} script=${2:-bt_script}
	command -v bpftrace > /dev/null || { skip $name "not in the guest (VM_EXTRA_BINS)"; return 1; }
	$script > $W/$name.bt
	out=$(startwait -o $W/$name.out -l gpb-ready -t $ATTACH_MAX -- \
		bpftrace $W/$name.bt) || { skip $name "did not attach: $(tail -3 $W/$name.out)"; return 1; }
	set -- $out
	TPID=$1
	echo "BENCH attach $name $2 $3 $4"
}
stop_bthist() {
	stop_bt bt-hist
	# @h[IDX]: then bucket rows "[lo, hi)   N |@@@   |" (the bar has
	# blanks: take the number after the bracket)
	awk '/^@h\[/ { f = $0 }
		/^\[/ && match($0, /[])] +[0-9]+/) {
			n = substr($0, RSTART + 1, RLENGTH - 1) + 0
			if (f ~ /^@h\[0\]/) c += n
			if (f ~ /^@h\[7\]/) d += n
		}
		END { printf "BENCH hits bt-hist create %d\nBENCH hits bt-hist dbg %d\n", c, d }' $W/bt-hist.out
}
stop_bpftrace() {
	local c d
	stop_bt bpftrace
	# @calls[PID, IDX]: N  -> hits per op (END prints @calls)
	c=$(awk -F'[][,: ]+' '/^@calls\[/ && $3 == 0 { n += $4 } END { print n + 0 }' $W/bpftrace.out)
	d=$(awk -F'[][,: ]+' '/^@calls\[/ && $3 == 7 { n += $4 } END { print n + 0 }' $W/bpftrace.out)
	echo "BENCH hits bpftrace create $c"
	echo "BENCH hits bpftrace dbg $d"
}

# --- ftrace function_graph limited to the same functions (the seeds'
# method). Under TCG every by-name write to set_ftrace_filter or
# set_graph_function scans all ~59,000 ftrace records through kallsyms
# (≈7 s per name, even with :mod:), so the filter is written by index:
# one read of available_filter_functions (≈10 s), then an instant write.
# set_graph_function takes no indexes; it stays empty (every function may
# start a graph), which adds nothing here because set_ftrace_filter
# already limits what is instrumented to these functions.
fgraph_index() {
	local pat="" names="" h
	for h in $HOOKS; do pat="$pat -e ${h#*:}"; names="$names ${h#*:}"; done
	grep -n -w $pat $T/available_filter_functions |
		awk -F'[: ]' -v names="$names" 'BEGIN { split(names, n, " "); for (i in n) want[n[i]] = 1 }
			$3 == "[amdgpu]" && ($2 in want) { print $1 }' > $W/fgraph.idx
	[ -s $W/fgraph.idx ]
}
start_fgraph() {
	[ -w $T/set_ftrace_filter ] || { skip fgraph "no $T/set_ftrace_filter"; return 1; }
	local t0 t1
	if [ ! -s $W/fgraph.idx ]; then
		t0=$(uptime_s)
		fgraph_index || { skip fgraph "hooks not in available_filter_functions"; return 1; }
		t1=$(uptime_s)
		info "fgraph: read available_filter_functions in $(awk "BEGIN { print $t1 - $t0 }") s"
	fi
	t0=$(uptime_s)
	echo 0 > $T/tracing_on
	tr '\n' ' ' < $W/fgraph.idx > $T/set_ftrace_filter ||
		{ skip fgraph "set_ftrace_filter refused the indexes"; return 1; }
	[ "$(wc -l < $T/set_ftrace_filter)" = "$(wc -l < $W/fgraph.idx)" ] ||
		info "fgraph: filter $(tr '\n' ' ' < $T/set_ftrace_filter)"
	echo function_graph > $T/current_tracer
	echo > $T/trace
	echo 1 > $T/tracing_on
	t1=$(uptime_s)
	echo "BENCH attach fgraph $(awk "BEGIN { print ($t1 - $t0) * 1000 }") 0 0"
}
stop_fgraph() {
	echo 0 > $T/tracing_on
	# Count from the per-CPU stats: the ring buffer overwrites old entries.
	n=$(cat $T/per_cpu/cpu*/stats | awk '/^entries:/ { e += $2 } /^overrun:/ { o += $2 } END { print e + o }')
	echo "BENCH hits fgraph all $n"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	echo > $T/trace
}

# --- tracefs kprobe events with hist triggers: the kernel-only way to keep
# a map and a latency histogram (synthetic event from entry to return).
start_kphist() {
	[ -w $T/kprobe_events ] || { skip kphist "no kprobe_events"; return 1; }
	local t0 t1 f e r
	t0=$(uptime_s)
	for f in $FIRING; do
		echo "p:gpb/${f}_e $f" >> $T/kprobe_events &&
		echo "r:gpb/${f}_r $f ret=\$retval" >> $T/kprobe_events &&
		echo "gpb_${f}_lat u64 lat" >> $T/synthetic_events || { skip kphist "kprobe event for $f refused"; stop_kphist; return 1; }
	done
	for f in $FIRING; do
		e=$T/events/gpb/${f}_e
		r=$T/events/gpb/${f}_r
		echo "hist:keys=common_pid:ts0=common_timestamp" > $e/trigger &&
		echo "hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(gpb.${f}_e).trace(gpb_${f}_lat,\$lat)" > $r/trigger &&
		echo "hist:keys=lat.log2:sort=lat" > $T/events/synthetic/gpb_${f}_lat/trigger ||
			{ skip kphist "hist trigger for $f refused"; stop_kphist; return 1; }
		echo 1 > $e/enable
		echo 1 > $r/enable
	done
	t1=$(uptime_s)
	echo "BENCH attach kphist $(awk "BEGIN { print ($t1 - $t0) * 1000 }") 0 0"
}
stop_kphist() {
	local c d f
	c=$(awk '/^ *Hits:/ { print $2; exit }' $T/events/gpb/kfd_ioctl_create_queue_e/hist 2>/dev/null)
	d=$(awk '/^ *Hits:/ { print $2; exit }' $T/events/gpb/kfd_ioctl_set_debug_trap_e/hist 2>/dev/null)
	echo "BENCH hits kphist create ${c:-0}"
	echo "BENCH hits kphist dbg ${d:-0}"
	for f in $FIRING; do
		echo 0 > $T/events/gpb/${f}_e/enable 2>/dev/null
		echo 0 > $T/events/gpb/${f}_r/enable 2>/dev/null
		echo "!hist:keys=lat.log2:sort=lat" > $T/events/synthetic/gpb_${f}_lat/trigger 2>/dev/null
		echo "!hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(gpb.${f}_e).trace(gpb_${f}_lat,\$lat)" > $T/events/gpb/${f}_r/trigger 2>/dev/null
		echo "!hist:keys=common_pid:ts0=common_timestamp" > $T/events/gpb/${f}_e/trigger 2>/dev/null
	done
	for f in $FIRING; do
		echo "!gpb_${f}_lat" >> $T/synthetic_events 2>/dev/null
		echo "-:gpb/${f}_e" >> $T/kprobe_events 2>/dev/null
		echo "-:gpb/${f}_r" >> $T/kprobe_events 2>/dev/null
	done
}

# --- gpreempt-trace: fentry (default), --kprobes, --reduced. JSON to a
# file so every event is decoded and written, as a user would run it.
gp_args() {
	case $1 in
	gp-fentry|gp-cpu1) echo "" ;;
	gp-kprobes) echo "--kprobes" ;;
	gp-reduced) echo "--reduced" ;;
	gp-summary) echo "-s" ;;
	gp-summary-k) echo "-s --kprobes" ;;
	esac
}
# gp-cpu1: fentry, with the tracer kept off the loop's CPU. It shows how
# much of the added time is the loader being woken (and run) on the CPU of
# the traced call rather than the probes themselves.
gp_pin() {
	[ "$1" = gp-cpu1 ] && [ -n "$PIN0" ] && echo "taskset -c 1"
}
start_gp() { # tracer
	local out
	command -v gpreempt-trace > /dev/null || { skip $1 "gpreempt-trace not in the guest"; return 1; }
	out=$(startwait -o $W/$1.out -f $W/$1.ready -t $ATTACH_MAX -- \
		$(gp_pin $1) gpreempt-trace -j $(gp_args $1) --ready-file $W/$1.ready) ||
		{ skip $1 "did not attach: $(tail -3 $W/$1.out | tr '\n' ' ')"; return 1; }
	set -- $1 $out
	TPID=$2
	echo "BENCH attach $1 $3 $4 $5"
}
stop_gp() { # tracer
	local c d l
	kill -INT $TPID
	wait_gone $TPID 300
	case $1 in
	gp-summary*)	# no events: the per-op counts kept in BPF
		c=$(grep '"type":"count","op":"create"' $W/$1.out | sed 's/.*"count":\([0-9]*\).*/\1/')
		d=$(grep '"type":"count","op":"dbg_trap"' $W/$1.out | sed 's/.*"count":\([0-9]*\).*/\1/')
		c=${c:-0} d=${d:-0} ;;
	*)
		c=$(grep -c '"op": *"create"' $W/$1.out)
		d=$(grep -c '"op": *"dbg_trap"' $W/$1.out) ;;
	esac
	echo "BENCH hits $1 create $c"
	echo "BENCH hits $1 dbg $d"
	l=$(grep '"type": *"lost"' $W/$1.out | tail -1 | sed 's/.*"events": *\([0-9]*\).*/\1/')
	echo "BENCH lost $1 ${l:-unknown}"
}

start() {
	case $1 in
	gp-*) start_gp $1 ;;
	bt-hist) start_bpftrace bt-hist bt_hist_script ;;
	bt-printf) start_bpftrace bt-printf bt_printf_script ;;
	bt-empty) start_bpftrace bt-empty bt_empty_script ;;
	*) start_$1 ;;
	esac
}
stop() {
	case $1 in
	gp-*) stop_gp $1 ;;
	bt-hist) stop_bthist ;;
	bt-printf) stop_btprintf ;;
	bt-empty) stop_bt bt-empty ;;	# no counts
	*) stop_$1 ;;
	esac
}

info "kernel $(uname -r), calls=$CALLS batches=$BATCHES rounds=$ROUNDS tracers=$TRACERS"
info "hooks present: $(echo $HOOKS | wc -w) of $(echo $HOOKS_ALL | wc -w)"
info "guest cpus $(grep -c ^processor /proc/cpuinfo), mem $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"
command -v bpftrace > /dev/null && info "$(bpftrace --version 2>&1)"
# utime + stime of a process, in USER_HZ ticks (fields 14 and 15).
cpu_ticks() {
	[ -n "$1" ] && awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$1/stat 2>/dev/null || echo 0
}

round=1
while [ $round -le $ROUNDS ]; do
	run_loops $round none
	for t in $TRACERS; do
		TPID=
		if start $t; then
			c0=$(cpu_ticks $TPID)
			run_loops $round $t
			c1=$(cpu_ticks $TPID)
			[ -n "$TPID" ] && echo "BENCH cpu $t $((c1 - c0)) $((2 * (CALLS + (PACE > 0 ? PCALLS : 0)) * BATCHES))"
			stop $t
		fi
		run_loops $round none
	done
	round=$((round + 1))
done

# Start-up only: exec to attached, and memory at that moment.
s=0
while [ $s -lt $STARTUP ]; do
	for t in $TRACERS; do
		case $t in bpftrace|gp-*) ;; *) continue ;; esac
		start $t > $W/startup.out && grep '^BENCH attach' $W/startup.out && stop $t > /dev/null
	done
	s=$((s + 1))
done
echo "BENCH end overhead"
