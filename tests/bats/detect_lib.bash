# SPDX-License-Identifier: GPL-2.0
# Helpers of detect.bats: real HIP processes (tests/rocr/hip-launch on
# trixie's libamdhip64 through trixie's loader) and the launch detector
# (tests/detect/detect-run) on real uprobes. Every wait is on a file or a
# line, bounded by WAIT_S (generous: the host is shared and noisy).

WAIT_S=${WAIT_S:-120}

detect_setup() {
	TOP=$BATS_TEST_DIRNAME/../..
	RUNNER=${GP_BIN:+$GP_BIN/../tests}
	RUNNER=${RUNNER:-$TOP/.output/tests}/detect-run
	[ -x "$RUNNER" ] || skip "no detect-run at $RUNNER (make OUTPUT=.output tests)"
	HIP=$("$TOP/scripts/rocr.sh" path hiplibdir 2>/dev/null) ||
		skip "HIP runtime not cached: run scripts/setup.sh"
	LIBDIR=$("$TOP/scripts/rocr.sh" path libdir)
	W=$(mktemp -d)
	"$TOP/scripts/rocr.sh" build-hip "$W"
	PIDS=()
}

detect_teardown() {
	local p
	[ -n "${CMDFD:-}" ] && exec {CMDFD}>&- 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$W"
}

# wait_for FILE [PATTERN]: FILE exists (and holds PATTERN)
wait_for() {
	local i
	for ((i = 0; i < WAIT_S * 10; i++)); do
		if [ -e "$1" ] && { [ -z "${2:-}" ] || grep -q -- "$2" "$1"; }; then
			return 0
		fi
		sleep 0.1
	done
	echo "timed out waiting for $1 ${2:-}" >&2
	return 1
}

# wait_count FILE PATTERN N: N lines of FILE hold PATTERN
wait_count() {
	local i
	for ((i = 0; i < WAIT_S * 10; i++)); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $3 x '$2' in $1" >&2
	return 1
}

# hip NAME ARGS...: start hip-launch as NAME, paused before its first round
# (go file $W/NAME.go); its pid in $W/NAME.pid once the library is loaded.
hip() {
	local name=$1
	shift
	"$LIBDIR/ld-linux-x86-64.so.2" --library-path "$HIP:$LIBDIR" \
		"$W/hip-launch" -r "$W/$name.ready" -g "$W/$name.go" "$@" \
		> "$W/$name.out" &
	PIDS+=($!)
	echo $! > "$W/$name.pid"
	echo "$*" > "$W/$name.args"
	wait_for "$W/$name.ready"
}

# go NAME: let NAME run one round (and its sync, with -s), wait for it
go() {
	local n i r y
	n=$(grep -c '"step":"round"' "$W/$1.out" || true)
	touch "$W/$1.go"
	for ((i = 0; i < WAIT_S * 10; i++)); do
		r=$(grep -c '"step":"round"' "$W/$1.out" || true)
		y=$(grep -c '"step":"sync"' "$W/$1.out" || true)
		if [ "$r" -gt "$n" ] &&
		   { [ "$y" -ge "$r" ] || ! grep -q -- -s "$W/$1.args"; }; then
			return 0
		fi
		sleep 0.1
	done
	echo "timed out waiting for $1's round" >&2
	return 1
}

# (tests pass -g 600000: a 600 s grace, so a loaded host that pauses a
# process between two launches cannot split one busy period in two)
# detector ARGS...: start detect-run, commands through fd CMDFD
detector() {
	mkfifo "$W/cmd"
	"$RUNNER" -r "$W/det.ready" "$@" < "$W/cmd" > "$W/det.out" &
	PIDS+=($!)
	DETPID=$!
	exec {CMDFD}> "$W/cmd"
	wait_for "$W/det.ready"
}

# cmd LINE PATTERN: send a command, wait for PATTERN in the output
cmd() {
	echo "$1" >&"$CMDFD"
	wait_for "$W/det.out" "$2"
}

# finish: end the detector's input; its final counts are the last line
finish() {
	exec {CMDFD}>&-
	CMDFD=
	wait "$DETPID"
}
