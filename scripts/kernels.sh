#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest kernels the VM suite boots: Debian's own, with the stock amdgpu
# module. Resolved once from Debian's package lists, downloaded with
# apt-get download (never installed on the host), extracted and cached.
#
#   scripts/kernels.sh fetch [SLOT...]      resolve, download, extract
#   scripts/kernels.sh path SLOT FIELD      FIELD: vmlinuz root kver packages
#   scripts/kernels.sh slots                the supported slots
#
# Slots: 6.1 (bookworm), 6.12 (bookworm-backports), 7.x (trixie-backports,
# read from a private package list so the bookworm host never installs
# from trixie). A cached slot is reused without any network access; set
# GPREEMPT_REFRESH_KERNELS=1 to resolve the newest builds again.
set -euo pipefail

CACHE=${GPREEMPT_CACHE:-/var/cache/gpreempt}
KDIR=$CACHE/kernels
SLOTS="6.1 6.12 7.x"

die() { echo "kernels.sh: $*" >&2; exit 1; }

# apt options for the private trixie-backports list.
TRX=$CACHE/apt-trixie
trx_opts() {
	echo "-o Dir::State::Lists=$TRX/lists -o Dir::Etc::SourceList=$TRX/sources.list" \
	     "-o Dir::Etc::SourceParts=/dev/null -o Dir::Cache=$TRX/cache" \
	     "-o Dir::State::status=/dev/null -o APT::Architecture=amd64" \
	     "-o Debug::NoLocking=1"
}

trx_update() {
	local mirror
	# the machine's own mirror (GPREEMPT_DEBIAN_MIRROR overrides)
	mirror=$("$(dirname "$0")/debian-mirror.sh") || exit 1
	mkdir -p "$TRX/lists/partial" "$TRX/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	     "$mirror trixie-backports main" > "$TRX/sources.list"
	# shellcheck disable=SC2046
	apt-get $(trx_opts) -qq update >/dev/null
}

# The kernel image package a suite's linux-image-amd64 meta package pulls.
meta_dep() { # apt-opts suite-regex
	local opts=$1 suite=$2 ver
	# shellcheck disable=SC2086
	ver=$(apt-cache $opts madison linux-image-amd64 |
	      awk -F'|' -v s="$suite" '$3 ~ s { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$ver" ] || die "no linux-image-amd64 in $suite (apt-get update?)"
	# shellcheck disable=SC2086
	apt-cache $opts depends "linux-image-amd64=$ver" |
		awk '/Depends: linux-image-/ { print $2; exit }'
}

resolve() { # slot -> "pkg ..." to download
	local img
	case $1 in
	6.1)
		img=$(meta_dep "" "bookworm(-security)?/main")
		echo "$img-unsigned" ;;
	6.12)
		img=$(meta_dep "" "bookworm-backports/")
		echo "$img-unsigned" ;;
	7.x)
		trx_update
		img=$(meta_dep "$(trx_opts)" "trixie-backports/")
		# There linux-image-* is a meta package over binary + modules.
		echo "${img/linux-image-/linux-binary-} ${img/linux-image-/linux-modules-}" ;;
	*) die "unknown slot '$1' (slots: $SLOTS)" ;;
	esac
}

download() { # slot pkg...
	local slot=$1 opts=""
	shift
	[ "$slot" = 7.x ] && opts=$(trx_opts)
	mkdir -p "$KDIR/debs"
	# shellcheck disable=SC2086
	(cd "$KDIR/debs" && apt-get $opts -o APT::Sandbox::User=root -qq download "$@")
}

fetch_slot() {
	local slot=$1 d=$KDIR/$1 pkgs p deb kver vmlinuz
	if [ -f "$d/info" ] && [ -z "${GPREEMPT_REFRESH_KERNELS:-}" ]; then
		return 0
	fi
	pkgs=$(resolve "$slot")
	[ -n "$pkgs" ] || die "could not resolve a kernel for slot $slot"
	# shellcheck disable=SC2086
	download "$slot" $pkgs
	rm -rf "$d.tmp" && mkdir -p "$d.tmp/root"
	local versions=""
	for p in $pkgs; do
		deb=$(ls -t "$KDIR/debs/${p}_"*.deb | head -n1)
		dpkg-deb -x "$deb" "$d.tmp/root"
		versions="$versions $p=$(dpkg-deb -f "$deb" Version)"
	done
	# 7.x ships everything under usr/lib/modules; give every slot one shape.
	if [ -d "$d.tmp/root/usr/lib/modules" ]; then
		mkdir -p "$d.tmp/root/lib/modules"
		mv "$d.tmp/root/usr/lib/modules/"* "$d.tmp/root/lib/modules/"
	fi
	kver=$(ls "$d.tmp/root/lib/modules" | head -n1)
	vmlinuz=$(ls "$d.tmp/root/boot/vmlinuz-$kver" \
		     "$d.tmp/root/lib/modules/$kver/vmlinuz" 2>/dev/null | head -n1 || true)
	[ -n "$vmlinuz" ] || die "slot $slot: no vmlinuz in$versions"
	[ -n "$(find "$d.tmp/root/lib/modules/$kver" -name 'amdgpu.ko*' -print -quit)" ] ||
		die "slot $slot: kernel $kver ships no amdgpu module"
	# Debian's packages carry no modules.order/builtin: harmless here.
	depmod -b "$d.tmp/root" "$kver" 2>&1 |
		{ grep -v 'could not open modules' >&2 || true; }
	{
		echo "KVER=$kver"
		echo "VMLINUZ=${vmlinuz#"$d.tmp/"}"
		echo "PACKAGES=\"${versions# }\""
	} > "$d.tmp/info"
	rm -rf "$d" && mv "$d.tmp" "$d"
	echo "kernel $slot: $kver (${versions# })"
}

field() { # slot field
	local d=$KDIR/$1
	[ -f "$d/info" ] || die "slot $1 not fetched: run scripts/setup.sh"
	# shellcheck disable=SC1091
	. "$d/info"
	case $2 in
	vmlinuz) echo "$d/$VMLINUZ" ;;
	root) echo "$d/root" ;;
	kver) echo "$KVER" ;;
	packages) echo "$PACKAGES" ;;
	*) die "unknown field '$2'" ;;
	esac
}

case ${1:-} in
fetch)
	shift
	[ $# -gt 0 ] || set -- $SLOTS
	for s in "$@"; do fetch_slot "$s"; done ;;
path) field "${2:?slot}" "${3:?field}" ;;
slots) echo "$SLOTS" ;;
*) die "usage: $0 fetch [SLOT...] | path SLOT FIELD | slots" ;;
esac
