# SPDX-License-Identifier: GPL-2.0
# gp-disk: hip
# The armed-while-idle launch detector (tests/detect/arm-run: user/
# detect/detect_armed.c, bpf/detect_arm.bpf.h; a prototype behind a
# flag) on this guest's kernel, on Debian trixie's libamdhip64 5.7.1
# under an unmodified program (hip-launch; no GPU, every call returns
# 100, the probes still fire). What it shows per kernel (6.1, 6.12, 7.x):
# tracefs uprobe events kept registered, armed and disarmed per process
# by opening and closing pid-scoped perf events (uprobe_apply), bound
# the traps of a burst of N launches (today's detector: N), and the
# first launch after idle still makes the busy edge. docs/arbiter.md,
# "Launch detection: what a trap costs and the levers".
. /gp/tests/vm/lib.sh

N=100000
LIB=/usr/lib/x86_64-linux-gnu/libamdhip64.so.5
if [ ! -e $LIB ] || [ ! -x /gp/bin/hip-launch ] || [ ! -x /gp/bin/arm-run ]; then
	gp_fail "detect armed: trixie's libamdhip64, hip-launch and arm-run in the guest" \
		"no HIP disk or no arm-run (scripts/hipdisk.sh, scripts/vm.sh build)"
	exit 0
fi
if [ ! -e /sys/kernel/tracing/uprobe_events ]; then
	gp_fail "detect armed: tracefs uprobe_events" "not in /sys/kernel/tracing"
	exit 0
fi
LIB=$(readlink -f $LIB)
A=""; H=""
cleanup() {
	exec 7>&- 2>/dev/null
	kill $A $H 2>/dev/null
	wait $A $H 2>/dev/null
}

rm -f /tmp/da.ready /tmp/da.go /tmp/ar.ready /tmp/da.cmd
# 4 rounds: the 4th never gets its go-ahead, so it stays alive
hip-launch -r /tmp/da.ready -g /tmp/da.go -f launch -n $N -k 4 > /tmp/da.out 2>&1 &
H=$!
if ! gp_wait_file /tmp/da.ready 60; then
	gp_fail "detect armed: hip-launch starts" "$(cat /tmp/da.out)"
	cleanup
	exit 0
fi
mkfifo /tmp/da.cmd
arm-run -p $H -l "$LIB" \
	-L hipLaunchKernel,hipLaunchKernel_spt,hipExtLaunchKernel,hipModuleLaunchKernel,hipGraphLaunch \
	-S hipDeviceSynchronize,hipStreamSynchronize -T /sys/kernel/tracing \
	-g 600000 -r /tmp/ar.ready < /tmp/da.cmd > /tmp/arm.out 2>&1 &
A=$!
exec 7> /tmp/da.cmd
if ! gp_wait_file /tmp/ar.ready 60; then
	gp_fail "detect armed: arm-run arms the process ($(uname -r))" "$(cat /tmp/arm.out)"
	cleanup
	exit 0
fi
gp_ok "detect armed: launch probes as tracefs events, armed in one process ($(uname -r))"

count() { grep -c "$1" /tmp/arm.out; }
waitn() { # PATTERN N
	i=0
	while [ "$(count "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt $((60 * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
}
ok=1
prev=0
for r in 1 2 3; do
	touch /tmp/da.go
	i=0
	while [ "$(grep -c '"step":"round"' /tmp/da.out)" -lt $r ]; do
		i=$((i + 1))
		[ $i -gt $((120 * 10 * GP_WAIT_SCALE)) ] && break
		sleep 0.1
	done
	echo counts >&7
	waitn '"counts"' $r || ok=0
	t=$(grep '"counts"' /tmp/arm.out | sed -n "${r}p" | sed -n 's/.*"traps":\([0-9]*\).*/\1/p')
	t=${t:-0}
	echo "round $r: traps $((t - prev)) of $N launches"
	[ $((t - prev)) -ge 1 ] && [ $((t - prev)) -lt $((N / 4)) ] || ok=0
	prev=$t
	waitn '"edge":"busy"' $r || ok=0
	echo idle >&7
	waitn '"idle":[0-9]*,"err":0' $r || ok=0
done
cleanup
last=$(grep '"counts"' /tmp/arm.out | tail -n1)
echo "GPINFO detect armed on $(uname -r): $last" > "$GP_RESULTS"
n="detect armed: 3 bursts of $N launches, idle between: a busy edge each, traps bounded ($(uname -r))"
if [ $ok = 1 ] && [ "$(count '"edge":"busy"')" -eq 3 ]; then
	gp_ok "$n"
else
	gp_fail "$n" "$last"
	gp_log /tmp/arm.out
	gp_log /tmp/da.out
fi
