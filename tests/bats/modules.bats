#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# L1: the daemon as a host for modules (user/daemon/daemon_module.h),
# through the real socket: the arbiter's verbs reach it through its
# registration, and a verb's "who may call" is the daemon's to enforce.

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup --kfd-ok
	D=$(mktemp -d /tmp/gpmodules.XXXXXX)
	chmod 0755 "$D"	# let the tenant reach the socket
	SOCK=$D/ctl.sock
	DPID=
}

teardown() {
	daemon_teardown
	rm -rf "$D"
}

load daemon_helper

tenant() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "modules: an admin verb (watch) is refused to a tenant before its handler; a tenant verb (policy) answers" {
	daemon_bg --socket "$SOCK" --group nogroup --offline uid=0,comm=no-such-job \
		--detect notify,queues
	run -3 --separate-stderr tenant "$CTL" daemon --socket "$SOCK" \
		--send "watch pid=1 queue=0 wptr=0x10 rptr=0x20"
	[[ "$output" == "err 3 1 uid 65534 may not use 'watch': it is for the node's root"* ]]
	run -0 tenant "$CTL" daemon --socket "$SOCK" --send policy
	[[ "$output" == "arbiter state=idle"* ]]
	# root reaches the handler: its own checks answer
	run -8 "$CTL" daemon --socket "$SOCK" \
		--send "watch pid=999999 queue=0 wptr=0x10 rptr=0x20"
	[[ "$output" == *"no process 999999"* ]]
}

@test "modules: without arbitration options the arbiter's verbs still reach it and say so" {
	daemon_bg --socket "$SOCK"
	run -2 "$CTL" daemon --socket "$SOCK" --send policy
	[[ "$output" == *"does not arbitrate"* ]]
}
