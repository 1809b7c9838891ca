#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# L1: the launch detector with real uprobes on Debian trixie's
# libamdhip64 5.7.1 in real processes (no GPU: every launch returns 100,
# the probes still fire). Needs root, the HIP cache and the test tools.

bats_require_minimum_version 1.5.0
load detect_lib

setup() { detect_setup; }
teardown() { detect_teardown; }

pid_of() { cat "$W/$1.pid"; }

@test "detect: 1000 launches and a sync make one busy and one idle edge (hipModuleLaunchKernel, mangled hipExtModuleLaunchKernel)" {
	for f in module extmodule; do
		hip "$f" -f "$f" -n 1000 -s
	done
	detector -g 600000 -p "$(pid_of module)" -p "$(pid_of extmodule)"
	grep -q "\"attach\":$(pid_of module),\"probes\":13" "$W/det.out"
	go module
	go extmodule
	cmd counts '"counts"'
	finish
	cat "$W/det.out"
	run grep -c '"edge"' "$W/det.out"
	[ "$output" -eq 4 ]
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of module),\"entry\":\"hipModuleLaunchKernel\"" "$W/det.out"
	grep -q "\"edge\":\"idle\",\"pid\":$(pid_of module),\"entry\":\"hipDeviceSynchronize\",\"launches\":1000" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of extmodule),\"entry\":\"_Z24hipExtModuleLaunchKernel\"" "$W/det.out"
	grep -q "\"edge\":\"idle\",\"pid\":$(pid_of extmodule),\"entry\":\"hipDeviceSynchronize\",\"launches\":1000" "$W/det.out"
	# every call ran the program: 2 x (1000 launches + 1 sync), no stray
	tail -n1 "$W/det.out" | grep -q '"hits":2002,"stray":0,"edges":4,"lost":0'
}

@test "detect: a process that is not online, mapping the same file, has no breakpoint and runs no probe" {
	hip online -f launch -n 500 -s
	hip offline -f launch -n 500 -s
	run "$RUNNER" -s "$(pid_of online)" -s "$(pid_of offline)" < /dev/null
	# the same file (same path, same inode) in both
	[ "$(grep -c "\"path\":\"$HIP/libamdhip64.so.5" <<< "$output")" -eq 2 ]
	detector -g 600000 -p "$(pid_of online)"
	cmd "peek $(pid_of online)" "\"peek\":$(pid_of online),\"entry\":\"hipEventSynchronize\""
	cmd "peek $(pid_of offline)" "\"peek\":$(pid_of offline),\"entry\":\"hipEventSynchronize\""
	# int3 (0xcc = 204) at every probed entry of the online process only
	[ "$(grep -c "\"peek\":$(pid_of online),.*\"byte\":204" "$W/det.out")" -eq 13 ]
	[ "$(grep -c "\"peek\":$(pid_of offline),.*\"byte\":204" "$W/det.out")" -eq 0 ]
	[ "$(grep -c "\"peek\":$(pid_of offline)," "$W/det.out")" -eq 13 ]
	go offline
	cmd counts '"counts"'
	# the offline process's 501 calls ran nothing
	grep -q '"counts":{"hits":0,"stray":0,"edges":0' "$W/det.out"
	go online
	finish
	cat "$W/det.out"
	tail -n1 "$W/det.out" | grep -q '"hits":501,"stray":0,"edges":2,"lost":0'
}

@test "detect: a wheel-like copy (torch/lib/libamdhip64.so) is found through /proc/PID/maps and probed per file" {
	local wheel=$W/venv/lib/python3/site-packages/torch/lib
	mkdir -p "$wheel"
	cp "$HIP/libamdhip64.so.5" "$wheel/libamdhip64.so"
	hip torch -l "$wheel/libamdhip64.so" -f graph -n 300 -s
	hip system -f graph -n 300 -s
	detector -g 600000 -p "$(pid_of torch)" -p "$(pid_of system)"
	grep -q "\"scan\":$(pid_of torch),\"ok\":true,\"path\":\"$wheel/libamdhip64.so\"" "$W/det.out"
	grep -q "\"scan\":$(pid_of system),\"ok\":true,\"path\":\"$HIP/libamdhip64.so.5" "$W/det.out"
	go torch
	go system
	finish
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of torch),\"entry\":\"hipGraphLaunch\"" "$W/det.out"
	grep -q "\"edge\":\"busy\",\"pid\":$(pid_of system),\"entry\":\"hipGraphLaunch\"" "$W/det.out"
	tail -n1 "$W/det.out" | grep -q '"hits":602,"stray":0,"edges":4'
}

