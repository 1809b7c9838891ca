#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpreempt benchmarks: run them, keep the raw samples, print one table.
# Method and a real run's figures: docs/benchmarks.md.
#
#   bench/run.sh [--quick] [--only PART]... [-k SLOT]
#   bench/run.sh --report       the tables again, from the last raw output
#   bench/run.sh --current      docs/benchmarks.md's table, from the same
#
# PART: overhead  per-call tracer overhead in the VM (untraced, bpftrace,
#                 ftrace function_graph, tracefs kprobe+hist, gpreempt-trace
#                 fentry / --kprobes / --reduced), plus exec-to-attached
#                 time and memory of each tracer
#       progs     BPF run time per program of gpreempt-trace (summary
#                 fentry/kprobes, events) per traced call in the VM
#                 (bench/progstats: the kernel's BPF_ENABLE_STATS)
#       imm       immediate path in the VM: a real exit event's BPF
#                 timestamp -> the embedding consumer's callback, with
#                 every KFD hook attached (bench/imm-lat, static)
#       bpf       per-event BPF cost (BPF_PROG_TEST_RUN) and ring-buffer
#                 throughput on the host kernel
#       ctl       suspend request -> SUSPEND ioctl entry in the VM, for a
#                 one-shot gpreempt-ctl and for a warm daemon
#                 (plus the daemon's socket path on the host)
#       gpus      per-GPU against node scope on the host: the policy's
#                 busy -> suspend decisions for 1, 8, 64 offline processes
#                 over 8 GPUs; ioctls, queue ids and GPUs per toggle, and
#                 node/gpu ratios (bench/gpu-scope)
#       detect    launch detector (bench/detect.sh): added cost per
#                 hipLaunchKernel call, probed and for a not-online
#                 process mapping the same file, against unprobed (host)
#       dcost     what a launch probe costs (bench/detect-cost.sh): traps
#                 per burst of N launches, and request latency while
#                 launch probes are armed and disarmed at 100 and 1,000
#                 edges/s (perf uprobes, uprobe_multi, tracefs apply)
#       arbiter   notify "busy" -> every offline process suspended
#                 (bench/arbiter.sh: its own VM boot; --quick: K = 1, 4,
#                 and 1, 8 over 8 GPUs, in the shared boot, 10 rounds each)
#       edge      first hipLaunchKernel after idle -> the offline process
#                 suspended, against notify busy -> ok (bench/edge.sh:
#                 its own VM boot with the HIP disk; full mode only)
# --quick runs each part with tiny loops (one VM boot, ~2-3 minutes in all)
# and prints TAP ("ok N - bench ...") asserting only that it ran and that
# the numbers are sane; never a timing threshold. Raw output lands in
# $BENCH_OUTPUT (default .output/bench). Sizes: BENCH_* variables, see
# docs/benchmarks.md. Exit 1 if a part failed, 2 on bad usage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# absolute, so a BENCH_OUTPUT given from anywhere names the same place
OUT=$(realpath -m "${BENCH_OUTPUT:-$top/.output/bench}")
cd "$top"
quick=0
report=0
parts=()
slot=6.12

usage() {
	# the whole header comment, up to the line before "set -euo"
	sed -n '3,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--report) report=1 ;;
	--current) report=2 ;;
	--only) [ $# -ge 2 ] || usage; parts+=("$2"); shift ;;
	-k) [ $# -ge 2 ] || usage; slot=$2; shift ;;
	-h|--help) usage 0 ;;
	*) echo "bench/run.sh: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[ ${#parts[@]} -gt 0 ] || parts=(overhead progs imm bpf ctl gpus detect dcost arbiter edge)
for p in "${parts[@]}"; do
	case $p in
	overhead|progs|imm|bpf|ctl|gpus|detect|dcost|arbiter|edge) ;;
	*) echo "bench/run.sh: unknown part '$p' (overhead, progs, imm, bpf, ctl, gpus, detect, dcost, arbiter, edge)" >&2; exit 2 ;;
	esac
