#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The HIP disk of the VM guests: Debian trixie's libamdhip64 root
# (scripts/rocr.sh's hiproot, ~230 MB with LLVM 17) as a read-only ext4
# image, attached by scripts/vm.sh as a second virtio disk only when a
# selected guest test carries the line "# gp-disk: hip". Every boot copies
# its initramfs into guest memory under TCG; a disk is read only where a
# page is touched, so HIP stays out of the common initramfs.
#
#   scripts/hipdisk.sh path     build the image if needed, print its path
#   scripts/hipdisk.sh needs FILE...   0 when a FILE carries the tag
#
# The image is cached under $GPREEMPT_CACHE/rocr keyed by the HIP root's
# content (its package versions and its file list with sizes), so it is
# built once (mke2fs -d: no mount, no root privilege needed for the build).
# The guest (tests/vm/init.sh) mounts it at /hip and links its libraries
# into /usr/lib/x86_64-linux-gnu beside the ROCr root: one trixie system.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${GPREEMPT_CACHE:-/var/cache/gpreempt}

die() { echo "hipdisk.sh: $*" >&2; exit 1; }

image() {
	local root key mb img tmp
	root=$("$top/scripts/rocr.sh" path hiproot) || exit 1
	key=$({ "$top/scripts/rocr.sh" path hippackages
		(cd "$root" && find . -printf '%P %s %l\n' | sort); } |
	      sha256sum | cut -c1-16)
	img=$CACHE/rocr/hip-$key.ext4
	if [ -s "$img" ]; then
		echo "$img"
		return
	fi
	# room for the files, their metadata and ext4's own (journal, tables)
	mb=$(( $(du -sm "$root" | cut -f1) * 12 / 10 + 64 ))
	rm -f "$CACHE"/rocr/hip-*.ext4	# older HIP roots' images
	# a private name: two runs building at once each finish their own
	tmp=$(mktemp "$img.XXXXXX")
	mke2fs -q -F -t ext4 -L gp-hip -E root_owner=0:0 -d "$root" \
		"$tmp" "${mb}M" || { rm -f "$tmp"; die "mke2fs of $root failed"; }
	chmod 0644 "$tmp"
	mv "$tmp" "$img"
	echo "$img"
}

needs() {
	[ $# -gt 0 ] || return 1
	grep -l -x '# gp-disk: hip' "$@" >/dev/null 2>&1
}

case ${1:-} in
path) image ;;
needs) shift; needs "$@" ;;
*) die "usage: $0 path | needs FILE..." ;;
esac
