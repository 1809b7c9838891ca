#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The guests' HIP disk (scripts/hipdisk.sh) on the host: which test files
# ask for it, and that the cached image holds the HIP root's library,
# byte for byte, and is built once. The guest side (the mount, a HIP
# program on it) is tests/vm/68-detect-launch.sh's.

TOP=$BATS_TEST_DIRNAME/../..

setup() {
	W=$(mktemp -d)
}

teardown() {
	rm -rf "$W"
}

@test "hipdisk needs: only a file with the line '# gp-disk: hip' asks for the disk" {
	printf '# SPDX\n# gp-disk: hip\necho x\n' > "$W/a.sh"
	printf '# gp-disk: hip is mentioned here\n' > "$W/b.sh"
	printf 'echo y\n' > "$W/c.sh"
	"$TOP/scripts/hipdisk.sh" needs "$W/a.sh"
	"$TOP/scripts/hipdisk.sh" needs "$W/c.sh" "$W/a.sh"
	run "$TOP/scripts/hipdisk.sh" needs "$W/b.sh" "$W/c.sh"
	[ "$status" -ne 0 ]
	run "$TOP/scripts/hipdisk.sh" needs
	[ "$status" -ne 0 ]
	"$TOP/scripts/hipdisk.sh" needs "$TOP/tests/vm/68-detect-launch.sh"
	run "$TOP/scripts/hipdisk.sh" needs "$TOP/tests/vm/66-detect-wait.sh"
	[ "$status" -ne 0 ]
}

@test "hipdisk path: the image holds libamdhip64 as the HIP root has it, and a second call reuses it" {
	"$TOP/scripts/rocr.sh" path hiproot >/dev/null 2>&1 ||
		skip "HIP runtime not cached: run scripts/setup.sh"
	lib=$("$TOP/scripts/rocr.sh" path hiplibdir)/libamdhip64.so.5.7.31921
	[ -f "$lib" ] || skip "another libamdhip64 build in the cache"
	img=$("$TOP/scripts/hipdisk.sh" path)
	[ -s "$img" ]
	t=$(stat -c %Y "$img")
	[ "$("$TOP/scripts/hipdisk.sh" path)" = "$img" ]
	[ "$(stat -c %Y "$img")" = "$t" ]
	debugfs -R "dump /usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921 $W/lib" "$img" 2>/dev/null
	cmp "$lib" "$W/lib"
	# the soname link the guest's loader follows
	debugfs -R "stat /usr/lib/x86_64-linux-gnu/libamdhip64.so.5" "$img" 2>/dev/null |
		grep -q 'Fast link dest: "libamdhip64.so.5.7.31921"'
}
