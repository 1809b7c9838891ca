#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Render a tool's manual page from its own --help (help2man). gpreempt-ctl's
# page also gets every command's --help as a subsection of COMMANDS.
# The rendered pages are committed (packaging/man/*.8) so that `make
# install` needs no help2man; `make man` re-renders them and
# tests/bats/packaging.bats fails when they differ from the binaries'.
# The output is reproducible: the date is packaging/debian/changelog's
# (SOURCE_DATE_EPOCH, honoured by help2man 1.47.1+), the locale C, and
# argp's help layout its default (ARGP_HELP_FMT unset).
#
#   packaging/gen-man.sh BINARY INCLUDE.h2m OUT.8
set -euo pipefail
bin=$1 inc=$2 out=$3
command -v help2man >/dev/null || {
	echo "gen-man: help2man is needed to re-render $out (apt-get install help2man);" \
	     "make install uses the committed packaging/man/*.8 and does not need it" >&2
	exit 127
}
export LC_ALL=C
unset ARGP_HELP_FMT COLUMNS
chlog=$(dirname "$0")/debian/changelog
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	d=$(sed -n 's/^ -- .*>  \(.*\)$/\1/p' "$chlog" | head -1)
	SOURCE_DATE_EPOCH=$(date -d "$d" +%s)
	export SOURCE_DATE_EPOCH
fi
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
	"$chlog") ;; esac

help2man --no-info --section 8 --version-string "$version" \
	--include "$tmp" --output "$out.tmp" "$bin"
mv "$out.tmp" "$out"
