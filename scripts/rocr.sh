#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The real ROCm runtime for the VM guests: Debian trixie's ROCr
# (libhsa-runtime64-1), its thunk (libhsakmt1), rocminfo and the trixie
# shared libraries they need, glibc included. Resolved from a private
# trixie package list (as kernels.sh does for trixie-backports), the
# closure computed by apt, downloaded with apt-get download, extracted,
# cached: nothing is installed on the host.
#
#   scripts/rocr.sh fetch            resolve, download, extract, check
#   scripts/rocr.sh path FIELD       FIELD: root (guest files), include
#                                    (hsa headers), packages, libdir,
#                                    hiproot, hiplibdir, hippackages
#   scripts/rocr.sh build OUT        build tests/rocr/rocr-probe into OUT
#   scripts/rocr.sh build-hip OUT    build tests/rocr/hip-launch into OUT
#   scripts/rocr.sh apt-opts         apt-get/apt-cache options of the
#                                    private trixie list (updated if it
#                                    has none yet): scripts/hipcc.sh's
#
# HIP (libamdhip64-5 5.7.1 with libamd-comgr2 and LLVM 17, ~150 MB) sits
# in a root of its own (hiproot) beside the ROCr one: every VM boot
# copies the ROCr root into its initramfs, only the launch-detection
# tests need HIP. Run a HIP program on the host through trixie's loader:
#   $libdir/ld-linux-x86-64.so.2 --library-path $hiplibdir:$libdir PROG
#
# A cached runtime is reused without network access; set
# GPREEMPT_REFRESH_ROCR=1 to resolve the newest trixie builds again.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${GPREEMPT_CACHE:-/var/cache/gpreempt}
RDIR=$CACHE/rocr
APT=$RDIR/apt
# What the tests run. libhsa-runtime-dev only for the headers (host side).
ROOTS="libhsa-runtime64-1 libhsakmt1 rocminfo libhsa-runtime-dev"
# rocminfo's Depends that serve only its rocm_agent_enumerator script
# (python3 with pciutils' lspci and kmod's lsmod): not shared libraries,
# and about 40 more packages. The ELF check below proves nothing of
# theirs is needed by rocminfo or the runtime.
SCRIPT_DEPS="python3 pciutils kmod"

# HIP's closure minus what the ROCr root already holds.
HIP_ROOTS="libamdhip64-5"
HDIR=$RDIR/hip

die() { echo "rocr.sh: $*" >&2; exit 1; }
. "$top/scripts/lib/debroot.sh"

apt_opts() {
	echo "-o Dir::State::Lists=$APT/lists -o Dir::Etc::SourceList=$APT/sources.list" \
	     "-o Dir::Etc::SourceParts=/dev/null -o Dir::Cache=$APT/cache" \
	     "-o Dir::State::status=/dev/null -o APT::Architecture=amd64" \
	     "-o Debug::NoLocking=1"
}

apt_update() {
	local mirror
	# the machine's own mirror (GPREEMPT_DEBIAN_MIRROR overrides)
	mirror=$("$top/scripts/debian-mirror.sh") || exit 1
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	     "$mirror trixie main" > "$APT/sources.list"
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq update >/dev/null ||
		die "apt-get update of the private trixie list failed (network? $mirror; GPREEMPT_DEBIAN_MIRROR overrides it)"
}

# The dependency closure apt computes (Depends and Pre-Depends only),
# minus rocminfo's script helpers and whatever only they pull in.
closure() {
	local roots="" r
	if [ "${1:-}" = hip ]; then
		# shellcheck disable=SC2086
		debroot_closure "$(apt_opts)" $HIP_ROOTS
		return
	fi
	for r in $ROOTS; do
		[ "$r" = rocminfo ] || roots="$roots $r"
	done
	# shellcheck disable=SC2046,SC2086
	{
		debroot_closure "$(apt_opts)" $roots
		# rocminfo itself, and its direct Depends but the script ones
		echo rocminfo
		apt-cache $(apt_opts) depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances \
			rocminfo | awk '$1 ~ /Depends:$/ { print $2 }'
	} | grep -v -e '^ ' -e '^<' | sort -u |
		grep -v -x -F -f <(tr ' ' '\n' <<< "$SCRIPT_DEPS")
}

