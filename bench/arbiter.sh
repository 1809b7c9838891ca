#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Arbiter benchmark: notify "busy" -> every offline process suspended.
# In the VM (6.12, real KFD ioctls, kfd-exerciser stand-ins without queues)
# with K = 1, 4, 16 offline processes, and on the host with no offline
# process (socket + policy path only: no KFD here). Reports p50/p99 of the
# busy round trip (the daemon answers after the last SUSPEND ioctl) and
# the daemon's own busy-to-SUSPEND-issued histogram. Then, in the same
# boot, 1, 8 and 64 offline processes over 8 GPUs (stand-in placement,
# bench/guest-arbiter.sh): busy on one GPU -> the last SUSPEND ioctl
# returned, and SUSPEND ioctls per toggle, at --scope node (the baseline)
# and --scope gpu, with gpu/node ratios. First, on the host:
# the queue watcher's CPU cost per poll for 1, 16 and 128 queues of one
# process (bench/qwatch-cost), as a share of one CPU at --poll 200us.
#	bench/arbiter.sh [--quick]        (BENCH_ARB_N rounds, default 300)
#	bench/arbiter.sh --gpus-report    the 8-GPU table again, from the raw
#	                                  output of the last run
# Method and figures: docs/benchmarks-history.md ("Arbiter").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# absolute, so a BENCH_OUTPUT given from anywhere names the same place
OUT=$(realpath -m "${BENCH_OUTPUT:-$top/.output/bench}")
cd "$top"
N=${BENCH_ARB_N:-300}
[ "${1:-}" = --quick ] && N=20

. "$top/bench/pct.sh"

# 8 GPUs: busy on GPU 10001 -> ok (sent after the last SUSPEND ioctl
# returned), node scope (baseline) against gpu scope, same boot.
gpus_table() {
	local k sc p50 p99 io p50_node p50_gpu io_node io_gpu
	printf '%-4s %-5s %10s %10s %14s\n' K scope "p50 us" "p99 us" "ioctls/toggle"
	for k in 1 8 64; do
		for sc in node gpu; do
			read -r p50 p99 < <(awk -v k=$k -v s=$sc '$2 == "garb" && $3 == s && $4 == k { print $6 }' \
				"$OUT/arb-vm.raw" | pct)
			# a run that lost its count line prints "-" (read fails
			# on no input: under set -e the table would stop there)
			read -r io < <(awk -v k=$k -v s=$sc '$2 == "gioctl" && $3 == s && $4 == k && $6 > 0 {
				printf "%.2f\n", $5 / $6 }' "$OUT/arb-vm.raw") || io=
			printf '%-4s %-5s %10s %10s %14s\n' "$k" "$sc" "$p50" "$p99" "${io:--}"
			eval "p50_$sc=\$p50 io_$sc=\${io:-0}"
		done
		# shellcheck disable=SC2154 # set by the eval above
		awk -v k=$k -v pn="$p50_node" -v pg="$p50_gpu" -v ion="$io_node" -v iog="$io_gpu" 'BEGIN {
			if (pn + 0 > 0 && pg + 0 > 0 && ion + 0 > 0 && iog + 0 > 0)
				printf "# K=%s gpu/node: latency p50 %.2fx, ioctls %.2fx\n", k, pg / pn, iog / ion }'
	done
}
if [ "${1:-}" = --gpus-report ]; then	# the 8-GPU table of the last run
	gpus_table
	exit 0
fi
mkdir -p "$OUT/build"
CFLAGS="-g -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror -D_GNU_SOURCE"
make -s -f bench/bench.mk OUTPUT="$OUT/build" "$OUT/build/arb-lat"
make -s OUTPUT="$OUT/host" BINDIR="$OUT/host/bin" "$OUT/host/bin/gpreempt-ctl"
cc $CFLAGS -Iuser/detect bench/qwatch-cost.c user/detect/qwatch.c \
	user/detect/qsignal.c -o "$OUT/build/qwatch-cost"

echo "# queue watcher: CPU per poll (one process_vm_readv), host"
printf '%-10s %14s %18s\n' "queues" "ns per poll" "CPU % at 200us"
for q in 1 16 128; do
	"$OUT/build/qwatch-cost" $q $((N * 50)) |
		awk '{ printf "%-10s %14s %18s\n", $3, $4, $5 }'
done
# A busy process whose last packet runs (read == write, signal 1): the
# completion-signal test joins each poll (docs/arbiter.md).
echo "# same, last packet running: counters + completion-signal test"
for q in 1 16 128; do
	"$OUT/build/qwatch-cost" $q $((N * 50)) sig |
		awk '{ printf "%-10s %14s %18s\n", $3, $4, $5 }'
done

echo "# arbiter: host path (no offline process), $N rounds"
S=$(mktemp -u /tmp/arbh.XXXXXX.sock)
"$OUT/host/bin/gpreempt-ctl" daemon -s "$S" --offline uid=0,comm=no-such-job \
	--resume-after 0 2> "$OUT/arb-host.log" &
dpid=$!
for _ in $(seq 50); do [ -S "$S" ] && break; sleep 0.1; done
"$OUT/build/arb-lat" "$S" "$N" 0 200 > "$OUT/arb-host.raw"
kill "$dpid"; wait "$dpid" || true
read -r h50 h99 < <(awk '{ print $5 }' "$OUT/arb-host.raw" | pct)

echo "# arbiter: VM 6.12, K = 1 4 16, $N rounds each"
VM_OUTPUT=${VM_OUTPUT:-$OUT/vm} VM_EXTRA_BINS="$OUT/build/arb-lat" \
	VM_APPEND="gpb.n=$N ${VM_APPEND:-}" \
	scripts/vm.sh run -s bench/guest-arbiter.sh -k 6.12 2>&1 |
	tr -d '\r' > "$OUT/arb-vm.raw" || true
grep -q "^BENCH end arbiter" "$OUT/arb-vm.raw" ||
	{ echo "bench/arbiter.sh: the guest part did not finish: $OUT/arb-vm.raw" >&2; exit 1; }
printf '%-28s %10s %10s\n' "path" "p50 us" "p99 us"
printf '%-28s %10s %10s\n' "host, 0 offline (socket)" "$h50" "$h99"
for k in 1 4 16; do
	read -r p50 p99 < <(awk -v k=$k '$1 == "BENCH" && $2 == "arb" && $3 == k { print $5 }' \
		"$OUT/arb-vm.raw" | pct)
	printf '%-28s %10s %10s\n' "VM, $k offline: busy->ok" "$p50" "$p99"
done
# The daemon's own view: busy received -> each SUSPEND ioctl issued (mean).
for k in 1 4 16; do
	grep "^BENCH pol $k .*\"trigger_to_suspend\"" "$OUT/arb-vm.raw" |
		sed "s/^BENCH pol $k //" |
		jq -r --arg k "$k" '"# daemon, \($k) offline: busy -> SUSPEND issued, mean \(if .count > 0 then (.sum_ns / .count / 1000 | floor) else 0 end) us over \(.count) ioctls"' || true
done
gpus_table
grep "^BENCH info" "$OUT/arb-vm.raw" | sed 's/^BENCH info /# guest: /' || true