done
mkdir -p "$OUT"
# The VM harness builds the static tools here (not in the shared .output/vm).
export VM_OUTPUT=${VM_OUTPUT:-$OUT/vm}

# Same warnings-are-errors flags as the main Makefile.
CFLAGS="-g -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror -D_GNU_SOURCE"
status=0
tapn=0
tap() { # ok|fail|skip text [why]
	tapn=$((tapn + 1))
	case $1 in
	ok) echo "ok $tapn - bench $2" ;;
	skip) echo "ok $tapn - bench $2 # SKIP $3" ;;
	*) echo "not ok $tapn - bench $2${3:+: $3}"; status=1 ;;
	esac
}
log() { [ $quick = 1 ] && echo "# $*" || echo "$*"; }

# bench/bench.mk builds on the main Makefile: same flags, -Werror.
# The VM helpers need no BPF and no libgp: build them first, on their own,
# so a broken bpf-cost build only costs the bpf part.
build_tools() {
	local t ok=0
	mkdir -p "$OUT/build"
	for t in kfd-loop startwait ctl-lat arb-lat progstats bpf-cost imm-lat \
		gpu-scope; do
		if ! make -s -f bench/bench.mk OUTPUT="$OUT/build" "$OUT/build/$t" \
			> "$OUT/build.log" 2>&1; then
			cat "$OUT/build.log" >&2
			echo "bench/run.sh: building $t failed (above)" >&2
			case $t in bpf-cost|imm-lat|gpu-scope) ;; *) exit 1 ;; esac
			ok=1
		fi
	done
	return $ok
}

machine() {
	{
		echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "commit: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), kernel $(uname -r)"
		echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "qemu: $(qemu-system-x86_64 --version | head -1), -accel tcg,thread=single -smp 2 -m 2G (scripts/vm.sh)"
		echo "guest kernel: $(scripts/kernels.sh path "$slot" packages 2>/dev/null || echo unknown)"
		echo "bpftrace: $(bpftrace --version 2>/dev/null || echo 'not installed')"
		echo "compiler: $(cc --version | head -1); $(clang --version | head -1)"
	} > "$OUT/machine.txt"
}

# p50 and p99 (nearest rank) of the numbers on stdin.
pct() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 0 0"; exit }
		i = int(NR * 0.99); if (i < NR * 0.99) i++
		print NR, v[int((NR + 1) / 2)], v[i] }'
}

# Median, quartiles and range of the numbers on stdin (one per line).
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 0 0 0 0 0"; exit }
		q1 = v[int((NR - 1) * 0.25) + 1]; q3 = v[int((NR - 1) * 0.75) + 1]
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print NR, m, q1, q3, v[1], v[NR] }'
}

# The summary tables (--report and the end of a run), quick mode's checks.
. "$top/bench/report.sh"
. "$top/bench/checks.sh"

