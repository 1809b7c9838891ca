#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The doc-test and the path check can fail: each is run on planted bad
# input (a failing host block, an untagged shell block, a no-run without a
# reason, a fence without an info string; absolute paths of a build
# machine, ../ out of the tree) and on good input.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	W=$BATS_TEST_TMPDIR
}

@test "doctest: a good host block passes, other tags are only checked" {
	printf '%s\n' '# t' '```sh host' 'test -x ./gpreempt-ctl' './gpreempt-ctl --help > /dev/null' '```' \
		'```sh no-run: needs a GPU' 'sudo ./gpreempt-ctl suspend --pid 1' '```' \
		'```text' 'output' '```' > "$W/good.md"
	run -0 "$TOP/tests/doc/doctest.sh" --no-vm "$W/good.md"
	[[ "$output" == *"ok 1 - doc $W/good.md:6: not run # SKIP needs a GPU"* ]]
	[[ "$output" == *"ok 2 - doc $W/good.md:2 (host)"* ]]
}

@test "doctest: a failing command, bad tags and a bare fence each fail" {
	printf '%s\n' '```sh host' 'true' 'false' 'echo not reached' '```' \
		'```sh' 'ls' '```' \
		'```bash' 'ls' '```' \
		'```sh no-run:' 'ls' '```' \
		'```console' '$ ls' '```' \
		'```' 'ls' '```' > "$W/bad.md"
	run -1 "$TOP/tests/doc/doctest.sh" --no-vm "$W/bad.md"
	[[ "$output" == *"not ok"*"bad.md:6: shell block tagged \"sh\""* ]]
	[[ "$output" == *"not ok"*"bad.md:9: shell block tagged \"bash\""* ]]
	[[ "$output" == *"not ok"*"bad.md:12: shell block tagged \"sh no-run:\""* ]]
	[[ "$output" == *"not ok"*"bad.md:15: shell block tagged \"console\""* ]]
	[[ "$output" == *"not ok"*"bad.md:18: a fence without an info string"* ]]
	[[ "$output" == *"not ok"*"bad.md:1 (host): exit 1"* ]]
	[ "$(grep -c '^not ok' <<< "$output")" = 6 ]
}

@test "doctest: vm blocks are collected, and skipped with --no-vm" {
	printf '%s\n' '```sh vm' 'gpreempt-ctl check' '```' > "$W/vm.md"
	run -0 "$TOP/tests/doc/doctest.sh" --no-vm "$W/vm.md"
	[[ "$output" == *"ok 1 - doc $W/vm.md:1 (vm) # SKIP --no-vm"* ]]
}

# A scratch git tree with the lines given, for tests/doc/paths.sh.
tree_with() { # file-content...
	rm -rf "$W/t"
	mkdir -p "$W/t/docs"
	git -C "$W/t" init -q
	printf '%s\n' "$@" > "$W/t/docs/x.md"
}

@test "paths: system paths and in-tree ../ pass" {
	tree_with '/usr/sbin/gpreempt-ctl /sys/kernel/btf/amdgpu /dev/kfd' \
		'/var/cache/gpreempt/rocr/root /run/gpreempt/ctl.sock /tmp/x /etc/gpreempt' \
		'$BATS_TEST_DIRNAME/../../README.md, see ../README.md, [a](../docs/x.md)' \
		'make DESTDIR=$d/root install'
	run -0 "$TOP/tests/doc/paths.sh" "$W/t"
}

@test "paths: a planted absolute or escaping path fails, naming file and line" {
	# Spelled in pieces, so this file passes the check it tests.
	s=/ d=..
	for bad in "see ${s}work${s}shared/docs/arbiter-facts.md" "raw output in ${s}home${s}me/x" \
		"cp ${s}root${s}gpreempt/x ." "from $d${s}shared/docs" "link [f]($d/$d/outside.md)" \
		"path=\"${s}Users${s}me/gp\""; do
		tree_with 'fine line' "$bad"
		run -1 "$TOP/tests/doc/paths.sh" "$W/t"
		[[ "$output" == *"not ok 1"*"docs/x.md:2"* ]] || { echo "passed: $bad"; false; }
	done
}

@test "docs/benchmarks.md's current table is bench/run.sh --current on the stored run" {
	r=$TOP/bench/results/2026-11-26
	d=$W/bench
	mkdir -p "$d"
	zcat "$r/final-overhead.raw.gz" > "$d/overhead.raw"
	zcat "$r/final-ctl.raw.gz" > "$d/ctl.raw"
	cp "$r/machine-final.txt" "$d/machine.txt"
	BENCH_OUTPUT=$d "$TOP/bench/run.sh" --current > "$W/got"
	awk '/^Run: /,/request to SUSPEND ioctl, daemon/' "$TOP/docs/benchmarks.md" > "$W/want"
	[ "$(wc -l < "$W/want")" -ge 10 ]
	diff -u "$W/want" "$W/got"
}

@test "docs/arbiter.md's 8-GPU busy-to-suspended table is bench/arbiter.sh --gpus-report on the stored run" {
	d=$W/bench-gpus
	mkdir -p "$d"
	zcat "$TOP/bench/results/2026-11-26/arbiter-gpus-vm.raw.gz" > "$d/arb-vm.raw"
	BENCH_OUTPUT=$d "$TOP/bench/arbiter.sh" --gpus-report > "$W/got"
	awk '/^K    scope/,/^# K=64 gpu\/node/' "$TOP/docs/arbiter.md" > "$W/want"
	[ "$(wc -l < "$W/want")" -eq 10 ]
	diff -u "$W/want" "$W/got"
}
