#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The operator's install path, as documented (docs/service.md): `make
# install` with its defaults and with PREFIX=/usr, run verbatim inside a
# private mount namespace whose /usr/local, /usr and /etc are scratch
# overlays (nothing reaches the host); the unit with each shipped
# drop-in through systemd-analyze; and the daemon's start-up lines that
# say which features its privileges disable (L1: real capabilities,
# real scheduler).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

load demo_path

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	# A copy of the tree (tracked and new files, no build output), built
	# with plain `make` as a user would, once for the tests below.
	export SRC=$BATS_FILE_TMPDIR/src
	mkdir -p "$SRC"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - -cf -) | tar -xf - -C "$SRC"
	make -s -C "$SRC" >/dev/null
}

setup() {
	[ "$(id -u)" = 0 ] || skip "needs root (mount namespace)"
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze (scripts/test.sh installs systemd)"
	S=$BATS_TEST_TMPDIR
}

# in_scratch SCRIPT: bash -c SCRIPT from $SRC in a mount namespace where
# /etc and /usr are overlays with scratch upper layers and /usr/local a
# fresh tmpfs: the documented commands run verbatim, the host is untouched.
in_scratch() {
	mkdir -p "$S/etc.up" "$S/etc.work" "$S/usr.up" "$S/usr.work"
	unshare -m bash -c "set -e
		mount --make-rprivate /
		mount -t overlay overlay -o lowerdir=/etc,upperdir=$S/etc.up,workdir=$S/etc.work /etc
		mount -t overlay overlay -o lowerdir=/usr,upperdir=$S/usr.up,workdir=$S/usr.work /usr
		mount -t tmpfs tmpfs /usr/local
		cd '$SRC'
		$1"
}

@test "make install with its defaults: /usr/local and /etc, a unit that verifies" {
	# Before the man-page fix this failed with help2man's error 127: the
	# page was made from a bare gpreempt-trace looked up in PATH.
	run -0 in_scratch 'make install >/dev/null
		find /usr/local /etc/gpreempt -type f | sort
		grep "^ExecStart=" /usr/local/lib/systemd/system/gpreempt.service
		systemd-analyze verify gpreempt.service
		make uninstall >/dev/null
		echo left: $(find /usr/local /etc/gpreempt -type f)'
	expected="/etc/gpreempt/gpreempt.conf
/usr/local/lib/systemd/system/gpreempt.service
/usr/local/sbin/gpreempt-ctl
/usr/local/sbin/gpreempt-trace
/usr/local/share/gpreempt/drop-ins/detect-queues.conf
/usr/local/share/gpreempt/drop-ins/realtime.conf
/usr/local/share/man/man8/gpreempt-ctl.8
/usr/local/share/man/man8/gpreempt-trace.8
ExecStart=/usr/local/sbin/gpreempt-ctl daemon --config /etc/gpreempt/gpreempt.conf
left: /etc/gpreempt/gpreempt.conf"
	diff <(echo "$expected") <(echo "$output")
}

@test "make install PREFIX=/usr: /usr/sbin, and the man pages render" {
	run -0 in_scratch 'make install PREFIX=/usr >/dev/null
		ls /usr/sbin/gpreempt-ctl /usr/sbin/gpreempt-trace
		MANWIDTH=80 man -l /usr/share/man/man8/gpreempt-ctl.8 | grep -m1 "^SYNOPSIS"
		systemd-analyze verify gpreempt.service && echo verified'
	[[ "$output" == *"/usr/sbin/gpreempt-ctl"* ]]
	[[ "$output" == *SYNOPSIS* ]]
	[[ "${lines[-1]}" == verified ]]
}

@test "README's 'Run as a service' block, verbatim, with only the demo's packages (no help2man)" {
	# The block as the README shows it (the line after **Run as a service**).
	blk=$(sed -n '/^\*\*Run as a service\*\*/,/^```$/p' "$TOP/README.md" |
	      sed -n '/^```sh/,/^```$/p' | sed '1d;$d')
	[[ "$blk" == *"sudo make install PREFIX=/usr"* ]]
	[[ "$blk" == *"sudo gpreempt-ctl policy"* ]]
	p=$(demo_path "$S/demo")
	# the tools it installs, found once installed (dangling links until then)
	ln -s /usr/sbin/gpreempt-ctl /usr/sbin/gpreempt-trace "$p/"
	# Stand-ins, named as such: no sudo on this host (the test is root);
	# sudoedit is an operator who writes an arbiter's classes into the
	# installed config; systemctl (no systemd as PID 1 here) starts the
	# installed unit's ExecStart= with its RuntimeDirectory= and waits
	# for the socket, as Type=notify would. /run is a scratch tmpfs.
	cat > "$S/standins.sh" <<'EOS'
sudo() { "$@"; }
sudoedit() {
	grep -q '^#offline' "$1" || { echo "sudoedit: $1 is not the shipped config" >&2; return 1; }
	printf 'offline uid=0,comm=no-such-job\n' >> "$1"
}
systemctl() {
	[ "$*" = "enable --now gpreempt" ] || { echo "stand-in systemctl: $*" >&2; return 1; }
	local u=/usr/lib/systemd/system/gpreempt.service cmd
	cmd=$(sed -n 's/^ExecStart=//p' "$u")
	mkdir -p $(sed -n 's/^RuntimeDirectory=//p' "$u" | sed 's|[^ ]*|/run/&|g')
	$cmd 2>/run/daemon.log &
	echo $! > /run/daemon.pid
	for _ in $(seq 600); do
		[ -S /run/gpreempt/ctl.sock ] && return 0
		sleep 0.1
	done
	cat /run/daemon.log; return 1
}
EOS
	printf '%s\n' "$blk" > "$S/block.sh"
	run -0 in_scratch "mount -t tmpfs tmpfs /run
		export PATH='$p'
		if command -v help2man; then exit 9; fi
		. '$S/standins.sh'
		set +e
		(set -e; . '$S/block.sh') > /run/out 2>&1; rc=\$?
		cat /run/out; echo rc=\$rc
		echo edited=\$(grep -c '^offline uid=0,comm=no-such-job' /etc/gpreempt/gpreempt.conf)
		grep -m1 listening /run/daemon.log
		kill \$(cat /run/daemon.pid)"
	echo "$output"
	[[ "$output" == *"rc=0"* ]]
	# the edited config made the daemon arbitrate (as shipped, policy
	# answers "the daemon does not arbitrate", exit 2)
	[[ "$output" == *"arbiter: idle"* ]]
	[[ "$output" == *"edited=1"* ]]
	[[ "$output" == *"listening on /run/gpreempt/ctl.sock"* ]]
}