# --- the VM parts: one boot runs each selected guest script ---------------
# Each guest script runs in its own subshell of one concatenated script,
# so the parts share a boot (and its untraced baseline) but not variables.
vm_boot() { # part...
	local raw=$OUT/vm.raw script=$OUT/guest.sh append="" bins p
	bins="$OUT/build/kfd-loop $OUT/build/startwait $OUT/build/ctl-lat"
	bins="$bins $OUT/build/arb-lat $OUT/build/progstats"
	: > "$script"
	for p in "$@"; do
		case $p in
		overhead)
			if [ $quick = 1 ]; then
				append="$append gpb.calls=200 gpb.batches=3 gpb.rounds=1 gpb.startup=0 gpb.pcalls=50"
			else
				append="$append gpb.calls=${BENCH_CALLS:-1000} gpb.batches=${BENCH_BATCHES:-21}"
				append="$append gpb.rounds=${BENCH_ROUNDS:-3} gpb.startup=${BENCH_STARTUP:-2}"
			fi
			[ -n "${BENCH_TRACERS:-}" ] && append="$append gpb.tracers=$BENCH_TRACERS"
			if command -v bpftrace > /dev/null; then
				bins="$bins $(command -v bpftrace)"
			else
				log "bpftrace is not installed on the host: its column is skipped"
			fi ;;
		ctl)
			if [ $quick = 1 ]; then
				append="$append gpb.n=20 gpb.oneshot=3"
			else
				append="$append gpb.n=${BENCH_CTL_N:-1000} gpb.oneshot=${BENCH_ONESHOT:-1000}"
			fi ;;
		arbiter) append="$append gpb.arbn=10 gpb.ks=1,4 gpb.gks=1,8" ;;
		imm)
			# the embeddable probe, static for the guest
			if make -s -f bench/bench.mk STATIC=1 OUTPUT="$OUT/vmbuild" \
				"$OUT/vmbuild/imm-lat" > "$OUT/vmbuild.log" 2>&1; then
				bins="$bins $OUT/vmbuild/imm-lat"
			else
				cat "$OUT/vmbuild.log" >&2
				tap fail "imm: static imm-lat built" "see above"
			fi
			if [ $quick = 1 ]; then
				append="$append gpb.immn=20"
			else
				append="$append gpb.immn=${BENCH_IMM:-1000}"
			fi ;;
		progs)
			if [ $quick = 1 ]; then
				append="$append gpb.progcalls=200"
			else
				append="$append gpb.progcalls=${BENCH_PROGCALLS:-2000}"
			fi ;;
		esac
		{ echo "("; cat "bench/guest-$p.sh"; echo ")"; } >> "$script"
	done
	log "vm: booting $slot for $* ($append); raw output in ${raw#"$top"/}"
	VM_EXTRA_BINS="$bins ${VM_EXTRA_BINS:-}" VM_APPEND="$append ${VM_APPEND:-}" \
		scripts/vm.sh run -s "$script" -k "$slot" 2>&1 |
		tr -d '\r' | grep -v 'not a dynamic executable' > "$raw" || true
	grep '^BENCH info' "$raw" | sed 's/^BENCH info /# guest: /' >> "$OUT/machine.txt" || true
	for p in "$@"; do
		cp "$raw" "$OUT/$p.raw"
		if ! grep -q "^BENCH end $p" "$raw"; then
			tap fail "$p: guest part finished" "no 'BENCH end $p'; see $raw"
			tail -20 "$raw" | sed 's/^/#   /'
			continue
		fi
		case $p in
		overhead)
			overhead_summary
			[ $quick = 1 ] && overhead_check "$OUT/overhead.raw" "$OUT/overhead.tsv" ;;
		ctl)
			[ $quick = 1 ] && ctl_check "$OUT/ctl.raw" ;;
		arbiter) arbiter_check "$OUT/arbiter.raw" ;;
		imm) [ $quick = 1 ] && imm_check "$OUT/imm.raw" ;;
		progs)
			if [ $quick = 1 ]; then progs_check "$OUT/progs.raw"
			else progs_table; fi ;;
		esac
	done
	return 0
}

