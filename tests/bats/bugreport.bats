#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl bugreport on the host (no GPU, no KFD): one .tar.gz with
# the expected files, a daemon's state and log when one runs, and
# --redact removes a planted process command line from every file. The
# guest test with real KFD: tests/vm/39-ctl-bugreport.sh.

bats_require_minimum_version 1.5.0

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	[ "$(id -u)" = 0 ] || skip "needs root"
	D=$(mktemp -d /tmp/gpbr.XXXXXX)
	DPID= PPID_=
}

teardown() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$PPID_" ] && kill "$PPID_" 2>/dev/null
	rm -rf "$D"
	true
}

# A process named gpreempt-* whose command line carries a marker.
plant() {
	mkdir -p "$D/brsecret4242"
	ln -s "$(command -v sleep)" "$D/brsecret4242/gpreempt-plant"
	"$D/brsecret4242/gpreempt-plant" 600 &
	PPID_=$!
	for _ in $(seq 50); do
		grep -q brsecret4242 "/proc/$PPID_/cmdline" 2>/dev/null && return
		sleep 0.1
	done
}

load daemon_helper

@test "bugreport: one archive with the expected files, exit 0" {
	plant
	daemon_bg --socket "$D/s.sock"	# its log in $D/log
	run -0 "$CTL" bugreport -o "$D/br.tgz" --socket "$D/s.sock" \
		--daemon-log "$D/log"
	[[ "$output" == *"wrote $D/br.tgz"* ]]
	run -0 tar -tzf "$D/br.tgz"
	for f in MANIFEST check.txt versions.txt topology.txt snapshot.txt \
		 list.txt status.txt policy.txt daemon-log.txt \
		 daemon-journal.txt trace-queues.json kernel-log.txt \
		 processes.txt; do
		grep -qx "gpreempt-bugreport/$f" <<< "$output" ||
			{ echo "missing $f"; false; }
	done
	mkdir "$D/x" && tar -xzf "$D/br.tgz" -C "$D/x"
	B=$D/x/gpreempt-bugreport
	grep -q '^kfd_device ' "$B/check.txt"
	grep -q '(exit 4)' "$B/check.txt"	# no /dev/kfd here
	grep -q "^uname: Linux $(uname -r)" "$B/versions.txt"
	grep -q "listening on $D/s.sock" "$B/daemon-log.txt"
	grep -q '(exit 0)' "$B/status.txt"
	grep -q "no trace pinned" "$B/trace-queues.json"
	grep -q "^$PPID_ gpreempt-plant $D/brsecret4242/gpreempt-plant 600$" "$B/processes.txt"
	grep -q "processes.txt (" "$B/MANIFEST"
}

@test "bugreport --redact: the planted command line is in no file" {
	plant
	run -0 "$CTL" bugreport -o "$D/r.tgz" --redact
	mkdir "$D/x" && tar -xzf "$D/r.tgz" -C "$D/x"
	run grep -r brsecret4242 "$D/x"
	[ "$status" -eq 1 ]
	grep -q "^$PPID_ gpreempt-plant \[cmdline redacted\]$" \
		"$D/x/gpreempt-bugreport/processes.txt"
	grep -q 'command lines redacted' "$D/x/gpreempt-bugreport/MANIFEST"
}

@test "bugreport: an archive that cannot be written is exit 1, says so, leaves nothing" {
	run -1 "$CTL" bugreport -o "$D/no/such/dir/br.tgz"
	[[ "$output" == *"cannot create $D/no/such/dir/br.tgz"* ]]
	[[ "$output" == *"-o FILE"* ]]
	run -2 "$CTL" bugreport --bogus
	run -2 "$CTL" bugreport extra
}

@test "bugreport: default name in the current folder" {
	cd "$D"
	run -0 --separate-stderr "$CTL" bugreport
	f=$(ls gpreempt-bugreport-*.tar.gz)
	[ -s "$f" ]
	[[ "${lines[0]}" == "$f" ]]
}

@test "bugreport -o: created afresh, mode 0600; a symlink or a file another user planted is refused and left as it was (issue 31 N9)" {
	# another user's own folder (not sticky: the kernel's
	# protected_symlinks does not apply), where root writes the report
	local pub=$D/pub
	chmod 0755 "$D"
	mkdir -m 0755 "$pub"
	chown 65534:65534 "$pub"
	echo "root's file" > "$D/victim"
	# another user plants a symlink to one of root's files, and a file
	# of its own (it could read the report later)
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		ln -s "$D/victim" "$pub/link.tgz"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'umask 0; : > "$1"' - "$pub/planted.tgz"
	run -1 "$CTL" bugreport -o "$pub/link.tgz"
	[[ "$output" == *"cannot create $pub/link.tgz: File exists (a report never replaces a file or follows a symlink)"* ]]
	[ "$(cat "$D/victim")" = "root's file" ]
	[ -L "$pub/link.tgz" ]
	run -1 "$CTL" bugreport -o "$pub/planted.tgz"
	[ ! -s "$pub/planted.tgz" ]
	[ "$(stat -c %U "$pub/planted.tgz")" = nobody ]
	# a new file: root's, 0600, whatever the umask
	run -0 sh -c 'umask 0; exec "$1" bugreport -o "$2"' - "$CTL" "$pub/new.tgz"
	[ "$(stat -c %U:%a "$pub/new.tgz")" = root:600 ]
}
