#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The tenant socket and the operator's named admins (docs/reliability.md,
# "Trust model"), L1: the real daemon, real users created here, real PID
# namespaces (unshare) and a real cgroup v2 directory. Every peer of
# --tenant-socket is a tenant, uid 0 included, served only the tenant
# verbs; --admin-cgroup makes a uid-0 peer of another namespace admin by
# its cgroup, which comm and argv cannot fake. Nothing here needs KFD.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	HOLD= TARGET= CG=
	UA=gpt2a$$
	users_setup tsock "gpt2grp$$" "$UA"
	SOCK=$D/admin/ctl.sock
	TSOCK=$D/tenant/ctl.sock
}

teardown() {
	for p in $HOLD $TARGET $DPID; do kill -KILL "$p" 2>/dev/null; done
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		# back to the root cgroup, then remove ours
		while read -r p; do
			echo "$p" >"$(dirname "$CG")/cgroup.procs" 2>/dev/null
		done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null
	fi
	users_teardown "$UA"
}

load daemon_helper

# A sleeping process of user $UA (TARGET).
tenant_target() {
	setpriv --reuid="$UA" --regid="$GRP" --clear-groups sleep 300 &
	TARGET=$!
	for _ in $(seq 100); do
		[ "$(awk '$1 == "Uid:" { print $2 }' "/proc/$TARGET/status")" = \
			"$(id -u "$UA")" ] && return 0
		sleep 0.05
	done
	return 1
}

# A cgroup v2 directory of our own (CG), or skip.
make_cgroup() {
	local root
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || skip "no cgroup v2 mount"
	CG=$root/gpt2adm$$
	mkdir "$CG" || skip "cannot create a cgroup under $root"
	# the path the daemon reads in /proc/PID/cgroup
	CGPATH=$(sh -c "echo \$\$ > '$CG/cgroup.procs' && \
		sed -n 's/^0:://p' /proc/self/cgroup")
	[ "$CGPATH" = "/gpt2adm$$" ] || [[ "$CGPATH" == */gpt2adm$$ ]] ||
		skip "cgroup path $CGPATH"
}

# in_cgroup CMD...: CMD run from our cgroup
in_cgroup() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"
}

@test "tenant socket: with no --online selector a tenant's busy makes nothing online; refused, counted, nothing added; an admin's does (issue 31 N15, W1)" {
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--offline uid=0,comm=no-such-job
	tenant_target
	run -2 as "$UA" "$CTL" notify busy --pid "$TARGET" -s "$TSOCK"
	[[ "$output" == *"pid $TARGET (sleep) is none, not online: with no --online selector a tenant may not make a process online (the admin adds --online uid=$(id -u "$UA") or cgroup=PATH, or classifies it)"* ]]
	run -2 as "$UA" "$CTL" daemon --socket "$TSOCK" --send "busy pid=$TARGET"
	run -0 "$CTL" policy -j -s "$SOCK"
	echo "$output"
	! grep -q "\"type\":\"proc\",\"pid\":$TARGET," <<<"$output"
	grep -q '"online_busy":0' <<<"$output"
	grep -q '"refused":2' <<<"$output"
	grep -q "refused busy from pid [0-9]* uid $(id -u "$UA"): pid $TARGET (sleep) is none, not online" "$D/log"
	# the admin (root on the admin socket) may
	run -0 "$CTL" notify busy --pid "$TARGET" -s "$SOCK"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
	# and then the tenant's own busy/idle for it are taken
	run -0 as "$UA" "$CTL" notify busy --pid "$TARGET" -s "$TSOCK"
	run -0 as "$UA" "$CTL" notify idle --pid "$TARGET" -s "$TSOCK"
}

@test "tenant socket: a non-root tenant notifies for its own pid and sees its own status and policy only" {
	# the admin lets the tenant's uid become online (issue 31 N15)
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--offline uid=0,comm=no-such-job --online "uid=$(id -u "$UA")" \
		--online uid=0,comm=sleep
	# mode 0666 without --group, in its own root-owned directory
	[ "$(stat -c %a "$TSOCK")" = 666 ]
	[ "$(stat -c %U:%a "$D/tenant")" = root:755 ]
	[ "$(stat -c %a "$SOCK")" = 600 ]
	tenant_target
	# the admin socket keeps the user out; the tenant socket lets it in
	run -3 as "$UA" "$CTL" status -s "$SOCK"
	run -0 as "$UA" "$CTL" notify busy --pid "$TARGET" -s "$TSOCK"
	# root's online process: in root's policy, not in the tenant's
	sleep 300 &
	HOLD=$!
	run -0 "$CTL" notify busy --pid "$HOLD" -s "$SOCK"
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q "\"type\":\"proc\",\"pid\":$HOLD,\"class\":\"online\"" <<<"$output"
	grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
	run -0 as "$UA" "$CTL" policy -j -s "$TSOCK"
	grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
	! grep -q "\"pid\":$HOLD," <<<"$output"
	# $GPREEMPT_SOCKET names it, for gp_notify_open(NULL) and gpreempt-ctl
	run -0 as "$UA" env GPREEMPT_SOCKET="$TSOCK" "$CTL" notify idle \
		--pid "$TARGET"
	run -0 as "$UA" env GPREEMPT_SOCKET="$TSOCK" "$CTL" status -j
	[[ "$output" == *'"type":"daemon","pid":'* ]]
	# another user's process: refused, nothing added
	run -3 as "$UA" "$CTL" daemon --socket "$TSOCK" --send "busy pid=1"
	[[ "$output" == *"may not signal for pid 1 (uid 0)"* ]]
	run -0 "$CTL" policy -j -s "$SOCK"
	! grep -q '"type":"proc","pid":1,' <<<"$output"
}

