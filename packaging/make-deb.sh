#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the Debian package (binary only) from the tracked source files,
# in a scratch copy so the work tree is left alone:
#
#   packaging/make-deb.sh OUTDIR     -> OUTDIR/gpreempt_<version>_<arch>.deb
#
# The copy gets packaging/debian/ as debian/. Build dependencies are
# checked by dpkg-buildpackage (scripts/setup.sh installs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=$out/gpreempt
rm -rf "$src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
mkdir -p "$src"
# Tracked files, as they are in the work tree (uncommitted edits too);
# without git (a container build's context), the tree minus build output.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -xf - -C "$src"
else
	tar -C "$top" --exclude=./.output --exclude=./.git -cf - . |
		tar -xf - -C "$src"
fi
cp -r "$top/packaging/debian" "$src/debian"
cd "$src"
dpkg-buildpackage -b -us -uc -j"$(nproc)" >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed; full log: $out/build.log" >&2
	exit 1
}
rm -rf "$src"
ls "$out"/*.deb