overhead_summary() {
	local raw=$OUT/overhead.raw sum=$OUT/overhead.tsv t op
	local n med q1 q3 lo hi bn bmed blo
	# BENCH run ROUND TRACER OP BATCH NS ERRNO; batch 0 is a warm-up.
	# A run is one kfd-loop invocation. Each traced run is compared with
	# the untraced runs of the same loop right before and after it in
	# the same boot, so load that drifts over minutes (these machines are
	# shared) cancels instead of landing on one tracer.
	awk '$1 == "BENCH" && $2 == "run" {
		key = $3 " " $4 " " $5
		if (key != last) { r++; tr[r] = $4; op[r] = $5; last = key }
		if ($6 > 0) { n[r]++; v[r, n[r]] = $7 }
	}
	END {
		for (i = 1; i <= r; i++) {
			if (tr[i] == "none") {
				for (k = 1; k <= n[i]; k++) print "none", op[i], "T", v[i, k]
				continue
			}
			for (k = 1; k <= n[i]; k++) print tr[i], op[i], "T", v[i, k]
			for (j = i - 1; j >= 1 && !(tr[j] == "none" && op[j] == op[i]); j--) ;
			if (j >= 1) for (k = 1; k <= n[j]; k++) print tr[i], op[i], "B", v[j, k]
			for (j = i + 1; j <= r && !(tr[j] == "none" && op[j] == op[i]); j++) ;
			if (j <= r) for (k = 1; k <= n[j]; k++) print tr[i], op[i], "B", v[j, k]
		}
	}' "$raw" > "$OUT/overhead.pairs"
	# tracer op n median p25 p75 min | baseline: n median min
	: > "$sum"
	for t in none $(awk '$1 != "none" { print $1 }' "$OUT/overhead.pairs" | sort -u); do
		for op in create dbg create-p dbg-p; do
			read -r n med q1 q3 lo hi < <(awk -v t="$t" -v o="$op" \
				'$1 == t && $2 == o && $3 == "T" { print $4 }' "$OUT/overhead.pairs" | stats)
			[ "$n" -gt 0 ] || continue
			if [ "$t" = none ]; then
				bn=$n bmed=$med blo=$lo
			else
				read -r bn bmed _ _ blo _ < <(awk -v t="$t" -v o="$op" \
					'$1 == t && $2 == o && $3 == "B" { print $4 }' "$OUT/overhead.pairs" | stats)
			fi
			echo "$t $op $n $med $q1 $q3 $lo $bn $bmed $blo" >> "$sum"
		done
	done
}