@test "tenant socket: admin and session verbs are refused with the reason" {
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--offline uid=0,comm=no-such-job
	tenant_target
	for verb in suspend resume attach detach; do
		run -3 as "$UA" "$CTL" daemon --socket "$TSOCK" \
			--send "$verb pid=$TARGET"
		[[ "$output" == *"'$verb' is not served on the tenant socket, which serves status, busy, idle, policy; ask the node's admin (the admin socket $SOCK)"* ]] ||
			{ echo "$verb: $output"; false; }
	done
	run -3 as "$UA" "$CTL" daemon --socket "$TSOCK" \
		--send "watch pid=$TARGET queue=1 wptr=0x1000 rptr=0x1008"
	[[ "$output" == *"'watch' is for the node's admin, and nobody is admin on the tenant socket"* ]]
	# classify only where the operator allows it
	run -3 as "$UA" "$CTL" daemon --socket "$TSOCK" \
		--send "classify pid=$TARGET class=online"
	[[ "$output" == *"'classify' is not allowed on the tenant socket: the daemon runs without --tenant-classify"* ]]
	kill "$DPID"
	wait "$DPID" || true
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" --tenant-classify \
		--offline uid=0,comm=no-such-job
	run -0 as "$UA" "$CTL" daemon --socket "$TSOCK" \
		--send "classify pid=$TARGET class=online"
	# nothing was attached
	[ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$TARGET/status")" = 0 ]
}

@test "tenant socket: uid 0 on it is still a tenant" {
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--offline uid=0,comm=no-such-job
	sleep 300 &
	TARGET=$!
	# root on the admin socket gets past the rule (to the missing KFD) ...
	run -4 "$CTL" daemon --socket "$SOCK" --send "attach pid=$TARGET"
	# ... and on the tenant socket is refused as any tenant
	run -3 "$CTL" daemon --socket "$TSOCK" --send "attach pid=$TARGET"
	[[ "$output" == *"'attach' is not served on the tenant socket"* ]]
	run -3 "$CTL" daemon --socket "$TSOCK" \
		--send "watch pid=$TARGET queue=1 wptr=0x1000 rptr=0x1008"
	[[ "$output" == *"nobody is admin on the tenant socket"* ]]
	# a tenant's connection cap, not root's 64 (tenancy.bats)
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/hold_conns.py" "$TSOCK" 10 \
		"$D/hold" &
	HOLD=$!
	for _ in $(seq 600); do
		grep -qx done "$D/hold" 2>/dev/null && break
		sleep 0.1
	done
	[ "$(grep -c '^ok$' "$D/hold")" -eq 8 ]
	grep -q "^err 11 24 uid 0 has 8 connections open, the limit per user" \
		"$D/hold"
	# root on the admin socket still gets in
	run -0 "$CTL" daemon --socket "$SOCK" --send status
}

