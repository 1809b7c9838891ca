#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian trixie's hipcc (HIP 5.7.1, LLVM 17: the Debian build that knows
# gfx942) in a private root, to compile the hardware kit's HIP programs
# (tests/l3/*.hip) in the test command, so a kit that does not build never
# reaches a user with a GPU. Resolved from the private trixie list that
# scripts/rocr.sh keeps, the closure computed by apt, downloaded,
# extracted, cached, run through chroot in a private mount namespace:
# nothing is installed on the host, which stays ROCm-free.
#
#   scripts/hipcc.sh fetch               resolve, download, extract
#   scripts/hipcc.sh build OUT [ARCH..]  every tests/l3/*.hip for each
#                                        ARCH (default: gfx90a gfx942),
#                                        OUT/<name>-<arch>
#   scripts/hipcc.sh list FILE           the offload bundles FILE holds
#                                        (clang-offload-bundler --list)
#   scripts/hipcc.sh unbundle FILE TARGET OUT  that target's code object
#                                        (OUT: a name beside FILE)
#   scripts/hipcc.sh version             hipcc and clang versions
#
# A cached root is reused without network access; GPREEMPT_REFRESH_HIPCC=1
# resolves the newest trixie builds again.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${GPREEMPT_CACHE:-/var/cache/gpreempt}
HDIR=$CACHE/hipcc
ROOT=$HDIR/root
# The kit's cards: MI210 (gfx90a), MI300X and MI308X (gfx942).
ARCHS="gfx90a gfx942"
# hipcc.pl runs its commands through /bin/sh, which nothing in hipcc's
# closure provides: dash is added by name.
EXTRA="dash"

die() { echo "hipcc.sh: $*" >&2; exit 1; }
. "$top/scripts/lib/debroot.sh"

fetch() {
	if [ -f "$HDIR/info" ] && [ -z "${GPREEMPT_REFRESH_HIPCC:-}" ]; then
		return 0
	fi
	local opts pkgs p versions tmp=$HDIR/root.tmp
	opts=$("$top/scripts/rocr.sh" apt-opts)
	# shellcheck disable=SC2086
	pkgs=$(debroot_closure "$opts" hipcc $EXTRA)
	grep -q -x hipcc <<< "$pkgs" || die "no hipcc in trixie's package list"
	# shellcheck disable=SC2086
	debroot_download "$opts" "$HDIR/debs" $pkgs ||
		die "apt-get download of trixie's hipcc failed"
	rm -rf "$tmp" && mkdir -p "$tmp"
	# shellcheck disable=SC2086
	versions=$(debroot_extract "$HDIR/debs" "$tmp" $pkgs)
	# What dpkg's maintainer scripts would make: merged-/usr links, sh.
	for p in bin sbin lib lib64; do
		[ -e "$tmp/$p" ] || ln -s "usr/$p" "$tmp/$p"
	done
	ln -sf dash "$tmp/usr/bin/sh"
	mkdir -p "$tmp/dev" "$tmp/proc" "$tmp/tmp" "$tmp/kit" "$tmp/out"
	rm -rf "$tmp"/usr/share/{doc,man,locale}
	[ -x "$tmp/usr/bin/hipcc" ] || die "no usr/bin/hipcc in the extracted root"
	debroot_commit "$tmp" "$ROOT" "$HDIR/info" "$versions"
	echo "hipcc: $(wc -w <<< "$pkgs") trixie packages, $(du -sh "$ROOT" | cut -f1)"
}

# in_root OUT CMD...: CMD in the private root, /dev bound, tests/l3 at
# /kit (read-only), OUT at /out; LC_ALL=C quiets perl's locale.
in_root() {
	local out=$1
	shift
	[ -f "$HDIR/info" ] || die "hipcc not fetched: run scripts/setup.sh (or $0 fetch)"
	mkdir -p "$out"
	unshare -m bash -c 'set -e
		mount --make-rprivate /
		mount --bind /dev "$1/dev"
		mount -t proc proc "$1/proc"
		mount --bind "$2" "$1/kit"
		mount -o remount,bind,ro "$1/kit"
		mount --bind "$3" "$1/out"
		r=$1; shift 3
		exec env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C \
			HOME=/tmp chroot "$r" "$@"' _ "$ROOT" "$top/tests/l3" "$out" "$@"
}

build() { # out arch...
	local out=$1 f w a
	shift
	[ $# -gt 0 ] || set -- $ARCHS
	for f in "$top"/tests/l3/*.hip; do
		w=$(basename "$f" .hip)
		for a in "$@"; do
			in_root "$out" hipcc --offload-arch="$a" -O2 -Werror \
				-Wno-unused-result -I/kit -o "/out/$w-$a" "/kit/$w.hip" ||
				die "tests/l3/$w.hip does not build for $a"
		done
	done
}

case ${1:-} in
fetch) fetch ;;
build) shift; build "${1:?out-dir}" "${@:2}" ;;
list)
	# The device code is a clang offload bundle in the .hip_fatbin
	# section; its entries name their targets (hipv4-amdgcn-amd-amdhsa--gfx942).
	f=$(cd "$(dirname "${2:?file}")" && pwd)/$(basename "$2")
	objcopy -O binary --only-section=.hip_fatbin "$f" "$f.fatbin"
	[ -s "$f.fatbin" ] || die "$2 has no .hip_fatbin section"
	in_root "$(dirname "$f")" /usr/lib/llvm-17/bin/clang-offload-bundler \
		--list --type=o --input="/out/$(basename "$f").fatbin" ;;
unbundle) # FILE TARGET OUT: the code object of TARGET, an AMDGPU ELF
	f=$(cd "$(dirname "${2:?file}")" && pwd)/$(basename "$2")
	objcopy -O binary --only-section=.hip_fatbin "$f" "$f.fatbin"
	in_root "$(dirname "$f")" /usr/lib/llvm-17/bin/clang-offload-bundler \
		--unbundle --type=o --input="/out/$(basename "$f").fatbin" \
		--targets="${3:?target}" --output="/out/${4:?out}" ;;
version)
	in_root "$HDIR" hipcc --version 2>/dev/null | grep -i -e 'HIP version' -e 'clang version'
	# shellcheck disable=SC1091
	. "$HDIR/info" && tr ' ' '\n' <<< "$PACKAGES" | grep -e '^hipcc=' -e '^clang-17=' -e '^libamdhip64-dev=' ;;
*) die "usage: $0 fetch | build OUT [ARCH...] | list FILE | unbundle FILE TARGET OUT | version" ;;
esac
