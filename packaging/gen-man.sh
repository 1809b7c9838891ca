#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Render a tool's manual page from its own --help (help2man), so the page
# cannot drift from the binary. gpreempt-ctl's page also gets every
# command's --help as a subsection of COMMANDS.
#
#   packaging/gen-man.sh BINARY INCLUDE.h2m OUT.8
set -euo pipefail
bin=$1 inc=$2 out=$3
name=$(basename "$bin")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cp "$inc" "$tmp"

if [ "$name" = gpreempt-ctl ]; then
	# The command list is the binary's own ("Commands:" block of --help).
	cmds=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
	[ -n "$cmds" ] || { echo "gen-man: no commands in $bin --help" >&2; exit 1; }
	echo '[COMMANDS]' >> "$tmp"
	for c in $cmds; do
		printf '.SS "%s"\n.nf\n' "$c" >> "$tmp"
		# Escape roff: backslashes, and lines starting with . or '.
		"$bin" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" >> "$tmp"
		printf '.fi\n' >> "$tmp"
	done
fi

version=$("$bin" --version 2>/dev/null | head -1 | awk '{print $NF}') || true
case $version in [0-9]*) ;; *) version=$(sed -n '1s/.*(\([^)]*\)).*/\1/p' \
	"$(dirname "$0")/debian/changelog") ;; esac

help2man --no-info --section 8 --version-string "$version" \
	--include "$tmp" --output "$out.tmp" "$bin"
mv "$out.tmp" "$out"
