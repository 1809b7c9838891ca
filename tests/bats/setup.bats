#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# scripts/setup.sh's two sets: the demo installs what the demo needs, the
# test command installs the rest (issue 22).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "the demo's set leaves the test-only packages out" {
	run -0 "$TOP/scripts/setup.sh" demo --list
	for p in prometheus python3-kubernetes lintian debhelper yamllint bats bpftrace; do
		! grep -qx "$p" <<< "$output" || { echo "demo installs $p"; false; }
	done
	for p in qemu-system-x86 clang libbpf-dev bpftool jq; do
		grep -qx "$p" <<< "$output"
	done
}

@test "the test set is the demo's and the rest" {
	run -0 "$TOP/scripts/setup.sh" demo --list
	demo=$output
	run -0 "$TOP/scripts/setup.sh" --list
	for p in $demo prometheus python3-kubernetes lintian debhelper yamllint bats; do
		grep -qx "$p" <<< "$output"
	done
}

@test "the README's two commands: demo.sh asks for the demo's set, test.sh for all" {
	grep -q '"$top/scripts/setup.sh" demo' "$TOP/scripts/demo.sh"
	grep -q '^"$top/scripts/setup.sh"$' "$TOP/scripts/test.sh"
	run -2 "$TOP/scripts/setup.sh" bogus
	[[ "$output" == *"usage:"* ]]
}
