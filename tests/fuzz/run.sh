#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz parsers of untrusted input with libFuzzer + ASan/UBSan for a
# bounded time each, and print TAP:
#   proto  the daemon's socket protocol (tests/fuzz/fuzz_proto.c)
#   maps   the launch detector's /proc/PID/maps reader (fuzz_maps.c)
#   elf    the launch detector's ELF reader (fuzz_elf.c)
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]   default 20 s (FUZZ_SECONDS)
#                                             each, every target
#
# Needs clang and Debian's libclang-rt-<ver>-dev (the fuzzer runtime).
# New inputs go to a scratch dir; the seeds (tests/fuzz/corpus/ for
# proto, tests/fuzz/corpus_TARGET/ for the others) are only read. A crash leaves its reproducer in $OUTPUT/fuzz/ and fails the
# test; replay it with: $OUTPUT/fuzz/fuzz_TARGET CRASH-FILE
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
OUT=${OUTPUT:-.output}/fuzz
secs=${1:-${FUZZ_SECONDS:-20}}
shift $(($# ? 1 : 0))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(proto maps elf)
CLANG=${CLANG:-clang}

# srcs TARGET: the sources linked into it; incs: its -I folders
srcs() {
	case $1 in
	proto) echo "user/proto/proto.c user/kfd/kfd.c user/base/util.c" \
		"user/base/err.c user/proto/proto_fmt.c user/proto/proto_reply.c" ;;
	maps | elf) echo "user/detect/detect_launch.c" \
		"user/detect/detect_elf.c user/detect/detect_libs.c" \
		"user/base/text.c" ;;
	esac
}
incs="-Iuser/base -Iuser/kfd -Iuser/session -Iuser/proto -Iuser/detect -Ibpf"

echo "1..${#targets[@]}"
mkdir -p "$OUT"
n=0
if ! command -v "$CLANG" >/dev/null; then
	for t in "${targets[@]}"; do
		echo "ok $((++n)) - fuzz $t # SKIP no $CLANG"
	done
	exit 0
fi
# Probe the runtime first so a missing package is a skip, not a failure.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ return 0; }' > "$probe/p.c"
if ! "$CLANG" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
	for t in "${targets[@]}"; do
		echo "ok $((++n)) - fuzz $t # SKIP $CLANG has no libFuzzer" \
		     "runtime (apt-get install libclang-rt-14-dev)"
	done
	exit 0
fi
fail=0
for t in "${targets[@]}"; do
	n=$((n + 1))
	bin=$OUT/fuzz_$t
	# shellcheck disable=SC2046,SC2086
	if ! "$CLANG" -g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Werror \
		-Wno-unused-parameter -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined $incs \
		"tests/fuzz/fuzz_$t.c" $(srcs "$t") -o "$bin"; then
		echo "not ok $n - fuzz $t: the fuzz target does not build"
		fail=1
		continue
	fi
	scratch=$probe/corpus.$t
	mkdir -p "$scratch"
	# seeds, only read: tests/fuzz/corpus (proto), corpus_TARGET
	seeds=(tests/fuzz/corpus)
	[ "$t" = proto ] || seeds=("tests/fuzz/corpus_$t")
	log=$OUT/fuzz_$t.log
	# -max_len: the longest legal request and a multi-line reply
	# (proto); maps lines past PATH_MAX; ELF headers and tables (elf)
	"$bin" -max_total_time="$secs" -max_len=12000 -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix="$OUT/$t-" \
		-print_final_stats=1 "$scratch" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1)
	if [ $rc -eq 0 ]; then
		echo "ok $n - fuzz $t (${runs:-?} inputs in ${secs} s," \
		     "${cov:-cov: ?} edges, no crash)"
		continue
	fi
	grep -E 'ERROR|SUMMARY|Test unit written|assert' "$log" | head -20 |
		sed 's/^/# /'
	echo "not ok $n - fuzz $t: libFuzzer exited $rc (log: $log)"
	fail=1
done
exit $fail
