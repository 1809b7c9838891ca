#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The doorbell probe against the launch probe, per call, in the 6.12
# guest (docs/arbiter.md, "Doorbell probe, not chosen"). Not on the host:
# hsa_signal_store_screlease needs a signal, a signal needs hsa_init(),
# and hsa_init() needs /dev/kfd, which only the guest has (with the CPU
# agent alone). Each program runs three rounds of N calls: unprobed, with
# a uprobe on the call, unprobed again; the figure is the probed round's
# time per call and its ratio to the mean of the two unprobed rounds of
# the same process, in the same run:
#   store   bench/rocr-store: hsa_signal_store_screlease in trixie's
#           libhsa-runtime64 6.1.2 (the doorbell ring's entry point)
#   launch  tests/rocr/hip-launch: hipLaunchKernel in trixie's
#           libamdhip64 5.7.1 (the launch probe's entry point)
# The probe is a tracefs uprobe event: the trap the detector's pid-scoped
# BPF uprobe takes, with the trace ring's handler instead of a BPF one.
# Under QEMU/TCG a trap costs far more than on hardware: compare the two
# rows with each other, not with a real node.
#   bench/doorbell.sh            (BENCH_DOORBELL_N calls per round, 20000)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
OUT=$(realpath -m "${BENCH_OUTPUT:-.output/bench}")
N=${BENCH_DOORBELL_N:-20000}
LIBDIR=$(scripts/rocr.sh path libdir)
HIPDIR=$(scripts/rocr.sh path hiplibdir)
mkdir -p "$OUT/build"
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-isystem "$(scripts/rocr.sh path include)" \
	-o "$OUT/build/rocr-store" bench/rocr-store.c -ldl

# The file offset of a dynamic symbol (what a uprobe is placed at): its
# address moved from its PT_LOAD segment's address to that segment's
# file offset.
fileoff() { # lib symbol
	local v
	v=$(readelf -W --dyn-syms "$1" |
	    awk -v s="$2" '$4 == "FUNC" && ($8 == s || index($8, s "@") == 1) { print $2; exit }')
	[ -n "$v" ] || { echo "doorbell.sh: no $2 in $1" >&2; exit 1; }
	v=$((16#$v))
	local typ o a m
	while read -r typ o a _ _ m _; do
		[ "$typ" = LOAD ] || continue
		if [ "$v" -ge $((a)) ] && [ "$v" -lt $((a + m)) ]; then
			printf '0x%x\n' $((v - a + o))
			return
		fi
	done < <(readelf -lW "$1")
	echo "doorbell.sh: $2 of $1 in no PT_LOAD segment" >&2
	exit 1
}
STORE=$(fileoff "$(realpath "$LIBDIR/libhsa-runtime64.so.1")" hsa_signal_store_screlease)
LAUNCH=$(fileoff "$(realpath "$HIPDIR/libamdhip64.so.5")" hipLaunchKernel)

script=$OUT/build/doorbell-guest.sh
cat > "$script" <<GUEST
PATH=/gp/bin:/usr/bin:/bin:/sbin
T=/sys/kernel/tracing
N=$N
GUEST
cat >> "$script" <<'GUEST'
rounds() { # out n: until OUT holds n round lines (a stuck program ends the boot by silence)
	while [ "$(grep -c '"step":"round"' "$1")" -lt "$2" ]; do sleep 0.1; done
}
one() { # name lib offset cmd...
	name=$1 lib=$2 off=$3
	shift 3
	rm -f /tmp/$name.ready /tmp/$name.go
	"$@" -r /tmp/$name.ready -g /tmp/$name.go > /tmp/$name.out 2>&1 &
	pid=$!
	while [ ! -e /tmp/$name.ready ] && kill -0 $pid; do sleep 0.1; done
	echo "p:gpdb/$name $lib:$off" >> $T/uprobe_events || echo "BENCH skip $name uprobe_events refused"
	touch /tmp/$name.go; rounds /tmp/$name.out 1
	echo 1 > $T/events/gpdb/$name/enable
	touch /tmp/$name.go; rounds /tmp/$name.out 2
	echo 0 > $T/events/gpdb/$name/enable
	hits=$(grep -c " $name: " $T/trace)
	touch /tmp/$name.go; rounds /tmp/$name.out 3
	echo "-:gpdb/$name" >> $T/uprobe_events
	echo > $T/trace
	echo "BENCH $name hits $hits"
	grep '"step":"round"' /tmp/$name.out | sed "s/^/BENCH $name /"
	wait $pid
}
one store /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 @STORE@ rocr-store -n $N -k 3
one launch /hip/usr/lib/x86_64-linux-gnu/libamdhip64.so.5 @LAUNCH@ hip-launch -n $N -k 3
echo "BENCH end"
GUEST
sed -i "s/@STORE@/$STORE/; s/@LAUNCH@/$LAUNCH/" "$script"

log=$OUT/doorbell.log
VM_HIP=1 VM_EXTRA_BINS="$OUT/build/rocr-store" scripts/vm.sh run -s "$script" > "$log" 2>&1 || true
grep -q '^BENCH end' "$log" || { echo "doorbell.sh: the guest did not finish (see $log)" >&2; exit 1; }
# ns per call: rocr-store prints it, hip-launch prints seconds per round
awk -v n="$N" '
$1 == "BENCH" && $3 == "hits" { hits[$2] = $4 }
$1 == "BENCH" && $3 ~ /round/ {
	if (match($0, /"ns_per_call":[0-9.]+/)) x = substr($0, RSTART + 14, RLENGTH - 14)
	else if (match($0, /"seconds":[0-9.]+/)) x = substr($0, RSTART + 10, RLENGTH - 10) * 1e9 / n
	r[$2, ++k[$2]] = x
}
END {
	printf "%-7s %12s %12s %12s %10s %8s\n", "probe", "unprobed_ns", "probed_ns", "added_ns", "ratio", "hits"
	for (p in k) {
		base = (r[p, 1] + r[p, 3]) / 2
		printf "%-7s %12.1f %12.1f %12.1f %10.2f %8d\n", p, base, r[p, 2], r[p, 2] - base, r[p, 2] / base, hits[p]
	}
}' "$log"
