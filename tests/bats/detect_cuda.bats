#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# L1: the launch detector on libcuda, with real uprobes in real processes
# on the host. The library is a STAND-IN (tests/cuda/standin_launch.c,
# built by the Makefile as $OUTPUT/tests/standin-launch/libcuda.so.1: the
# CUDA driver API's launch and sync entry points by their real names,
# doing nothing), since there is no NVIDIA driver here or in CI; the
# program (tests/cuda/cuda-launch.c) dlopens it by its soname like an
# unmodified CUDA program. What is real: /proc/PID/maps, the ELF reader,
# the pid-scoped uprobes, the BPF edges and the daemon. The CUDA twin of
# detect.bats (HIP on trixie's libamdhip64). Needs root and the test
# tools; not HIP.

load detect_lib

setup() {
	TOP=$BATS_TEST_DIRNAME/../..
	TOOLS=${GP_BIN:+$GP_BIN/../tests}
	TOOLS=${TOOLS:-$TOP/.output/tests}
	RUNNER=$TOOLS/detect-run
	CUDA=$TOOLS/cuda-launch
	STANDIN=$TOOLS/standin-launch
	for f in "$RUNNER" "$CUDA" "$STANDIN/libcuda.so.1"; do
		[ -e "$f" ] || skip "no $f (make OUTPUT=.output tests)"
	done
	# as maps names it (no "..")
	STANDIN=$(realpath "$STANDIN")
	W=$(mktemp -d)
	PIDS=()
}
teardown() { detect_teardown; }

pid_of() { cat "$W/$1.pid"; }

# cuda NAME ARGS...: start cuda-launch as NAME on the stand-in, paused
# before its first round (go NAME: detect_lib.bash)
cuda() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$STANDIN "$CUDA" -r "$W/$name.ready" -g "$W/$name.go" \
		"$@" > "$W/$name.out" &
	PIDS+=($!)
	echo $! > "$W/$name.pid"
	echo "$*" > "$W/$name.args"
	wait_for "$W/$name.ready"
}

@test "detect cuda: 1000 launches and a sync make one busy and one idle edge (cuLaunchKernel, cuLaunchKernelEx; stand-in libcuda)" {
	cuda launch -f launch -n 1000 -s
	cuda ex -f ex -n 1000 -s
	detector -g 600000 -p "$(pid_of launch)" -p "$(pid_of ex)"
	# the stand-in, found through maps, read as CUDA: 8 launch entries,
	# 12 probes (4 sync uretprobes), none missing
	grep -q "\"scan\":$(pid_of launch),\"ok\":true,\"path\":\"$STANDIN/libcuda.so.1\",\"runtime\":\"CUDA\",\"nlaunch\":8,\"reason\":\"\"" "$W/det.out"
	grep -q "\"attach\":$(pid_of launch),\"probes\":12" "$W/det.out"
	grep -q "\"attach\":$(pid_of ex),\"probes\":12" "$W/det.out"
	go launch
	go ex
	cmd counts '"counts"'
	finish
	cat "$W/det.out"
	run grep -c '"edge"' "$W/det.out"
	[ "$output" -eq 4 ]
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of launch),\"entry\":\"cuLaunchKernel\",\"launches\":0" "$W/det.out"
	grep -q "\"edge\":\"idle\",\"pid\":$(pid_of launch),\"entry\":\"cuCtxSynchronize\",\"launches\":1000" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of ex),\"entry\":\"cuLaunchKernelEx\"" "$W/det.out"
	grep -q "\"edge\":\"idle\",\"pid\":$(pid_of ex),\"entry\":\"cuCtxSynchronize\",\"launches\":1000" "$W/det.out"
	# busy before idle for each
	for p in launch ex; do
		b=$(grep -n "\"edge\":\"busy\",\"pid\":$(pid_of $p)," "$W/det.out" | cut -d: -f1)
		i=$(grep -n "\"edge\":\"idle\",\"pid\":$(pid_of $p)," "$W/det.out" | cut -d: -f1)
		[ "$b" -lt "$i" ]
	done
	# every call ran the program: 2 x (1000 launches + 1 sync), no stray
	tail -n1 "$W/det.out" | grep -q '"hits":2002,"stray":0,"edges":4,"lost":0'
}

