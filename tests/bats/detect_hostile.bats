#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# L1: the launch detector reads what the online tenant controls (its
# /proc/PID/maps, the file it mapped): issue 31's N1-N3 on the host, with
# real files, real users, a real pty and the real daemon. A /proc fixture
# (FIX/PID/maps, FIX/PID/root -> /) stands in for a process where the
# test says so; the daemon tests use real processes.

bats_require_minimum_version 1.5.0

load detect_lib
load daemon_helper

setup() {
	detect_setup
	CTL=${GP_BIN:-$TOP/.output/bin}/gpreempt-ctl
	U= DPID= MNT= MP=
}

teardown() {
	[ -n "${DPID:-}" ] && kill -KILL "$DPID" 2>/dev/null
	[ -n "$U" ] && users_teardown "$U"
	if [ -n "${MNT:-}" ]; then
		# the tenant first (it maps a file there), then the server
		[ -n "${MP:-}" ] && kill -KILL "$MP" 2>/dev/null
		kill -KILL "$FUSEPID" 2>/dev/null
		wait "$FUSEPID" 2>/dev/null
		umount -l "$MNT" 2>/dev/null
	fi
	detect_teardown
}

# fixline PID LINE: the fixture's maps for PID is LINE
fixline() {
	mkdir -p "$W/fix/$1"
	[ -e "$W/fix/$1/root" ] || ln -s / "$W/fix/$1/root"
	printf '%s\n' "$2" > "$W/fix/$1/maps"
}

# devino FILE: "MM:mm INODE" of FILE as maps writes them (stat -L)
devino() {
	stat -L -c '%Hd:%Ld %i' "$1" |
		awk '{ split($1, a, ":"); printf "%02x:%02x %s", a[1], a[2], $2 }'
}