@test "tenant socket: refused in the admin socket's directory; a reload opens, moves and closes it" {
	run -2 "$CTL" daemon --socket "$SOCK" --tenant-socket "$D/admin/t.sock"
	[[ "$output" == *"--tenant-socket $D/admin/t.sock: its directory $D/admin holds the admin socket $SOCK too"* ]]
	run -2 "$CTL" daemon --socket "$SOCK" --tenant-socket "$D/t.sock"
	[[ "$output" == *"holds the admin socket"* ]]
	[ ! -e "$SOCK" ]
	# a directory others may write is refused, as the admin socket's
	mkdir -m 0777 "$D/open"
	run -2 "$CTL" daemon --socket "$SOCK" --tenant-socket "$D/open/ctl.sock"
	[[ "$output" == *"refusing the socket's"* ]]
	# reload: opened, moved, closed; the daemon keeps serving
	printf 'socket %s\noffline uid=0,comm=no-such-job\n' "$SOCK" >"$D/conf"
	daemon_bg --config "$D/conf"
	[ ! -e "$TSOCK" ]
	echo "tenant-socket $TSOCK" >>"$D/conf"
	kill -HUP "$DPID"
	for _ in $(seq 600); do [ -S "$TSOCK" ] && break; sleep 0.1; done
	run -0 "$CTL" daemon --socket "$TSOCK" --send status
	sed -i "s|^tenant-socket .*|tenant-socket $D/tenant2/ctl.sock|" "$D/conf"
	kill -HUP "$DPID"
	for _ in $(seq 600); do [ -S "$D/tenant2/ctl.sock" ] && break; sleep 0.1; done
	run -0 "$CTL" daemon --socket "$D/tenant2/ctl.sock" --send status
	[ ! -e "$TSOCK" ]
	sed -i '/^tenant-socket/d' "$D/conf"
	kill -HUP "$DPID"
	for _ in $(seq 600); do [ ! -e "$D/tenant2/ctl.sock" ] && break; sleep 0.1; done
	[ ! -e "$D/tenant2/ctl.sock" ]
	run -0 "$CTL" daemon --socket "$SOCK" --send status
	grep -q "reload: tenant socket $D/tenant2/ctl.sock closed" "$D/log"
}

@test "admin-cgroup: root of another namespace in that cgroup is admin; comm and argv cannot fake it" {
	command -v unshare >/dev/null || skip "no unshare"
	make_cgroup
	sleep 300 &
	TARGET=$!
	run -2 "$CTL" daemon --socket "$SOCK" --admin-cgroup relative/path
	[[ "$output" == *"--admin-cgroup: 'relative/path' is not a cgroup below the root"* ]]
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--admin-cgroup "$CGPATH/" --group "$GRP"
	grep -q "admins also: uid 0 in cgroup $CGPATH " "$D/log"
	# uid 0 in a new PID namespace, in the named cgroup: admin (past the
	# rule, on to the missing KFD)
	run -4 in_cgroup unshare --pid --fork --mount-proc "$CTL" daemon \
		--socket "$SOCK" --send "attach pid=$TARGET"
	# the same from another cgroup, its argv and comm naming the admin
	# cgroup: a tenant
	ln -s "$CTL" "$D/gpt2adm$$"
	run -3 unshare --pid --fork --mount-proc bash -c \
		'exec -a "$0" "$1" daemon --socket "$2" --send "attach pid=$3"' \
		"$CGPATH" "$D/gpt2adm$$" "$SOCK" "$TARGET"
	[[ "$output" == *"pid $TARGET is not in the caller's PID namespace"* ]]
	# in the cgroup, but not uid 0: a tenant
	run -3 in_cgroup unshare --pid --fork --mount-proc setpriv \
		--reuid="$UA" --regid="$GRP" --clear-groups "$CTL" daemon \
		--socket "$SOCK" --send "attach pid=$TARGET"
	# in the cgroup, uid 0, on the tenant socket: nobody is admin there
	run -3 in_cgroup unshare --pid --fork --mount-proc "$CTL" daemon \
		--socket "$TSOCK" --send "watch pid=$TARGET queue=1 wptr=0x1000 rptr=0x1008"
	[[ "$output" == *"nobody is admin on the tenant socket"* ]]
	[ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$TARGET/status")" = 0 ]
}

@test "tenant socket: a read-only mount of its directory (the pod's) connects but cannot replace it" {
	command -v unshare >/dev/null || skip "no unshare"
	daemon_bg --socket "$SOCK" --tenant-socket "$TSOCK" \
		--offline uid=0,comm=no-such-job --online "uid=$(id -u "$UA")"
	tenant_target
	mkdir "$D/pod"
	# the pod's view, as the kubelet mounts it: a read-only bind mount of
	# the host directory in a mount namespace of its own; root in it
	# cannot unlink or replace the socket, the tenant can still connect
	# (a connect needs write permission on the socket, not on the mount)
	run -0 unshare --mount --propagation private sh -c '
		mount --bind "$1/tenant" "$1/pod" &&
		mount -o remount,bind,ro "$1/pod" || exit 9
		rm -f "$1/pod/ctl.sock" 2>/dev/null && exit 8
		ln -s /tmp/x "$1/pod/other.sock" 2>/dev/null && exit 7
		exec setpriv --reuid="$2" --regid="$3" --clear-groups \
			env GPREEMPT_SOCKET="$1/pod/ctl.sock" \
			"$4" notify busy --pid "$5"' \
		sh "$D" "$UA" "$GRP" "$CTL" "$TARGET"
	[ -S "$TSOCK" ]
	run -0 "$CTL" policy -j -s "$SOCK"
	grep -q "\"type\":\"proc\",\"pid\":$TARGET,\"class\":\"online\"" <<<"$output"
}
