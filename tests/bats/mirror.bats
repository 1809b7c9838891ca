#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# scripts/debian-mirror.sh: the Debian mirror the scripts that add package
# lists (setup.sh, kernels.sh, rocr.sh, hipcc.sh) take from the machine's
# own apt sources, on fixture files of both formats (L0 on files), and
# that no script writes a mirror host of its own.

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
M=$TOP/scripts/debian-mirror.sh
F=$BATS_TEST_DIRNAME/fixtures/apt

setup() {
	unset GPREEMPT_DEBIAN_MIRROR
}

@test "one-line format: options, deb-src, a vendor's repo and security skipped" {
	run -0 "$M" "$F/one-line.list"
	[ "$output" = http://mirror.example.org/debian ]
}

@test "deb822: a disabled stanza and the security archive skipped" {
	run -0 "$M" "$F/deb822.sources"
	[ "$output" = http://mirror822.example.org/debian ]
}

@test "a proxy's URI and a local file: mirror are taken as they are" {
	run -0 "$M" "$F/proxy.list"
	[ "$output" = http://127.0.0.1:3142/debian ]
	run -0 "$M" "$F/local.sources"
	[ "$output" = file:/srv/mirror/debian ]
}

@test "files in order: the first file with a Debian archive wins" {
	run -0 "$M" "$F/vendor-only.list" "$F/proxy.list" "$F/one-line.list"
	[ "$output" = http://127.0.0.1:3142/debian ]
}

@test "GPREEMPT_DEBIAN_MIRROR overrides whatever the files say" {
	GPREEMPT_DEBIAN_MIRROR=http://10.0.0.9/debian/ run -0 "$M" "$F/one-line.list"
	[ "$output" = http://10.0.0.9/debian ]
}

@test "no Debian archive: exit 1 naming the override" {
	run -1 "$M" "$F/vendor-only.list" "$F/no-such-file"
	[[ "$output" == *"set GPREEMPT_DEBIAN_MIRROR"* ]]
}

@test "this machine: its own sources give a mirror" {
	run -0 "$M"
	[[ "$output" =~ ^[a-z+]+:.+ ]]
}

@test "the scripts that add lists take the mirror from debian-mirror.sh, no host of their own" {
	for s in setup.sh kernels.sh rocr.sh; do
		grep -q 'debian-mirror.sh' "$TOP/scripts/$s"
	done
	run grep -nE '(https?|ftp)://' "$TOP"/scripts/*.sh "$TOP/packaging/k8s/Containerfile"
	[ "$status" -eq 1 ]
}

@test "a re-run of the fetches uses the caches: no package list is read" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -f /var/cache/gpreempt/rocr/info ] || skip "no runtime cache (scripts/setup.sh)"
	# an unreachable mirror: a fetch that went to the network would fail
	GPREEMPT_DEBIAN_MIRROR=http://127.0.0.1:9/debian run -0 "$TOP/scripts/rocr.sh" fetch
	GPREEMPT_DEBIAN_MIRROR=http://127.0.0.1:9/debian run -0 "$TOP/scripts/kernels.sh" fetch
}
