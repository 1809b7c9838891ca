#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz the daemon's socket protocol parsers (tests/fuzz/fuzz_proto.c)
# with libFuzzer + ASan/UBSan for a bounded time and print TAP.
#
#   tests/fuzz/run.sh [SECONDS]      default 20 (FUZZ_SECONDS)
#
# Needs clang and Debian's libclang-rt-<ver>-dev (the fuzzer runtime).
# New inputs go to a scratch dir; tests/fuzz/corpus/ is only read. A crash
# leaves its reproducer in $OUTPUT/fuzz/ and fails the test; replay it
# with: $OUTPUT/fuzz/fuzz_proto CRASH-FILE
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
OUT=${OUTPUT:-.output}/fuzz
secs=${1:-${FUZZ_SECONDS:-20}}
CLANG=${CLANG:-clang}
bin=$OUT/fuzz_proto
srcs="tests/fuzz/fuzz_proto.c user/proto/proto.c user/kfd/kfd.c user/base/util.c user/base/err.c user/proto/proto_fmt.c user/proto/proto_reply.c"

echo "1..1"
mkdir -p "$OUT"
if ! command -v "$CLANG" >/dev/null; then
	echo "ok 1 - fuzz proto # SKIP no $CLANG"
	exit 0
fi
# Probe the runtime first so a missing package is a skip, not a failure.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ return 0; }' > "$probe/p.c"
if ! "$CLANG" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
	echo "ok 1 - fuzz proto # SKIP $CLANG has no libFuzzer runtime" \
	     "(apt-get install libclang-rt-14-dev)"
	exit 0
fi
# shellcheck disable=SC2086
if ! "$CLANG" -g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Werror \
	-Wno-unused-parameter -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Iuser/base -Iuser/kfd -Iuser/session \
	-Iuser/proto $srcs -o "$bin"; then
	echo "not ok 1 - fuzz proto: the fuzz target does not build"
	exit 1
fi
scratch=$probe/corpus
mkdir -p "$scratch"
log=$OUT/fuzz_proto.log
# -max_len covers the longest legal request and a multi-line reply.
"$bin" -max_total_time="$secs" -max_len=12000 -timeout=10 \
	-rss_limit_mb=1024 -artifact_prefix="$OUT/" -print_final_stats=1 \
	"$scratch" tests/fuzz/corpus >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc -eq 0 ]; then
	echo "ok 1 - fuzz proto (${runs:-?} inputs in ${secs} s, no crash)"
	exit 0
fi
grep -E 'ERROR|SUMMARY|Test unit written|assert' "$log" | head -20 |
	sed 's/^/# /'
echo "not ok 1 - fuzz proto: libFuzzer exited $rc (log: $log)"
exit 1
