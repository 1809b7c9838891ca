#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The real-runtime set-up (scripts/rocr.sh) and its test program on the
# host, and the rule that a missing runtime fails the VM's real-runtime
# tests instead of skipping them (boots Debian's 6.1 kernel, the quickest).

TOP=$BATS_TEST_DIRNAME/../..

setup() {
	"$TOP/scripts/rocr.sh" path root >/dev/null 2>&1 ||
		skip "ROCm runtime not cached: run scripts/setup.sh"
	ROOT=$("$TOP/scripts/rocr.sh" path root)
	LIBDIR=$("$TOP/scripts/rocr.sh" path libdir)
	OUT=$(mktemp -d)
}

teardown() {
	rm -rf "$OUT"
}

@test "rocr.sh: the cached runtime holds ROCr, libhsakmt, rocminfo and trixie's glibc" {
	[ -e "$LIBDIR/libhsa-runtime64.so.1" ]
	[ -e "$LIBDIR/libhsakmt.so.1" ]
	[ -e "$LIBDIR/libc.so.6" ]
	[ -x "$ROOT/usr/bin/rocminfo" ]
	run "$TOP/scripts/rocr.sh" path packages
	[[ "$output" == *"libhsa-runtime64-1="* ]]
	[[ "$output" == *"rocminfo="* ]]
	[[ "$output" != *"python3"* ]]
}

@test "rocr.sh: an unfetched runtime is an error that says what to run" {
	GPREEMPT_CACHE=$OUT run "$TOP/scripts/rocr.sh" path root
	[ "$status" -ne 0 ]
	[[ "$output" == *"not fetched: run scripts/setup.sh"* ]]
}

@test "rocr-probe: needs only glibc <= 2.36 symbols; without the runtime it exits 3" {
	"$TOP/scripts/rocr.sh" build "$OUT"
	run sh -c "objdump -T '$OUT/rocr-probe' | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -n1"
	[ "$(printf '%s\n' "$output" GLIBC_2.36 | sort -V | tail -n1)" = GLIBC_2.36 ]
	# The runtime is made absent here, never assumed absent: every GPU
	# node, and any host with Debian's hipcc, has one on the loader's
	# default path. The probe runs in a root of its own holding only
	# itself and the C library it links.
	mkdir -p "$OUT/bare"
	cp "$OUT/rocr-probe" "$OUT/bare/"
	for lib in $(ldd "$OUT/rocr-probe" | grep -o '/[^ ]*'); do
		mkdir -p "$OUT/bare$(dirname "$lib")"
		cp -L "$lib" "$OUT/bare$lib"
	done
	if [ "$(id -u)" = 0 ]; then
		run chroot "$OUT/bare" /rocr-probe -w 0
	else
		run unshare -r -R "$OUT/bare" /rocr-probe -w 0
	fi
	[ "$status" -eq 3 ]
	[[ "$output" == *'"step":"load","ok":false'* ]]
	[[ "$output" == *'libhsa-runtime64.so.1: cannot open shared object file'* ]]
}

@test "rocr-probe: with trixie's loader and no /dev/kfd, hsa_init fails and it exits 1" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	"$TOP/scripts/rocr.sh" build "$OUT"
	run "$LIBDIR/ld-linux-x86-64.so.2" --library-path "$LIBDIR" \
		"$OUT/rocr-probe" -w 0
	[ "$status" -eq 1 ]
	[[ "$output" == *'"step":"hsa_init","status":4104'* ]]
	[[ "$output" == *'"step":"exit","code":1'* ]]
}

@test "a missing runtime fails the guest's real-runtime tests (never skips)" {
	"$TOP/scripts/kernels.sh" path 6.1 kver >/dev/null 2>&1 ||
		skip "guest kernels not cached: run scripts/setup.sh"
	# A cache with the kernels and no runtime.
	ln -s "$("$TOP/scripts/kernels.sh" path 6.1 root)/../.." "$OUT/kernels"
	GPREEMPT_CACHE=$OUT VM_OUTPUT=$TOP/.output/vm \
		run "$TOP/scripts/vm.sh" test -k 6.1 -t '50*'
	[ "$status" -ne 0 ]
	[[ "$output" == *"ROCm runtime (trixie): MISSING"* ]]
	[[ "$output" == *"not ok 1 - [6.1] rocr: Debian's runtime is installed in the guest # Debian's ROCm runtime is not in the guest"* ]]
	[[ "$output" != *"# SKIP"* ]]
}

@test "rocr.sh: the HIP root holds trixie's libamdhip64 5.7.1, comgr and LLVM 17, and no ROCr package twice" {
	HIP=$("$TOP/scripts/rocr.sh" path hiplibdir) ||
		skip "HIP runtime not cached: run scripts/setup.sh"
	[ -e "$HIP/libamdhip64.so.5" ]
	[ -e "$HIP/libamd_comgr.so.2" ]
	[ -e "$HIP/libLLVM-17.so.1" ]
	run "$TOP/scripts/rocr.sh" path hippackages
	[[ "$output" == *"libamdhip64-5=5.7.1"* ]]
	[[ "$output" != *"libhsa-runtime64-1="* ]]
	[[ "$output" != *"libc6="* ]]
}

@test "hip-launch: through trixie's loader, no device (100) and every launch entry point returns 100, N times, no crash" {
	HIP=$("$TOP/scripts/rocr.sh" path hiplibdir) ||
		skip "HIP runtime not cached: run scripts/setup.sh"
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	"$TOP/scripts/rocr.sh" build-hip "$OUT"
	for f in launch launch_spt ext module extmodule coop graph; do
		run "$LIBDIR/ld-linux-x86-64.so.2" --library-path "$HIP:$LIBDIR" \
			"$OUT/hip-launch" -f "$f" -n 1000 -k 2 -s
		[ "$status" -eq 0 ]
		[[ "$output" == *'"step":"count","status":100'* ]]
		[ "$(grep -c "\"func\":\"$f\",\"calls\":1000,\"status\":100" <<< "$output")" -eq 2 ]
		[ "$(grep -c '"step":"sync","status":100' <<< "$output")" -eq 2 ]
	done
}

# The guest test's reading of its KFD trace (tests/vm/rocr_lib.sh), on a
# stored trace: the last reference to a process's /dev/kfd was dropped by
# a kworker after the process had gone (seen once under two host hogs,
# when the release was missed), and a later process got the same file
# pointer. Each release belongs to the process that opened that file.
@test "rocr_lib: a release run by another task is the opener's; a reused file pointer is the new opener's" {
	run bash -c ". '$TOP/tests/vm/rocr_lib.sh'
		cp '$TOP/tests/bats/fixtures/rocr-kfd-release-elsewhere.trace' /tmp/rocr-kfd.trace
		echo \"412: \$(rocr_kfd_calls 412)\"
		echo \"430: \$(rocr_kfd_calls 430)\"
		echo \"57: [\$(rocr_kfd_calls 57)]\""
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "412: open=0 GET_VERSION=0 release" ]
	[ "${lines[1]}" = "430: open=0 release" ]
	[ "${lines[2]}" = "57: []" ]
}