@test "detect N1: a maps line over 4 KiB whose tail forges an entry is one line, not two" {
	local head tail line
	# the tail names the real HIP library (its device and inode): cut
	# at 4,223 bytes (the old fixed buffer), it was scanned as mapped
	head='7f0000000000-7f0000100000 r-xp 00000000 08:01 5 /'
	tail="7f0000200000-7f0000300000 r-xp 00000000 $(devino "$HIP/libamdhip64.so.5") $HIP/libamdhip64.so.5"
	line=$head$(printf 'a%.0s' $(seq $((4223 - ${#head}))))$tail
	[ "${#line}" -gt 4300 ]
	fixline 20 "$line"
	run timeout 120 "$RUNNER" -x "$W/fix" -s 20 < /dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"scan":20,"ok":false'* ]]
	[[ "$output" != *'"nlaunch":1'* ]]
	# the whole line is one mapping, whose path is too long to open
	[[ "$output" == *'has a path too long to open'* ]]
}

@test "detect N1: a FIFO or a device that maps names is never opened for reading: the scan does not wait" {
	mkdir -p "$W/lib"
	mkfifo "$W/lib/libamdhip64.so.7"
	ln -s /dev/null "$W/lib/libamdhip64.so.8"
	fixline 21 "7f0000000000-7f0000100000 r-xp 00000000 $(devino "$W/lib/libamdhip64.so.7") $W/lib/libamdhip64.so.7"
	fixline 22 "7f0000000000-7f0000100000 r-xp 00000000 $(devino "$W/lib/libamdhip64.so.8") $W/lib/libamdhip64.so.8"
	# the timeout only turns the old wait on the FIFO into a failure
	run timeout 120 "$RUNNER" -x "$W/fix" -s 21 -s 22 < /dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"scan":21,"ok":false'*'libamdhip64.so.7 is not a regular file (not read)'* ]]
	[[ "$output" == *'"scan":22,"ok":false'*'libamdhip64.so.8 is not a regular file (not read)'* ]]
}

@test "daemon N1: under setsid, a tenant's forged maps entry naming its pty gives the daemon no controlling terminal, and its ^C does not stop it" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	daemon_setup
	U=gpn1u$$
	users_setup n1 "gpn1g$$" "$U"
	mkdir "$D/u" && chown "$U" "$D/u"
	as "$U" /usr/bin/python3 "$BATS_TEST_DIRNAME/forge_maps.py" \
		"$D/u" "$D/u/forged" "$D/u/go" 2> "$D/forge.err" &
	wait_for "$D/u/forged" || { cat "$D/forge.err"; false; }
	local fp
	fp=$(head -n1 "$D/u/forged")
	# a session leader with no terminal, as systemd starts it
	setsid "$CTL" daemon -s "$D/s.sock" --ready "$D/d.ready" -v \
		--detect launch 2> "$D/d.log" &
	DPID=$!
	wait_for "$D/d.ready"
	[ "$(ps -o sid= -p "$DPID" | tr -d ' ')" = "$DPID" ]
	"$CTL" daemon -s "$D/s.sock" --send "classify pid=$fp class=online"
	wait_for "$D/d.log" "launches of pid $fp: not watched"
	cat "$D/d.log"
	# field 7 of stat: the controlling terminal (0: none)
	[ "$(awk '{ print $7 }' "/proc/$DPID/stat")" = 0 ]
	# the attacker types ^C on its pty: nothing reaches the daemon
	touch "$D/u/go"
	wait_for "$D/u/forged" typed
	"$CTL" daemon -s "$D/s.sock" --send status | grep -qx ok
	kill -0 "$DPID"
	! grep -q "Interrupt" "$D/d.log"
}

@test "daemon N1: started as a session leader with a terminal (setsid -c on a pty), it gives the terminal up at start" {
	command -v script >/dev/null || skip "no script(1)"
	daemon_setup
	# script(1) runs the line on a new pty; setsid -c makes the daemon
	# a session leader whose controlling terminal is that pty (stdin)
	cat > "$W/ctty.sh" <<-EOF
	#!/bin/bash
	setsid -c "$CTL" daemon -s "$W/c.sock" --ready "$W/c.ready" <&2 2> "$W/c.log" &
	for _ in \$(seq $((WAIT_S * 10))); do
		[ -s "$W/c.ready" ] && break
		sleep 0.1
	done
	p=\$(cat "$W/c.ready")
	echo "sid=\$(ps -o sid= -p \$p | tr -d ' ') pid=\$p tty=\$(awk '{ print \$7 }' /proc/\$p/stat)" > "$W/c.out"
	kill \$p
	wait
	EOF
	chmod +x "$W/ctty.sh"
	timeout $((WAIT_S * 2)) script -qec "$W/ctty.sh" /dev/null
	cat "$W/c.out" "$W/c.log"
	# (the ready file is gone with the daemon: its pid is in c.out)
	grep -Eqx 'sid=([0-9]+) pid=\1 tty=0' "$W/c.out"
}

@test "detect N2: a library truncated and rewritten while it is scanned never kills the reader (no mmap, no SIGBUS)" {
	local lib=$W/lib/libamdhip64.so.5 i args=()
	mkdir -p "$W/lib"
	cp "$HIP/libamdhip64.so.5" "$lib"
	fixline 30 "7f0000000000-7f0000100000 r-xp 00000000 $(devino "$lib") $lib"
	# the tenant: cut the file to 4 KiB and write it back, over and
	# over (the same inode: the identity check still passes)
	python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
data = os.pread(fd, os.fstat(fd).st_size, 0)
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    os.ftruncate(fd, 4096)
    os.pwrite(fd, data[4096:], 4096)
    time.sleep(0.001)
' "$lib" "$W/trunc.on" "$W/trunc.stop" &
	PIDS+=($!)
	wait_for "$W/trunc.on"
	for i in $(seq 2000); do args+=(-s 30); done
	# (the old reader died of SIGBUS: exit 135, within a few scans)
	run timeout 600 "$RUNNER" -x "$W/fix" "${args[@]}" < /dev/null
	touch "$W/trunc.stop"
	echo "$output" | sed "s/\"scan\":30,//" | sort | uniq -c | sort -rn | head -5
	[ "$status" -eq 0 ]
	# every scan answered: the entry points, or why not
	[ "$(grep -c '"scan":30,' <<< "$output")" -eq 2000 ]
}

@test "detect N3: a pathological ELF (60,000 program headers, 100 .dynsym sections sharing a table) is refused at once, not walked" {
	mkdir -p "$W/lib"
	python3 "$BATS_TEST_DIRNAME/bad_elf.py" "$W/lib/libamdhip64.so.6"
	python3 "$BATS_TEST_DIRNAME/bad_elf.py" "$W/lib/libamdhip64.so.9" 1 100 10000
	fixline 40 "7f0000000000-7f0000100000 r-xp 00000000 $(devino "$W/lib/libamdhip64.so.6") $W/lib/libamdhip64.so.6"
	fixline 41 "7f0000000000-7f0000100000 r-xp 00000000 $(devino "$W/lib/libamdhip64.so.9") $W/lib/libamdhip64.so.9"
	# (the old reader spun on it for minutes: the timeout turns that
	# into a failure, it is never reached)
	run timeout 120 "$RUNNER" -x "$W/fix" -s 40 -s 41 < /dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"scan":40,"ok":false'*'libamdhip64.so.6 has too many or malformed program or section headers'* ]]
	[[ "$output" == *'"scan":41,"ok":false'*'libamdhip64.so.9 has more than one .dynsym'* ]]
}

# tasks PID: threads of PID; kids PID: its child processes
tasks() { ls "/proc/$1/task" | wc -l; }
kids() { ps --ppid "$1" -o pid= | wc -l; }

@test "daemon N3: an online process mapping a pathological ELF: its scans end, no thread or process of the daemon is left behind" {
	daemon_setup
	mkdir -p "$W/lib"
	python3 "$BATS_TEST_DIRNAME/bad_elf.py" "$W/lib/libamdhip64.so.6"
	python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ)
open(sys.argv[2], "w").write("%d\n" % os.getpid())
time.sleep(3600)
' "$W/lib/libamdhip64.so.6" "$W/m.pid" &
	PIDS+=($!)
	wait_for "$W/m.pid"
	local mp t0 t1
	mp=$(cat "$W/m.pid")
	"$CTL" daemon -s "$W/s.sock" --ready "$W/d.ready" -v \
		--detect launch 2> "$W/d.log" &
	DPID=$!
	wait_for "$W/d.ready"
	t0=$(tasks "$DPID")
	"$CTL" daemon -s "$W/s.sock" --send "classify pid=$mp class=online"
	wait_for "$W/d.log" "launches of pid $mp: not watched"
	# a retry period (10 s) and more: the old daemon had left one
	# spinning thread per scan by then (a scan abandoned at 5 s, the
	# next one 10 s later). Passing does not depend on how long this is.
	sleep 12
	t1=$(tasks "$DPID")
	echo "threads $t0 -> $t1, children $(kids "$DPID")"
	[ "$t1" -le $((t0 + 1)) ]
	# a scan process in flight at most (a retry), none left over
	[ "$(kids "$DPID")" -le 1 ]
	cat "$W/d.log"
	grep -q "launches of pid $mp: not watched: $W/lib/libamdhip64.so.6 has too many or malformed program or section headers" "$W/d.log"
	! grep -q "took over 5 s" "$W/d.log"
}

@test "daemon N3: a scan that blocks (a FUSE library whose reads never end) is killed at its deadline: no thread or process left behind" {
	daemon_setup
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	local fuse t0 t1
	fuse=$(dirname "$RUNNER")/fuse-lib
	[ -x "$fuse" ] || skip "no fuse-lib at $fuse"
	MNT=$W/mnt
	mkdir "$MNT"
	"$fuse" "$MNT" &
	FUSEPID=$!
	wait_for "$MNT/1"
	# the tenant maps it (MAP_PRIVATE, no page touched: no read yet)
	python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4096, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
open(sys.argv[2], "w").write("%d\n" % os.getpid())
time.sleep(3600)
' "$MNT/1/libamdhip64.so.5" "$W/m.pid" &
	MP=$!
	wait_for "$W/m.pid"
	"$CTL" daemon -s "$W/s.sock" --ready "$W/d.ready" -v \
		--detect launch 2> "$W/d.log" &
	DPID=$!
	wait_for "$W/d.ready"
	t0=$(tasks "$DPID")
	"$CTL" daemon -s "$W/s.sock" --send "classify pid=$MP class=online"
	# two scans, each blocked in the read, each killed at 5 s
	wait_count "$W/d.log" "launches of pid $MP: not watched: reading its maps or library took over 5 s (the scan's process is killed)" 2
	cat "$W/d.log"
	t1=$(tasks "$DPID")
	echo "threads $t0 -> $t1, children $(kids "$DPID")"
	# (the old daemon kept one thread blocked per scan: t0 + 2 here)
	[ "$t1" -le $((t0 + 1)) ]
	# the two killed scan processes at most: a read that the FUSE
	# server has taken cannot be interrupted (the kernel waits for its
	# answer, D state), so they go when the server does; never more
	# than ARBL_MAX_JOBS (4) such, then no new scan starts
	[ "$(kids "$DPID")" -le 2 ]
	"$CTL" daemon -s "$W/s.sock" --send status | grep -qx ok
}

@test "daemon N5: a library path with escapes and CR reaches the log escaped" {
	daemon_setup
	local dir mp
	dir=$W/lib/$'\033[31mred\r\033[2Kgone'
	mkdir -p "$dir"
	echo text > "$dir/libamdhip64.so.5"
	python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4, prot=mmap.PROT_READ)
open(sys.argv[2], "w").write("%d\n" % os.getpid())
time.sleep(3600)
' "$dir/libamdhip64.so.5" "$W/m.pid" &
	PIDS+=($!)
	wait_for "$W/m.pid"
	mp=$(cat "$W/m.pid")
	"$CTL" daemon -s "$W/s.sock" --ready "$W/d.ready" -v \
		--detect launch 2> "$W/d.log" &
	DPID=$!
	wait_for "$W/d.ready"
	"$CTL" daemon -s "$W/s.sock" --send "classify pid=$mp class=online"
	wait_for "$W/d.log" "launches of pid $mp: not watched"
	cat -A "$W/d.log"
	# no ESC, no CR anywhere in the log; each became '?'
	! grep -q $'\033' "$W/d.log"
	! grep -q $'\r' "$W/d.log"
	grep -qF "launches of pid $mp: not watched: $W/lib/?[31mred??[2Kgone/libamdhip64.so.5 is not an ELF file" "$W/d.log"
}

@test "daemon N4: a process that keeps launching keeps its busy past --busy-max: launches are activity" {
	daemon_setup
	local p r0 r1 SOCK=$W/s.sock
	# an unmodified HIP process: one launch a round, rounds on demand
	hip srv -f launch -n 1 -k 1000000
	p=$(cat "$W/srv.pid")
	# the 60 s grace never ends a busy period here: only --busy-max could
	"$CTL" daemon -s "$SOCK" --ready "$W/d.ready" -v --detect launch \
		--launch-grace 60s --busy-max 3s \
		--offline uid=0,comm=no-such-job 2> "$W/d.log" &
	DPID=$!
	wait_for "$W/d.ready"
	"$CTL" daemon -s "$SOCK" --send "classify pid=$p class=online"
	wait_for "$W/d.log" "launches of pid $p: 13 probes"
	# the launcher: a round every 50 ms, until the test ends
	( while [ ! -e "$W/stop" ]; do touch "$W/srv.go"; sleep 0.05; done ) &
	PIDS+=($!)
	wait_for "$W/d.log" "launches of pid $p: busy"
	r0=$(grep -c '"step":"round"' "$W/srv.out")
	# three --busy-max periods of launching (the old daemon ended the
	# busy 3 s after its edge: online_busy 0, busy_expired 1)
	sleep 9
	run -0 "$CTL" policy -j -s "$SOCK"
	touch "$W/stop"
	r1=$(grep -c '"step":"round"' "$W/srv.out")
	echo "rounds $r0 -> $r1"
	echo "$output"
	# it launched all along
	[ "$r1" -gt $((r0 + 20)) ]
	grep -q '"online_busy":1' <<<"$output"
	grep -q '"busy_expired":0' <<<"$output"
	! grep -q "launches of pid $p: idle" "$W/d.log"
}

# hup TEXT: SIGHUP the daemon, then its log holds TEXT
hup() {
	kill -HUP "$DPID"
	wait_for "$W/d.log" "$1"
}

@test "daemon N11: a reload turns the launch detector on, changes its grace and turns it off; policy names every active detector" {
	daemon_setup
	local p SOCK=$W/s.sock
	hip srv -f launch -n 1 -k 3
	p=$(cat "$W/srv.pid")
	printf 'socket %s\ndetect notify\n' "$SOCK" > "$W/conf"
	"$CTL" daemon --config "$W/conf" --ready "$W/d.ready" -v 2> "$W/d.log" &
	DPID=$!
	wait_for "$W/d.ready"
	"$CTL" daemon -s "$SOCK" --send "classify pid=$p class=online"
	"$CTL" daemon -s "$SOCK" --send policy | grep -q '^arbiter .* detect=notify '
	# on: the detector starts and scans the online process
	printf 'socket %s\ndetect notify,launch\nlaunch-grace 60s\n' "$SOCK" > "$W/conf"
	hup "launches of pid $p: 13 probes"
	grep -q "arbiter: reloaded: .*detect notify,launch," "$W/d.log"
	"$CTL" daemon -s "$SOCK" --send policy | grep -q '^arbiter .* detect=notify,launch '
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q '"detect":"notify,launch"' <<<"$output"
	go srv
	wait_for "$W/d.log" "launches of pid $p: busy"
	# a new grace: the detector starts again with it (busy ends, rescan)
	printf 'socket %s\ndetect notify,launch\nlaunch-grace 30s\n' "$SOCK" > "$W/conf"
	hup "launch detection on: .*--launch-grace 30000 ms"
	wait_count "$W/d.log" "launches of pid $p: 13 probes" 2
	# off: its busy ends, its probes go
	printf 'socket %s\ndetect notify\n' "$SOCK" > "$W/conf"
	hup "arbiter: reloaded: .*detect notify,"
	"$CTL" daemon -s "$SOCK" --send policy | grep -q '^arbiter .* online_busy=0 detect=notify '
	cat "$W/d.log"
	[ "$(grep -c "launches of pid $p: idle (launch detection off)" "$W/d.log")" -ge 1 ]
}