@test "detect cuda: every launch form (_ptsz, cooperative, graph) makes its busy edge; a process not online, mapping the same stand-in, has no breakpoint" {
	for f in launch_ptsz ex_ptsz coop coop_ptsz graph graph_ptsz; do
		cuda "$f" -f "$f" -n 10 -s
	done
	cuda offline -f launch -n 500 -s
	args=()
	for f in launch_ptsz ex_ptsz coop coop_ptsz graph graph_ptsz; do
		args+=(-p "$(pid_of $f)")
	done
	detector -g 600000 "${args[@]}"
	cmd "peek $(pid_of coop)" "\"peek\":$(pid_of coop),\"entry\":\"cuEventSynchronize\""
	cmd "peek $(pid_of offline)" "\"peek\":$(pid_of offline),\"entry\":\"cuEventSynchronize\""
	# int3 (0xcc = 204) at every probed entry of the online process only
	[ "$(grep -c "\"peek\":$(pid_of coop),.*\"byte\":204" "$W/det.out")" -eq 12 ]
	[ "$(grep -c "\"peek\":$(pid_of offline),.*\"byte\":204" "$W/det.out")" -eq 0 ]
	[ "$(grep -c "\"peek\":$(pid_of offline)," "$W/det.out")" -eq 12 ]
	go offline
	cmd counts '"counts"'
	grep -q '"counts":{"hits":0,"stray":0,"edges":0' "$W/det.out"
	for f in launch_ptsz ex_ptsz coop coop_ptsz graph graph_ptsz; do
		go "$f"
	done
	finish
	cat "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of launch_ptsz),\"entry\":\"cuLaunchKernel_ptsz\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of ex_ptsz),\"entry\":\"cuLaunchKernelEx_ptsz\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of coop),\"entry\":\"cuLaunchCooperativeKernel\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of coop_ptsz),\"entry\":\"cuLaunchCooperativeKernel_ptsz\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of graph),\"entry\":\"cuGraphLaunch\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of graph_ptsz),\"entry\":\"cuGraphLaunch_ptsz\"" "$W/det.out"
	[ "$(grep -c '"edge":"idle",.*"entry":"cuCtxSynchronize","launches":10' "$W/det.out")" -eq 6 ]
	# 6 x (10 launches + 1 sync); the offline process's 501 calls: none
	tail -n1 "$W/det.out" | grep -q '"hits":66,"stray":0,"edges":12,"lost":0'
}

@test "detect cuda: edges only; the grace and an outside idle start a new busy edge" {
	cuda step -f launch -n 200 -k 3
	detector -g 600000 -p "$(pid_of step)"
	go step	# round 1: one busy edge
	cmd "idle $(pid_of step)" '"idle":'"$(pid_of step)"',"ret":0'
	go step	# round 2: after the outside idle, a new edge
	go step	# round 3: still busy (no sync, within the 600 s grace)
	finish
	cat "$W/det.out"
	[ "$(grep -c '"edge":"busy"' "$W/det.out")" -eq 2 ]
	[ "$(grep -c '"edge":"idle"' "$W/det.out")" -eq 0 ]
	tail -n1 "$W/det.out" | grep -q '"hits":600,"stray":0,"edges":2'
}

# A /proc fixture: FIX/PID/maps names FILE..., FIX/PID/root is /.
fixture() { # pid file...
	local pid=$1 f a=0
	shift
	mkdir -p "$W/fix/$pid"
	ln -s / "$W/fix/$pid/root"
	for f in "$@"; do
		f=$(realpath "$f")	# maps names the file, not a link
		printf '7f%02x00000000-7f%02x00100000 r-xp 00000000 %s %s %s\n' \
			"$a" "$a" \
			"$(stat -c '%Hd:%Ld' "$f" | awk -F: '{printf "%02x:%02x", $1, $2}')" \
			"$(stat -c %i "$f")" "$f" >> "$W/fix/$pid/maps"
		a=$((a + 1))
	done
}

