#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's own kernels under QEMU/TCG with the stock amdgpu module and
# run gpreempt's guest tests against the real KFD code (no GPU needed).
#
#   scripts/vm.sh test [-k SLOT]... [-t GLOB]...   TAP on stdout
#   scripts/vm.sh demo [-k SLOT]                    the README's main job
#   scripts/vm.sh run -s SCRIPT [-k SLOT]...        any guest script; its
#                                                   output streams to stdout
#
# SLOT is 6.1, 6.12 or 7.x (default: all for test, 6.12 otherwise). GLOB
# selects tests/vm/*.sh by file name (e.g. -t '2*'). Pass or fail comes
# only from what the guest wrote on its result port, never from qemu's
# exit status: a guest that does not finish is a failure.
# VM_EXTRA_BINS="/usr/bin/x ..." carries host binaries and their shared
# libraries into the guest (benchmarks use it for bpftrace).
# VM_EXTRA_TESTS=DIR adds DIR/*.sh to the guest tests (the harness's own
# self-test injects deliberate failures this way).
# VM_HIP=1 attaches the HIP disk (scripts/hipdisk.sh: trixie's libamdhip64
# and hip-launch in the guest); a test file asks for it with the line
# "# gp-disk: hip", a run/demo script by running hip-launch.
#
# Limits follow progress, not the clock (docs/development.md, "Timeouts"):
# under TCG on a shared host a healthy guest can take several times its
# idle time, so no limit here is a total sized on an idle machine.
# VM_SILENCE=600   end QEMU when neither serial port has written a byte
#                  for this long (the guest's output is its heartbeat)
# VM_TEST_SILENCE=300  in the guest, end one test that wrote nothing to
#                  either port for this long; the next test still runs.
#                  Below VM_SILENCE, so a stuck test is named, not the boot
# VM_TIMEOUT=3600  a ceiling per boot, only against a guest that prints
#                  forever (CI's whole run has 90 minutes)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CACHE=${GPREEMPT_CACHE:-/var/cache/gpreempt}
OUT=${VM_OUTPUT:-.output/vm}
VM_SILENCE=${VM_SILENCE:-600}
VM_TEST_SILENCE=${VM_TEST_SILENCE:-300}
VM_TIMEOUT=${VM_TIMEOUT:-3600}
kernels=()
globs=()
script=tests/vm/demo.sh

die() { echo "vm.sh: $*" >&2; exit 1; }

mode=${1:-}
[ -n "$mode" ] && shift
usage="usage: $0 test|demo|run [-k SLOT]... [-t GLOB]... [-s SCRIPT]"
while getopts "k:t:s:" o; do
	case $o in
	k) kernels+=("$OPTARG") ;;
	t) globs+=("$OPTARG") ;;
	s) script=$OPTARG ;;
	*) die "$usage" ;;
	esac
