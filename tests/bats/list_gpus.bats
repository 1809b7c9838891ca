#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `gpreempt-ctl list`'s per-GPU rows (issue 20), L1 on the host: the KFD
# process tree and topology are the STAND-IN fixtures in the kernel's
# formats (tests/unit/fixtures/topo: 8 MI300X cards; 10 processes, 45
# queues). Expected counts were taken from the fixture's gpuid files.

bats_require_minimum_version 1.5.0

setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	FIX=$BATS_TEST_DIRNAME/../unit/fixtures/topo/mi300x-8
}

@test "list: a GPUs table names each GPU from the topology, with queues and processes" {
	run -0 --separate-stderr "$CTL" list --kfd-proc "$FIX/proc" \
		--kfd-topology "$FIX"
	[[ "$output" == *"GPU "*"QUEUES"*"PROCS"* ]]
	echo "$output" | grep -Eq '^gpu_id 10001 node 1 pci 0000:0c:00\.0 renderD128 +8 +3$'
	echo "$output" | grep -Eq '^gpu_id 10008 node 8 pci 0000:7c:00\.0 renderD135 +5 +2$'
	[ "$(echo "$output" | grep -c '^gpu_id ')" -eq 8 ]
}

@test "list -j: one gpu object per GPU; queue rows carry the gpu_id to join on" {
	command -v jq >/dev/null || skip "no jq"
	run -0 --separate-stderr "$CTL" list -j --kfd-proc "$FIX/proc" \
		--kfd-topology "$FIX"
	echo "$output" | jq -se '[.[] | select(.type == "gpu")] | length == 8'
	echo "$output" | jq -se '[.[] | select(.type == "gpu" and .gpu_id == 10001)][0] | .node == 1 and .render_minor == 128 and .queues == 8 and .processes == 3 and (.name | startswith("gpu_id 10001 node 1 pci 0000:0c:00.0"))'
	# the queues the gpu objects count are the queue rows, by gpu_id
	echo "$output" | jq -se '([.[] | select(.type == "queue")] | group_by(.gpu_id) | map({key: (.[0].gpu_id | tostring), value: length}) | from_entries) as $q | [.[] | select(.type == "gpu") | .queues == $q[(.gpu_id | tostring)]] | all'
}

@test "list: a GPU the topology lacks is said so; --pid narrows the GPUs" {
	run -0 --separate-stderr "$CTL" list --pid 3105 --kfd-proc "$FIX/proc" \
		--kfd-topology "$BATS_TEST_TMPDIR"
	echo "$output" | grep -Eq '^gpu_id 10005 \(not in the topology\) +[0-9]+ +1$'
	[ "$(echo "$output" | grep -c '^gpu_id ')" -ge 1 ]
	! echo "$output" | grep -q '^gpu_id 10002 '
}