# --- per-event BPF cost and ring-buffer throughput, on the host ----------
bpf_part() {
	local raw=$OUT/bpf.raw cost rb fmt=""
	if [ $bpf_built = 0 ]; then
		tap fail "bpf: bpf-cost builds" "see the compiler output above"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		[ $quick = 1 ] && tap skip "bpf quick" "needs root (BPF)"
		log "bpf: needs root (BPF); skipped"
		return
	fi
	# libbpf reads tracepoint ids from tracefs; fresh machines lack it.
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	"$OUT/build/bpf-cost" rb -f -d 0.01 -n 1 -R 1000 > /dev/null 2>&1 && fmt=-f
	if [ $quick = 1 ]; then
		cost="-c 5 -r 100"
		rb="-d 0.1 -n 1 -R 100000"
	else
		cost="-c ${BENCH_CHUNKS:-200}"
		rb="-d 1 -n ${BENCH_TRIALS:-3}"
	fi
	log "bpf: per-event cost and ring-buffer throughput; raw output in ${raw#"$top"/}"
	: > "$raw"
	# shellcheck disable=SC2086
	"$OUT/build/bpf-cost" cost $cost >> "$raw" || { tap fail "bpf: cost ran" "see stderr above"; return; }
	# Series: a 256 KiB ring (the tracer's first size) and 4 MiB (its size
	# since), drained first by a consumer that only counts (the ring's own
	# limit), then by gpreempt-trace -j's formatter (the loader's limit).
	local series="256:count 4096:count 256:json 4096:json" sr kb mode
	[ -n "$fmt" ] || series="256:count 4096:count"
	[ $quick = 1 ] && series=${series%% *}
	for sr in $series; do
		kb=${sr%%:*} mode=${sr#*:}
		# shellcheck disable=SC2086
		"$OUT/build/bpf-cost" rb $rb -s "$kb" $([ "$mode" = json ] && echo -f) |
			sed "s/^rb /rb $kb $mode /" >> "$raw" ||
			{ tap fail "bpf: ring buffer ran" "see stderr above"; return; }
	done
	"$OUT/build/bpf-cost" fmt -c "$([ $quick = 1 ] && echo 5 || echo 50)" >> "$raw" 2>/dev/null || true
	imm_part "$raw"
	[ $quick = 1 ] && bpf_check "$raw"
	return 0
}

# Immediate path: BPF timestamp of a real exit event to the embedding
# consumer's callback, at 100 events/s and back to back; under the
# default scheduler and, where chrt works, SCHED_FIFO (what a daemon that
# must act within 1 ms on a loaded machine would use).
imm_part() { # raw
	local raw=$1 n100 nmax sched
	[ -x "$OUT/build/imm-lat" ] || { log "bpf: imm-lat not built"; return; }
	if [ $quick = 1 ]; then n100=20 nmax=50; else n100=${BENCH_IMM:-1000} nmax=2000; fi
	for sched in other fifo; do
		if [ $sched = fifo ]; then
			chrt -f 10 true 2>/dev/null || continue
			set -- chrt -f 10
		else
			set --
		fi
		"$@" "$OUT/build/imm-lat" -n $n100 -r 100 | sed "s/^imm /imm $sched /" >> "$raw"
		"$@" "$OUT/build/imm-lat" -n $nmax -r 0 | sed "s/^imm /imm $sched /" >> "$raw"
		# the baseline: the same wakeup by a pipe write, no BPF
		"$@" "$OUT/build/imm-lat" -B -n $n100 -r 100 | sed "s|^imm |imm $sched/pipe |" >> "$raw"
	done
}

# --- controller latency, in the VM (and the daemon's path on the host) ---
# The daemon's socket, parse and reply path with no ioctl ("status" round
# trips), on the host at full speed; the daemon starts without /dev/kfd.
ctl_host() {
	local raw=$OUT/ctl-host.raw sock=$OUT/ctl-host.sock ready=$OUT/ctl-host.ready pid i n
	if ! make -s -f bench/bench.mk OUTPUT="$OUT/build" BINDIR="$OUT/build/bin" \
		"$OUT/build/bin/gpreempt-ctl" > "$OUT/build.log" 2>&1; then
		cat "$OUT/build.log" >&2
		tap fail "ctl host: gpreempt-ctl builds" "see the compiler output above"
		return
	fi
	rm -f "$sock" "$ready"
	"$OUT/build/bin/gpreempt-ctl" daemon --socket "$sock" --ready "$ready" 2> "$OUT/ctl-host.log" &
	pid=$!
	for i in $(seq 100); do [ -s "$ready" ] && break; sleep 0.05; done
	n=$([ $quick = 1 ] && echo 20 || echo "${BENCH_RTT_N:-10000}")
	"$OUT/build/ctl-lat" rtt "$sock" "$n" > "$raw" 2>> "$OUT/ctl-host.log" || true
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
	if [ $quick = 1 ]; then
		if [ "$(awk '$1 == "rtt" && $3 > 0 && $4 == "ok"' "$raw" | wc -l)" = "$n" ]; then
			tap ok "ctl quick: host daemon answered $n status round trips"
		else
			tap fail "ctl quick: host daemon answered $n status round trips" \
				"$(tail -3 "$OUT/ctl-host.log" | tr '\n' ' ')"
		fi
	fi
	return 0
}

if [ $report = 2 ]; then
	[ -s "$OUT/overhead.raw" ] && overhead_summary
	current_table
	exit 0
fi
if [ $report = 1 ]; then
	[ -s "$OUT/overhead.raw" ] && overhead_summary
	overhead_table
	progs_table
	bpf_table
	imm_table
	ctl_table
	exit 0
fi
bpf_built=1
build_tools || bpf_built=0
machine
# Part gpus: the per-GPU policy against node scope, host only. Quick mode
# asserts what must hold whatever the timing: with 8 or more offline
# processes over 8 GPUs, node scope names 8x the GPUs of gpu scope.
gpus_part() {
	local raw=$OUT/gpus.raw
	if [ ! -x "$OUT/build/gpu-scope" ]; then
		tap fail "gpus: gpu-scope built" "see $OUT/build.log"
		return
	fi
	"$OUT/build/gpu-scope" "$([ $quick = 1 ] && echo 50 || echo 5000)" > "$raw"
	if [ $quick = 1 ]; then
		if awk '$2 == "gpus-ratio" && $3 >= 8 && $5 != "8.00" { bad = 1 }
			$2 == "gpus-ratio" { n++ } END { exit bad || n != 3 }' "$raw"; then
			tap ok "gpus quick: node scope re-runs 8x the GPUs' runlists"
		else
			tap fail "gpus quick: node/gpu GPU ratio" "$(tr '\n' ';' < "$raw")"
		fi
	else
		echo
		echo "== per-GPU against node scope (bench/gpu-scope; N offline over 8 GPUs)"
		awk '$2 == "gpus" { printf "  N=%-3s %-4s %7s ns/busy %5s ioctls %6s queues %4s GPUs per toggle\n", $3, $4, $5, $6, $7, $8 }
			$2 == "gpus-ratio" { printf "  N=%-3s node/gpu: ioctls %sx, GPUs %sx, decision time %sx\n", $3, $4, $5, $6 }' "$raw"
	fi
}

# The launch detector on the host: its table, or in quick mode a TAP
# line (ran, the probe counts matched; no timing threshold).
detect_part() {
	if ! scripts/rocr.sh path hiplibdir >/dev/null 2>&1; then
		tap skip "detect" "HIP runtime not cached (scripts/setup.sh)"
		return
	fi
	if bench/detect.sh $([ $quick = 1 ] && echo --quick) \
		> "$OUT/detect.txt" 2>&1; then
		# an if, not "[ ] && tap": as the function's last command a
		# false test would end the full run under set -e
		if [ $quick = 1 ]; then tap ok "detect: probed, not-online and unprobed rates"; fi
	else
		tap fail "detect" "$(tail -n1 "$OUT/detect.txt")"
	fi
}

# What a launch probe costs: traps per burst, arming at 100 and 1,000
# edges/s (bench/detect-cost.sh; docs/arbiter.md). Its table, or in quick
# mode a TAP line (ran; one trap per probed call, no timing threshold).
dcost_part() {
	if ! scripts/rocr.sh path hiplibdir >/dev/null 2>&1; then
		tap skip "dcost" "HIP runtime not cached (scripts/setup.sh)"
		return
	fi
	if bench/detect-cost.sh $([ $quick = 1 ] && echo --quick) \
		> "$OUT/detect-cost.txt" 2>&1; then
		if [ $quick = 1 ]; then tap ok "dcost: one trap per probed launch, arming cases ran"; fi
	else
		tap fail "dcost" "$(tail -n1 "$OUT/detect-cost.txt")"
	fi
}

vm_parts=()
for p in "${parts[@]}"; do
	case $p in
	gpus) gpus_part ;;
	overhead|progs|imm) vm_parts+=("$p") ;;
	ctl) vm_parts+=("$p"); ctl_host ;;
	bpf) bpf_part ;;
	detect) detect_part ;;
	dcost) dcost_part ;;
	arbiter) [ $quick = 1 ] && vm_parts+=("$p") ;;
	# a second boot, with the HIP disk, costs more than quick mode's budget
	edge) [ $quick = 0 ] || tap skip "edge" "full mode only (its own boot with the HIP disk)" ;;
	esac
done
[ ${#vm_parts[@]} -eq 0 ] || vm_boot "${vm_parts[@]}"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
if [ $quick = 1 ]; then
	echo "1..$tapn"
else
	echo
	echo "== gpreempt benchmarks ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	sed 's/^/  /' "$OUT/machine.txt"
	overhead_table
	bpf_table
	imm_table
	ctl_table
	if [ -s "$OUT/detect.txt" ]; then
		echo
		grep -A5 '^# launch detector' "$OUT/detect.txt"
	fi
	if [ -s "$OUT/detect-cost.txt" ]; then
		echo
		cat "$OUT/detect-cost.txt"
	fi
	if [[ " ${parts[*]} " == *" arbiter "* ]]; then
		echo
		bench/arbiter.sh || status=1
	fi
	if [[ " ${parts[*]} " == *" edge "* ]]; then
		echo
		bench/edge.sh || status=1
	fi
fi
exit $status
