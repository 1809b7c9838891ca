#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's HIP programs (tests/l3/*.hip, which
# scripts/l3-colocate.sh compiles on the user's GPU node) compiled here
# with Debian trixie's hipcc from a private root (scripts/hipcc.sh), for
# the seeds' cards: gfx90a (MI210) and gfx942 (MI300X, MI308X). Each
# program's offload bundle must hold exactly its target, and that code
# object must be an AMDGPU ELF for that GPU (EF_AMDGPU_MACH in e_flags:
# gfx90a 0x3f, gfx942 0x4c, LLVM's ELF.h). No GPU runs here: it proves the
# kit builds, not that it runs (L3, docs/hardware-kit.md).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
H=$TOP/scripts/hipcc.sh

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	[ -f "${GPREEMPT_CACHE:-/var/cache/gpreempt}/hipcc/info" ] || return 0
	export KIT=$BATS_FILE_TMPDIR/kit
	"$H" build "$KIT" gfx90a gfx942 > "$BATS_FILE_TMPDIR/build.log" 2>&1 ||
		echo failed > "$BATS_FILE_TMPDIR/build.failed"
}

setup() {
	[ "$(id -u)" = 0 ] || skip "needs root (chroot in a mount namespace)"
	[ -f "${GPREEMPT_CACHE:-/var/cache/gpreempt}/hipcc/info" ] || {
		echo "trixie's hipcc is not cached: run scripts/setup.sh (scripts/hipcc.sh fetch)"
		false
	}
}

@test "every tests/l3/*.hip builds for gfx90a and gfx942" {
	if [ -e "$BATS_FILE_TMPDIR/build.failed" ]; then
		grep -v -e '^perl: warning' -e '^	L' "$BATS_FILE_TMPDIR/build.log"
		false
	fi
	n=0
	for f in "$TOP"/tests/l3/*.hip; do
		w=$(basename "$f" .hip)
		[ -x "$KIT/$w-gfx90a" ] && [ -x "$KIT/$w-gfx942" ]
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]	# spin, online, offline
}

# mach FILE: EF_AMDGPU_MACH of an AMDGPU ELF (e_flags & 0xff), in hex.
mach() {
	local flags
	flags=$(readelf -h "$1" | awk '$1 == "Flags:" { sub(/,$/, "", $2); print $2 }')
	printf '0x%x\n' $((flags & 0xff))
}

@test "each program's bundle holds exactly its target, an AMDGPU code object for it" {
	[ ! -e "$BATS_FILE_TMPDIR/build.failed" ]
	for f in "$TOP"/tests/l3/*.hip; do
		w=$(basename "$f" .hip)
		for a in gfx90a:0x3f gfx942:0x4c; do
			t=hipv4-amdgcn-amd-amdhsa--${a%:*}
			run -0 "$H" list "$KIT/$w-${a%:*}"
			[ "$(grep -c '^hipv4-' <<< "$output")" = 1 ]
			grep -qx "$t" <<< "$output"
			run -0 "$H" unbundle "$KIT/$w-${a%:*}" "$t" "$w-${a%:*}.co"
			run -0 readelf -h "$KIT/$w-${a%:*}.co"
			[[ "$output" == *"Machine:"*"AMD GPU"* ]]
			[ "$(mach "$KIT/$w-${a%:*}.co")" = "${a#*:}" ]
		done
	done
}

@test "the versions docs/hardware-kit.md names are the ones that built" {
	run -0 "$H" version
	echo "$output"
	v=$(sed -n 's/^hipcc=//p' <<< "$output")
	c=$(sed -n 's/^Debian clang version \([0-9.]*\).*/\1/p' <<< "$output")
	[ -n "$v" ] && [ -n "$c" ]
	grep -q "hipcc $v" "$TOP/docs/hardware-kit.md"
	grep -q "clang $c" "$TOP/docs/hardware-kit.md"
}