@test "detect: edges only; the grace and an outside idle start a new busy edge" {
	hip step -f launch -n 200 -k 3
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

# A /proc fixture: FIX/PID/maps names FILE, FIX/PID/root is /.
fixture() { # pid file
	mkdir -p "$W/fix/$1"
	ln -s / "$W/fix/$1/root"
	printf '7f0000000000-7f0000100000 r-xp 00000000 %s %s %s\n' \
		"$(stat -c '%Hd:%Ld' "$2" | awk -F: '{printf "%02x:%02x", $1, $2}')" \
		"$(stat -c %i "$2")" "$2" > "$W/fix/$1/maps"
}

@test "detect: unwatched libraries are reported per process with a reason" {
	mkdir -p "$W/lib"
	# an ELF with no .dynsym (static), one with no launch symbol (ROCr),
	# a non-ELF file, a file replaced since it was mapped, and no HIP
	echo 'int x;' | ${CC:-cc} -x c -c -o "$W/lib/libamdhip64.so.1" -
	cp "$LIBDIR/libhsa-runtime64.so.1" "$W/lib/libamdhip64.so.2"
	echo text > "$W/lib/libamdhip64.so.3"
	echo old > "$W/lib/libamdhip64.so.4"
	fixture 10 "$W/lib/libamdhip64.so.1"
	fixture 11 "$W/lib/libamdhip64.so.2"
	fixture 12 "$W/lib/libamdhip64.so.3"
	fixture 13 "$W/lib/libamdhip64.so.4"
	mv "$W/lib/libamdhip64.so.4" "$W/lib/old" && echo new > "$W/lib/libamdhip64.so.4"
	mkdir -p "$W/fix/14" && echo '7f0000000000-7f0000100000 r-xp 00000000 08:01 5 /usr/lib/libc.so.6' > "$W/fix/14/maps"
	run "$RUNNER" -x "$W/fix" -s 10 -s 11 -s 12 -s 13 -s 14 -s 15 < /dev/null
	echo "$output"
	[[ "$output" == *'"scan":10,"ok":false'*'has no .dynsym: no launch entry point'* ]]
	[[ "$output" == *'"scan":11,"ok":false'*'none of the launch symbols in .dynsym: no launch entry point to probe (stripped, or not HIP)'* ]]
	[[ "$output" == *'"scan":12,"ok":false'*'is not an ELF file'* ]]
	[[ "$output" == *'"scan":13,"ok":false'*'is no longer the mapped file (replaced): restart the process to watch it'* ]]
	[[ "$output" == *'"scan":14,"ok":false'*'no GPU runtime library (libamdhip64 or libcuda) mapped'* ]]
	[[ "$output" == *'"scan":15,"ok":false'*'cannot read /proc/15/maps'* ]]
}

@test "daemon --detect launch,queues: an unmodified HIP process's launches make it busy, the grace makes it idle" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	SOCK=$W/arb.sock
	# One launch per round: a busy period cannot split under a loaded
	# host's pause (a pause longer than the 1 s grace between two launches
	# of a round would make a second busy edge); edges, not launches, is
	# proven by the detector tests above with a 600 s grace.
	hip srv -f extmodule -n 1 -k 3	# the 3rd round never starts
	"$CTL" daemon -s "$SOCK" --ready "$W/d.ready" -v \
		--detect launch,queues --launch-grace 1s 2> "$W/d.log" &
	PIDS+=($!)
	wait_for "$W/d.ready"
	grep -q "launch detection on" "$W/d.log"
	# the WAIT_EVENTS hook's flavour (absent on a host with no amdgpu)
	# and, when absent, what ends a busy period instead
	grep -Eq "KFD WAIT_EVENTS hook: (fentry/fexit|kprobe/kretprobe|absent)" "$W/d.log"
	if grep -q "KFD WAIT_EVENTS hook: absent" "$W/d.log"; then
		grep -q "a busy period ends at a sync call's return or after --launch-grace" "$W/d.log"
	fi
	# no KFD here: the process is named online through the socket
	"$CTL" daemon -s "$SOCK" --send "classify pid=$(pid_of srv) class=online"
	wait_for "$W/d.log" "launches of pid $(pid_of srv): 13 probes in $HIP/libamdhip64.so.5"
	go srv
	wait_for "$W/d.log" "launches of pid $(pid_of srv): busy (_Z24hipExtModuleLaunchKernel)"
	wait_for "$W/d.log" "launches of pid $(pid_of srv): idle (no launch for --launch-grace)"
	go srv
	wait_count "$W/d.log" "launches of pid $(pid_of srv): idle (no launch for --launch-grace)" 2
	cat "$W/d.log"
	# two rounds, two busy periods, each ended by the grace
	[ "$(grep -c "launches of pid $(pid_of srv): busy" "$W/d.log")" -eq 2 ]
	[ "$(grep -c "launches of pid $(pid_of srv): idle" "$W/d.log")" -eq 2 ]
}

