#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `gpreempt-ctl snapshot` on the host (no GPU): its command line, exit
# codes, and NDJSON that jq accepts line by line, on the fixture roots
# tests/unit/fixtures/snapshot_root and snapshot_nogpu. The real KFD files
# are read in the VM (tests/vm/38-ctl-snapshot.sh).

bats_require_minimum_version 1.5.0

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	ROOT=$BATS_TEST_DIRNAME/../unit/fixtures/snapshot_root
	NOGPU=$BATS_TEST_DIRNAME/../unit/fixtures/snapshot_nogpu
}

@test "snapshot -j -v: every line is a JSON object jq parses, types as documented" {
	run -0 --separate-stderr "$CTL" snapshot -j -v --root "$ROOT"
	[ -z "$stderr" ]
	echo "$output" | jq -e -s 'length == 20 and all(type == "object")'
	echo "$output" | jq -e -s '[.[].type] | unique == ["gpu","hqd","hqd_node","mqd","process","queue","snapshot"]'
	# the raw words of the SDMA MQD: 128 hex words, as the kernel printed
	echo "$output" | jq -e -s '.[] | select(.type == "mqd" and .kind == "sdma") | (.raw | split(" ") | length) == 128'
}

@test "snapshot: global -j before the command works like -j after it" {
	run -0 "$CTL" -j snapshot --root "$ROOT"
	a=$output
	run -0 "$CTL" snapshot -j --root "$ROOT"
	[ "$a" = "$output" ]
}

@test "snapshot --help: exit 0, examples; --usage" {
	run -0 "$CTL" snapshot --help
	[[ "$output" == *"EXAMPLES:"* ]] && [[ "$output" == *"--root"* ]]
	run -0 "$CTL" snapshot --usage
	[[ "$output" == *"Usage: gpreempt-ctl snapshot"* ]]
	run -0 "$CTL" --help
	[[ "$output" == *"snapshot  every GPU, KFD process and queue"* ]]
}

@test "snapshot: bad input is exit 2 and says what" {
	run -2 --separate-stderr "$CTL" snapshot --root /nonexistent/dir
	[[ "$stderr" == *"cannot read root directory '/nonexistent/dir'"* ]]
	run -2 --separate-stderr "$CTL" snapshot extra
	[[ "$stderr" == *"unexpected argument 'extra'"* ]]
	run -2 --separate-stderr "$CTL" snapshot --bogus
	[ -z "$output" ]
}

@test "snapshot without KFD: exit 4, says to load amdgpu; -j adds an error object" {
	[ ! -e /sys/class/kfd/kfd/topology ] || skip "this host has KFD"
	run -4 --separate-stderr "$CTL" snapshot
	[[ "$stderr" == *"no KFD topology"*"modprobe amdgpu"* ]]
	run -4 --separate-stderr "$CTL" snapshot -j
	echo "$output" | jq -e -s '.[-1].type == "error" and .[-1].exit == 4'
}

@test "snapshot on a CPU-only root: exit 0, no GPU, the process, why no MQDs" {
	run -0 "$CTL" snapshot --root "$NOGPU"
	[[ "$output" == *"no GPU node"* ]]
	[[ "$output" == *"kfd-exerciser"* ]]
	[[ "$output" == *"MQDs: none: debugfs is not mounted"* ]]
}