# Every DT_NEEDED of every ELF file we ship must be shipped too: apt's
# closure is checked against what the binaries really load.
check_elf() { # root [base-root]
	local root=$1 f lib missing=""
	local libdir=$root/usr/lib/x86_64-linux-gnu
	local base=${2:-$root}/usr/lib/x86_64-linux-gnu
	while IFS= read -r f; do
		for lib in $(readelf -d "$f" 2>/dev/null |
			     sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$libdir/$lib" ] || [ -e "$base/$lib" ] ||
				missing="$missing $lib(${f#"$root"/})"
		done
	done < <(find "$root/usr/bin" "$libdir" -maxdepth 1 -type f \
		      \( -name '*.so*' -o -perm -u+x \) 2>/dev/null)
	[ -z "$missing" ] || die "libraries needed but not in the closure:$missing"
}

fetch() {
	if [ -f "$RDIR/info" ] && [ -z "${GPREEMPT_REFRESH_ROCR:-}" ]; then
		fetch_hip
		return 0
	fi
	apt_update
	local pkgs p versions tmp=$RDIR/root.tmp
	pkgs=$(closure)
	for p in $ROOTS; do
		grep -q -x -F "$p" <<< "$pkgs" || die "$p not in trixie's package list"
	done
	# A fresh folder: a refresh keeps no older builds.
	# shellcheck disable=SC2086
	debroot_download "$(apt_opts)" "$RDIR/debs" $pkgs ||
		die "apt-get download of the trixie runtime failed"
	rm -rf "$tmp" && mkdir -p "$tmp"
	# shellcheck disable=SC2086
	versions=$(debroot_extract "$RDIR/debs" "$tmp" $pkgs)
	# What the guest does not need: docs, translations, iconv modules,
	# cmake files, glibc's profiling helpers (8 of 23 MB are gconv).
	rm -rf "$tmp"/usr/share/{doc,man,locale,lintian,gdb,gcc} \
	       "$tmp"/usr/lib/x86_64-linux-gnu/{gconv,cmake,audit} \
	       "$tmp"/usr/lib/x86_64-linux-gnu/lib{memusage,pcprofile}.so
	check_elf "$tmp"
	[ -f "$tmp/usr/include/hsa/hsa.h" ] || die "no hsa/hsa.h in libhsa-runtime-dev"
	debroot_commit "$tmp" "$RDIR/root" "$RDIR/info" "$versions"
	echo "rocr: $(wc -w <<< "$pkgs") trixie packages (${versions# })"
	fetch_hip
}

# The HIP root: HIP's closure minus the packages of the ROCr root, so
# both roots together are one trixie system and neither repeats a file.
fetch_hip() {
	if [ -f "$HDIR/info" ] && [ -z "${GPREEMPT_REFRESH_ROCR:-}" ]; then
		return 0
	fi
	if ! ls "$APT/lists/"*Packages* >/dev/null 2>&1; then
		apt_update
	fi
	local pkgs have versions tmp=$HDIR/root.tmp
	have=$(field packages | tr ' ' '\n' | sed 's/=.*//')
	pkgs=$(closure hip | grep -v -x -F -f <(echo "$have"))
	grep -q -x -F libamdhip64-5 <<< "$pkgs" ||
		die "libamdhip64-5 not in trixie's package list"
	# shellcheck disable=SC2086
	debroot_download "$(apt_opts)" "$HDIR/debs" $pkgs ||
		die "apt-get download of trixie's HIP runtime failed"
	rm -rf "$tmp" && mkdir -p "$tmp"
	# shellcheck disable=SC2086
	versions=$(debroot_extract "$HDIR/debs" "$tmp" $pkgs)
	rm -rf "$tmp"/usr/share/{doc,man,locale,lintian} "$HDIR/debs"
	check_elf "$tmp" "$RDIR/root"
	[ -e "$tmp/usr/lib/x86_64-linux-gnu/libamdhip64.so.5" ] ||
		die "no libamdhip64.so.5 in libamdhip64-5"
	debroot_commit "$tmp" "$HDIR/root" "$HDIR/info" "$versions"
	echo "hip: $(wc -w <<< "$pkgs") more trixie packages (${versions# })"
}

field() {
	[ -f "$RDIR/info" ] || die "ROCm runtime not fetched: run scripts/setup.sh (or $0 fetch)"
	# shellcheck disable=SC1091
	. "$RDIR/info"
	case $1 in
	root) echo "$RDIR/root" ;;
	include) echo "$RDIR/root/usr/include" ;;
	libdir) echo "$RDIR/root/usr/lib/x86_64-linux-gnu" ;;
	packages) echo "$PACKAGES" ;;
	hiproot|hiplibdir|hippackages)
		[ -f "$HDIR/info" ] ||
			die "HIP runtime not fetched: run scripts/setup.sh (or $0 fetch)"
		# shellcheck disable=SC1091
		. "$HDIR/info"
		case $1 in
		hiproot) echo "$HDIR/root" ;;
		hiplibdir) echo "$HDIR/root/usr/lib/x86_64-linux-gnu" ;;
		hippackages) echo "$PACKAGES" ;;
		esac ;;
	*) die "unknown field '$1'" ;;
	esac
}

# The probe uses only libc from the host's toolchain and reaches ROCr
# through dlopen: see tests/rocr/rocr-probe.c for why.
build() { # out-dir
	local inc
	inc=$(field include)
	mkdir -p "$1"
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-isystem "$inc" -o "$1/rocr-probe" "$top/tests/rocr/rocr-probe.c"
}

# hip-launch: libc only, HIP through dlopen, like rocr-probe.
build_hip() { # out-dir
	mkdir -p "$1"
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-o "$1/hip-launch" "$top/tests/rocr/hip-launch.c" -ldl
}

case ${1:-} in
fetch) fetch ;;
path) field "${2:?field}" ;;
build) build "${2:?out-dir}" ;;
build-hip) build_hip "${2:?out-dir}" ;;
apt-opts)
	compgen -G "$APT/lists/*_Packages*" >/dev/null || apt_update
	apt_opts ;;
*) die "usage: $0 fetch | path FIELD | build OUT | build-hip OUT | apt-opts" ;;
esac