done
case $mode in
test) [ ${#kernels[@]} -gt 0 ] || read -ra kernels <<< "$(scripts/kernels.sh slots)" ;;
demo|run) [ ${#kernels[@]} -gt 0 ] || kernels=(6.12) ;;
*) die "$usage" ;;
esac
[ -f "$script" ] || die "no such guest script: $script"

# Static tools: the guest is a busybox initramfs with no libraries.
# rocr-probe is the exception: a dynamic program of trixie's ROCm runtime.
build() {
	make -s STATIC=1 OUTPUT="$OUT" BINDIR="$OUT/bin" \
		"$OUT/bin/gpreempt-trace" "$OUT/bin/gpreempt-ctl" \
		"$OUT/kfd-exerciser" "$OUT/tests/detect-run" "$OUT/tests/arm-run" >&2
	rm -f "$OUT/rocr-probe" "$OUT/hip-launch"
	[ -z "$ROCR" ] || scripts/rocr.sh build "$OUT" >&2
	[ -z "$HIPDISK" ] || scripts/rocr.sh build-hip "$OUT" >&2
}

# The HIP disk (scripts/hipdisk.sh) only when a selected test file says
# "# gp-disk: hip", a run/demo script runs hip-launch, or VM_HIP=1. Without the cached HIP root it is not
# attached: those tests then fail in the guest, saying why.
selected_tests() {
	local t g
	for t in tests/vm/[0-9]*.sh ${VM_EXTRA_TESTS:+"$VM_EXTRA_TESTS"/*.sh}; do
		[ -f "$t" ] || continue
		[ ${#globs[@]} -gt 0 ] || { echo "$t"; continue; }
		for g in "${globs[@]}"; do
			# shellcheck disable=SC2254
			case $(basename "$t") in $g) echo "$t"; break ;; esac
		done
	done
}
HIPDISK=
if [ "$mode" = test ]; then
	mapfile -t wanted < <(selected_tests)
else
	wanted=("$script")
fi
if [ "${VM_HIP:-0}" = 1 ] || scripts/hipdisk.sh needs "${wanted[@]}" ||
   { [ "$mode" != test ] && grep -q -w hip-launch "$script"; }; then
	HIPDISK=$(scripts/hipdisk.sh path) || HIPDISK=
fi

# Debian trixie's ROCm runtime (scripts/rocr.sh), cached by setup.sh. A
# missing runtime is not a reason to skip: the guest's 5*-rocr tests see
# no runtime and fail, saying why.
ROCR=$(scripts/rocr.sh path root 2>/dev/null) || ROCR=

# MODULE...'s closure into STAGE, decompressed, in insmod order (a list
# in STAGE/gp/LIST).
add_modules() { # root kver stage list module...
	local root=$1 kver=$2 stage=$3 list=$4 m rel
	shift 4
	# -a: without it, names after the first are module parameters
	for m in $(modprobe -d "$root" -S "$kver" --show-depends -a "$@" |
		   awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		rel=${m#"$root"/}
		mkdir -p "$stage/$(dirname "$rel")"
		case $m in
		*.xz) xz -dc "$m" > "$stage/${rel%.xz}"; rel=${rel%.xz} ;;
		*.zst) zstd -qdc "$m" > "$stage/${rel%.zst}"; rel=${rel%.zst} ;;
		*) cp "$m" "$stage/$rel" ;;
		esac
		echo "/$rel" >> "$stage/gp/$list"
	done
}

# Per-kernel part of the initramfs, cached: busybox and the amdgpu module
# closure, decompressed on the host (busybox would do it under TCG, ~2 s
# slower), with the insmod order kmod computes from modules.dep.
base_cpio() { # slot -> path
	local slot=$1 root kver cpio stage tmp
	root=$(scripts/kernels.sh path "$slot" root)
	kver=$(scripts/kernels.sh path "$slot" kver)
	cpio=$CACHE/kernels/$slot/base.cpio
	if [ -s "$cpio" ] && [ "$cpio" -nt "$0" ]; then
		echo "$cpio"
		return
	fi
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,gp} "$stage/lib/modules/$kver"
	cp /bin/busybox "$stage/bin/busybox"
	add_modules "$root" "$kver" "$stage" modules.order amdgpu
	[ -s "$stage/gp/modules.order" ] || die "kernel $slot: no amdgpu module closure"
	chmod 0755 "$stage"	# mktemp's 0700 would lock non-root guest users out
	# a private name beside the cache file (rename within one file
	# system is atomic): the test command's two lanes may build it at once
	tmp=$(mktemp "$cpio.XXXXXX")
	(cd "$stage" && find . | cpio -o -H newc --quiet) > "$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$cpio"
	rm -rf "$stage"
	echo "$cpio"
}

# The HIP disk's modules (virtio_pci, virtio_blk, ext4), an archive of their own
# appended only when the disk is attached; cached per kernel build.
disk_cpio() { # slot -> path
	local slot=$1 root kver cpio stage tmp
	root=$(scripts/kernels.sh path "$slot" root)
	kver=$(scripts/kernels.sh path "$slot" kver)
	cpio=$CACHE/kernels/$slot/disk-$kver.cpio
	if [ ! -s "$cpio" ] || [ ! "$cpio" -nt "$0" ]; then
		stage=$(mktemp -d)
		mkdir -p "$stage/gp"
		# virtio_pci is a module on 6.1, built in on 6.12; a kernel
		# with all three built in gets an empty list
		touch "$stage/gp/modules.disk"
		add_modules "$root" "$kver" "$stage" modules.disk \
			virtio_pci virtio_blk ext4
		chmod 0755 "$stage"
		tmp=$(mktemp "$cpio.XXXXXX")
		(cd "$stage" && find . | cpio -o -H newc --quiet) > "$tmp"
		chmod 0644 "$tmp"
		mv "$tmp" "$cpio"
		rm -rf "$stage"
	fi
	echo "$cpio"
}

# A host binary and the shared libraries it needs (jq for the guest tests).
# One C library in the guest: when trixie's runtime is there, its glibc
# (2.41) and its libraries serve the host's binaries too (built against
# bookworm's 2.36: newer glibc keeps the old symbol versions), so a host
# library that trixie also ships is not copied.
copy_with_libs() { # bin stage
	local lib
	mkdir -p "$2/usr/bin"
	cp "$1" "$2/usr/bin/"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		if [ -n "$ROCR" ] &&
		   [ -e "$ROCR/usr/lib/x86_64-linux-gnu/$(basename "$lib")" ]; then
			continue
		fi
		mkdir -p "$2$(dirname "$lib")"
		cp -L "$lib" "$2$lib"
	done
}

# The runtime at trixie's own paths (merged /usr: /lib64 -> usr/lib64),
# so rocminfo and ROCr programs run under their own names. Headers stay
# on the host.
add_rocr() { # stage
	[ -n "$ROCR" ] || return 0
	(cd "$ROCR" && find . -path ./usr/include -prune -o -print |
		cpio -pdm --quiet "$1")
	ln -sfn usr/lib64 "$1/lib64"
	cp "$OUT/rocr-probe" "$1/gp/bin/"
	# the real-runtime tests check ROCr's KFD calls against this text
	mkdir -p "$1/gp/docs"
	cp docs/rocr.md "$1/gp/docs/"
}

# Per-run part: /init, tools, tests. Appended to the base archive; the
# kernel unpacks concatenated cpio archives in order.
overlay_cpio() { # out
	local stage
	stage=$(mktemp -d)
	mkdir -p "$stage/gp/bin" "$stage/gp/tests/vm"
	install -m 0755 tests/vm/init.sh "$stage/init"
	cp "$OUT/bin/gpreempt-trace" "$OUT/bin/gpreempt-ctl" \
	   "$OUT/kfd-exerciser" "$OUT/tests/detect-run" "$OUT/tests/arm-run" \
	   "$stage/gp/bin/"
	[ -z "$HIPDISK" ] || cp "$OUT/hip-launch" "$stage/gp/bin/"
	install -m 0755 scripts/watchdog.sh "$stage/gp/bin/gp-watchdog.sh"
	cp tests/vm/*.sh "$stage/gp/tests/vm/"
	if [ -n "${VM_EXTRA_TESTS:-}" ]; then
		cp "$VM_EXTRA_TESTS"/*.sh "$stage/gp/tests/vm/"
	fi
	cp "$script" "$stage/gp/run.sh"
	for b in $(command -v jq) ${VM_EXTRA_BINS:-}; do
		copy_with_libs "$b" "$stage"
	done
	add_rocr "$stage"
	chmod 0755 "$stage"
	(cd "$stage" && find . | cpio -o -H newc --quiet) > "$1"
	rm -rf "$stage"
}

# Boot one kernel; results land in $run/results, the console in
# $run/console. In demo and run modes the second port's file is streamed
# to stdout as it grows. QEMU is ended only when both ports stay silent
# for VM_SILENCE s (scripts/watchdog.sh), or at the VM_TIMEOUT ceiling;
# why goes to $run/watchdog.
boot() { # slot run-dir demo(0|1)
	local slot=$1 run=$2 demo=$3 vmlinuz base wd
	vmlinuz=$(scripts/kernels.sh path "$slot" vmlinuz)
	base=$(base_cpio "$slot")
	local disk=()
	if [ -n "$HIPDISK" ]; then
		cat "$base" "$(disk_cpio "$slot")" "$run/overlay.cpio" > "$run/initrd.cpio"
		disk=(-drive "file=$HIPDISK,if=virtio,format=raw,readonly=on")
	else
		cat "$base" "$run/overlay.cpio" > "$run/initrd.cpio"
	fi
	local tests=${globs[*]:-}
	: > "$run/results"
	: > "$run/console"
	# no_timer_check: under a loaded TCG host 6.1 may misjudge the
	# IO-APIC timer and panic at boot.
	local append="console=ttyS0 panic=-1 quiet loglevel=3 no_timer_check"
	append="$append gp.kernel=$slot gp.mode=$mode gp.tests=${tests// /,}"
	append="$append gp.silence=$VM_TEST_SILENCE gp.hip=${HIPDISK:+1}"
	# thread=single: one host thread runs both vCPUs in turn. With a
	# thread per vCPU (QEMU's default here), a guest under two host CPU
	# hogs died once of "Oops: int3" in __schedule while a static key was
	# being patched (6.12, test 68, 20d1fee+): another vCPU ran the
	# patched code's stale translation after the kernel's text_poke_bp had
	# finished, which real CPUs never do. A lone guest used about one host
	# core with a thread per vCPU (docs/development.md), so little is lost.
	scripts/watchdog.sh -s "$VM_SILENCE" -m "$VM_TIMEOUT" \
		-f "$run/console" -f "$run/results" -- \
		qemu-system-x86_64 -accel tcg,thread=single -m 2G -smp 2 \
		-nodefaults -display none -no-reboot -net none \
		-serial "file:$run/console" -serial "file:$run/results" \
		-kernel "$vmlinuz" -initrd "$run/initrd.cpio" "${disk[@]}" \
		-append "$append ${VM_APPEND:-}" \
		</dev/null 2> "$run/watchdog" &
	wd=$!
	# tail ends once QEMU's watchdog is gone, after a last read
	[ "$demo" = 1 ] && tail -n +1 -s 0.2 -f --pid=$wd "$run/results"
	wait $wd || true
	[ "$demo" = 1 ] && [ -s "$run/watchdog" ] && sed 's/^/vm.sh: /' "$run/watchdog" >&2
	return 0
}

[ "${VM_BUILD:-1}" = 1 ] && build
workdir=$(mktemp -d /tmp/gpvm.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
overlay_cpio "$workdir/overlay.cpio"

if [ "$mode" != test ]; then
	for slot in "${kernels[@]}"; do
		echo "== booting Debian kernel $(scripts/kernels.sh path "$slot" packages)" \
		     "under QEMU/TCG (no GPU), loading amdgpu ..."
		boot "$slot" "$workdir" 1
		[ -s "$workdir/console" ] || die "qemu did not start (see above)"
	done
	exit 0
fi

n=0
failed=0
anyfail=0
tap() { # ok|not-ok text
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; anyfail=1; fi
}
for slot in "${kernels[@]}"; do
	run=$workdir/$slot
	mkdir -p "$run"
	cp "$workdir/overlay.cpio" "$run/"
	echo "# kernel $slot: $(scripts/kernels.sh path "$slot" packages)"
	if [ -n "$ROCR" ]; then
		echo "# ROCm runtime (trixie): $(scripts/rocr.sh path packages)"
	else
		echo "# ROCm runtime (trixie): MISSING, the 5*-rocr tests will fail: run scripts/setup.sh"
	fi
	start=$(date +%s)
	boot "$slot" "$run" 0
	# Lines: "GPTEST ok|fail|skip NAME[ # why]", "GPINFO text", "GPTEST-END".
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"GPTEST ok "*) tap ok "[$slot] ${line#GPTEST ok }" ;;
		"GPTEST skip "*) n=$((n + 1)); echo "ok $n - [$slot] ${line#GPTEST skip } # SKIP" ;;
		"GPTEST fail "*) tap fail "[$slot] ${line#GPTEST fail }" ;;
		"GPINFO "*) echo "# [$slot] ${line#GPINFO }" ;;
		esac
	done < "$run/results"
	if ! grep -q '^GPTEST-END' "$run/results"; then
		why=$(sed -n 's/^watchdog: \(.*\): ending .*/\1/p' "$run/watchdog")
		tap fail "[$slot] guest finished its tests (${why:-kernel did not boot, panicked or powered off early})"
	fi
	echo "# [$slot] boot and tests took $(( $(date +%s) - start )) s"
	if [ -s "$run/watchdog" ]; then
		sed "s/^/# [$slot] /" "$run/watchdog"
	fi
	if [ "$failed" = 1 ] || [ -n "${VM_SHOW_CONSOLE:-}" ]; then
		echo "# --- [$slot] guest console (last 60 lines) ---"
		tail -n 60 "$run/console" | sed 's/^/#   /'
	fi
	failed=0
done
echo "1..$n"
exit $anyfail