@test "daemon --detect: launch is a known signal; an unknown one is refused before start" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	run "$CTL" daemon -s "$W/x.sock" --detect launch,bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown signal 'bogus' (use notify, queues, launch"* ]]
	[ ! -e "$W/x.sock" ]
}

# kfdq PID QID GPU: a KFD sysfs queue directory (the kernel's layout:
# proc/PID/queues/QID/{gpuid,type,size}) in the --kfd-proc stand-in
kfdq() {
	mkdir -p "$W/kfd/$1/queues/$2"
	echo "$3" > "$W/kfd/$1/queues/$2/gpuid"
	echo 1 > "$W/kfd/$1/queues/$2/type"
	echo 1048576 > "$W/kfd/$1/queues/$2/size"
}

# gpu_busy ID: the busy periods the policy's gpu ID line shows (0 if none)
gpu_busy() {
	"$CTL" daemon -s "$SOCK" --send policy |
		sed -n "s/^gpu gpu_id=$1 .* busy_periods=\([0-9]*\) .*/\1/p" |
		grep . || echo 0
}

@test "daemon --detect launch --scope gpu: a launch edge is busy on the process's queues' GPUs, on every GPU when it has none" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	SOCK=$W/arb.sock
	# one launch per round (see above); the last round never starts
	hip a -f launch -n 1 -k 2
	hip b -f launch -n 1 -k 2
	hip c -f launch -n 1 -k 2
	# STAND-IN: KFD's sysfs process folders (no KFD here); the
	# processes, their libraries and the uprobes are real. a's queue is on
	# GPU 10001, b's on 10002, c has none.
	kfdq "$(pid_of a)" 0 10001
	kfdq "$(pid_of b)" 0 10002
	mkdir -p "$W/kfd/$(pid_of c)"
	"$CTL" daemon -s "$SOCK" --ready "$W/d.ready" -v --kfd-proc "$W/kfd" \
		--online uid=0,cmdline=hip-launch --scope gpu \
		--detect launch --launch-grace 1s 2> "$W/d.log" &
	PIDS+=($!)
	wait_for "$W/d.ready"
	for p in a b c; do
		wait_for "$W/d.log" "launches of pid $(pid_of "$p"): 13 probes in"
	done
	go a
	wait_for "$W/d.log" "launches of pid $(pid_of a): idle (no launch for --launch-grace)"
	[ "$(gpu_busy 10001)" -eq 1 ]
	[ "$(gpu_busy 10002)" -eq 0 ]
	go b
	wait_for "$W/d.log" "launches of pid $(pid_of b): idle (no launch for --launch-grace)"
	[ "$(gpu_busy 10001)" -eq 1 ]
	[ "$(gpu_busy 10002)" -eq 1 ]
	# no queue known: every GPU the policy knows
	go c
	wait_for "$W/d.log" "launches of pid $(pid_of c): idle (no launch for --launch-grace)"
	[ "$(gpu_busy 10001)" -eq 2 ]
	[ "$(gpu_busy 10002)" -eq 2 ]
}

@test "daemon --detect launch,notify: a notify 'idle scope=pid' does not end a launch-detected busy (typed source ids)" {
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	SOCK=$W/arb.sock
	# one launch, then the round waits: the 600 s grace keeps the launch
	# busy open for the whole test
	hip srv -f extmodule -n 1 -k 2
	"$CTL" daemon -s "$SOCK" --ready "$W/d.ready" -v \
		--detect launch,notify --launch-grace 600s 2> "$W/d.log" &
	PIDS+=($!)
	wait_for "$W/d.ready"
	P=$(pid_of srv)
	"$CTL" daemon -s "$SOCK" --send "classify pid=$P class=online"
	wait_for "$W/d.log" "launches of pid $P: 13 probes in"
	go srv
	wait_for "$W/d.log" "launches of pid $P: busy (_Z24hipExtModuleLaunchKernel)"
	run -0 "$CTL" daemon -s "$SOCK" --send policy
	[[ "$output" == *"online_busy=1"* ]]
	# notify's scope=pid source is another detector's: it has no busy
	# open for the pid, so its idle ends nothing
	run "$CTL" daemon -s "$SOCK" --send "idle pid=$P scope=pid"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no busy open for pid $P with scope=pid"* ]]
	run -0 "$CTL" daemon -s "$SOCK" --send policy
	[[ "$output" == *"online_busy=1"* ]]
	# and a notify busy/idle pair of scope=pid leaves the launch's busy
	run -0 "$CTL" daemon -s "$SOCK" --send "busy pid=$P scope=pid"
	run -0 "$CTL" daemon -s "$SOCK" --send "idle pid=$P scope=pid"
	run -0 "$CTL" daemon -s "$SOCK" --send policy
	[[ "$output" == *"online_busy=1"* ]]
}