# effective NAME DROPIN...: systemd-analyze's reading of the installed unit
# with the given drop-ins in /etc/systemd/system/gpreempt.service.d/.
effective() {
	local d=/etc/systemd/system/gpreempt.service.d f cmd
	cmd="make install >/dev/null; mkdir -p $d"
	for f in "$@"; do
		cmd="$cmd; cp /usr/local/share/gpreempt/drop-ins/$f $d/"
	done
	cmd="$cmd; systemd-analyze verify gpreempt.service && echo verify-clean
		systemd-analyze security --offline=yes gpreempt.service
		echo merged: \$(cat /usr/local/lib/systemd/system/gpreempt.service $d/*.conf 2>/dev/null |
			sed -n 's/^CapabilityBoundingSet=//p')"
	in_scratch "$cmd"
}

@test "unit as shipped: CAP_SYS_PTRACE only, no BPF, no realtime" {
	run -0 effective
	[[ "$output" == *verify-clean* ]]
	grep -q '✗ CapabilityBoundingSet=~CAP_SYS_PTRACE' <<< "$output"
	grep -q '✓ CapabilityBoundingSet=~CAP_BPF' <<< "$output"
	grep -q '✓ RestrictRealtime=' <<< "$output"
	grep -q '✓ ProtectKernelTunables=' <<< "$output"
}

@test "drop-in detect-queues.conf: CAP_BPF and CAP_PERFMON added, ptrace kept" {
	run -0 effective detect-queues.conf
	[[ "$output" == *verify-clean* ]]
	grep -q '✗ CapabilityBoundingSet=~CAP_SYS_PTRACE' <<< "$output"
	grep -q '✗ CapabilityBoundingSet=~CAP_BPF' <<< "$output"
	# /proc/kallsyms, which the tracer reads, needs this off
	grep -q '✗ ProtectKernelTunables=' <<< "$output"
	grep -q '✓ RestrictRealtime=' <<< "$output"
	# systemd-analyze rates no CAP_PERFMON: the merged lines say it
	grep -q '^merged: CAP_SYS_PTRACE CAP_BPF CAP_PERFMON$' <<< "$output"
}

@test "drop-in realtime.conf: realtime allowed, capabilities unchanged" {
	run -0 effective realtime.conf
	[[ "$output" == *verify-clean* ]]
	grep -q '✗ RestrictRealtime=' <<< "$output"
	grep -q '✓ CapabilityBoundingSet=~CAP_BPF' <<< "$output"
	grep -q '^merged: CAP_SYS_PTRACE$' <<< "$output"
}

@test "both drop-ins together verify clean" {
	run -0 effective detect-queues.conf realtime.conf
	[[ "$output" == *verify-clean* ]]
	grep -q '✗ RestrictRealtime=' <<< "$output"
	grep -q '✗ CapabilityBoundingSet=~CAP_BPF' <<< "$output"
}

# daemon_log [WRAPPER...]: start the daemon under WRAPPER on a socket of
# its own, wait for its ready file, stop it; its log in $output.
daemon_log() {
	local ctl=$SRC/gpreempt-ctl d=$S/d pid
	mkdir -p "$d"
	"$@" "$ctl" daemon --socket "$d/s.sock" --ready "$d/ready" 2>"$d/log" &
	pid=$!
	while [ ! -s "$d/ready" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid" || true
	output=$(cat "$d/log")
	echo "$output"
}

@test "daemon start: without CAP_BPF/CAP_PERFMON it says --detect queues is off, and why" {
	daemon_log setpriv --bounding-set=-bpf,-perfmon,-sys_admin -- >/dev/null
	echo "$output"
	[[ "$output" == *"privileges: --detect queues off: no CAP_BPF and CAP_PERFMON"* ]]
	[[ "$output" == *"detect-queues.conf"* ]]
	[[ "$output" != *"suspend and resume off"* ]]
	# no tracer, so no word on its wakeups
	[[ "$output" != *"realtime wakeups off"* ]]
}

@test "daemon start: without CAP_SYS_PTRACE it says suspend and resume are off" {
	daemon_log setpriv --bounding-set=-sys_ptrace -- >/dev/null
	echo "$output"
	[[ "$output" == *"privileges: suspend and resume off: no CAP_SYS_PTRACE"* ]]
}

@test "daemon start: root under SCHED_OTHER is told of realtime; under SCHED_FIFO not" {
	daemon_log env >/dev/null
	echo "$output"
	[[ "$output" != *"--detect queues off"* ]]
	[[ "$output" == *"privileges: realtime wakeups off"* ]]
	daemon_log chrt -f 10 >/dev/null
	echo "$output"
	[[ "$output" != *"realtime wakeups off"* ]]
}