@test "detect cuda: a libcuda with no launch symbol, and no GPU runtime at all, are reported with a reason" {
	mkdir -p "$W/lib"
	# an ELF named libcuda.so.1 exporting none of the entries
	echo 'int cuInit(unsigned f) { return f; }' |
		${CC:-cc} -x c -shared -fPIC -o "$W/lib/libcuda.so.1" -
	fixture 20 "$W/lib/libcuda.so.1"
	mkdir -p "$W/fix/21"
	echo '7f0000000000-7f0000100000 r-xp 00000000 08:01 5 /usr/lib/libc.so.6' > "$W/fix/21/maps"
	# libcudart (the runtime API) is not the driver library
	cp "$STANDIN/libcuda.so.1" "$W/lib/libcudart.so.12"
	fixture 22 "$W/lib/libcudart.so.12"
	run "$RUNNER" -x "$W/fix" -s 20 -s 21 -s 22 < /dev/null
	echo "$output"
	[[ "$output" == *'"scan":20,"ok":false'*'none of the launch symbols in .dynsym: no launch entry point to probe (stripped, or not CUDA)'* ]]
	[[ "$output" == *'"scan":21,"ok":false'*'no GPU runtime library (libamdhip64 or libcuda) mapped'* ]]
	[[ "$output" == *'"scan":22,"ok":false'*'no GPU runtime library (libamdhip64 or libcuda) mapped'* ]]
}

@test "detect cuda: a process mapping both libcuda and libamdhip64 is probed in HIP's, and the reason says libcuda is not" {
	HIP=$("$TOP/scripts/rocr.sh" path hiplibdir 2>/dev/null) ||
		skip "HIP runtime not cached: run scripts/setup.sh"
	# libcuda first in maps: HIP's is still the one probed
	fixture 30 "$STANDIN/libcuda.so.1" "$HIP/libamdhip64.so.5"
	fixture 31 "$STANDIN/libcuda.so.1"
	run "$RUNNER" -x "$W/fix" -s 30 -s 31 < /dev/null
	echo "$output"
	[[ "$output" == *"\"scan\":30,\"ok\":true,\"path\":\"$(realpath "$HIP/libamdhip64.so.5")\""*'"runtime":"HIP"'*'CUDA library also mapped, not probed (one runtime per process: HIP'\''s)'* ]]
	[[ "$output" == *"\"scan\":31,\"ok\":true,\"path\":\"$STANDIN/libcuda.so.1\",\"runtime\":\"CUDA\",\"nlaunch\":8,\"reason\":\"\""* ]]
}

# pol JQ: `policy -j`'s records, as one array, hold JQ
pol() {
	"$CTL" policy -j -s "$SOCK" | jq -s -e "$1" > /dev/null
}

@test "daemon --detect launch: an unmodified CUDA program (stand-in libcuda) is busy from its first launch to its cuCtxSynchronize's return; online busy in between" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	command -v jq > /dev/null || skip "no jq"
	SOCK=$W/arb.sock
	# round 1: 1000 launches, no sync; round 2: 1000 more, then the
	# sync (-z); the 600 s grace cannot end the busy in between
	cuda srv -f launch -n 1000 -k 2 -z
	"$CTL" daemon -s "$SOCK" --ready "$W/d.ready" -v \
		--detect launch --launch-grace 600s 2> "$W/d.log" &
	PIDS+=($!)
	wait_for "$W/d.ready"
	grep -q "launch detection on: launch uprobes in the GPU runtime library (libamdhip64 or libcuda)" "$W/d.log"
	"$CTL" daemon -s "$SOCK" --send "classify pid=$(pid_of srv) class=online"
	# the log names the runtime probed
	wait_for "$W/d.log" "launches of pid $(pid_of srv): 12 probes in $STANDIN/libcuda.so.1 (CUDA)"
	pol '[.[] | select(.type == "arbiter")][0].online_busy == 0'
	go srv
	wait_for "$W/d.log" "launches of pid $(pid_of srv): busy (cuLaunchKernel)"
	pol '[.[] | select(.type == "arbiter")][0].online_busy == 1'
	! grep -q "launches of pid $(pid_of srv): idle" "$W/d.log"
	go srv
	wait_for "$W/d.log" "launches of pid $(pid_of srv): idle (sync returned)"
	pol '[.[] | select(.type == "arbiter")][0].online_busy == 0'
	cat "$W/d.log"
	[ "$(grep -c "launches of pid $(pid_of srv): busy" "$W/d.log")" -eq 1 ]
	[ "$(grep -c "launches of pid $(pid_of srv): idle" "$W/d.log")" -eq 1 ]
}
