#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No tracked file names a place outside the repository: an absolute path of
# a build machine (the home, user, mount and work directories that `abs`
# below lists) or a relative path that climbs out of the tree
# (../shared, a ../ chain that leaves the top from where its file lives).
# System paths the tools use (/usr, /sys, /dev, /run, /proc, /tmp,
# /var/cache/gpreempt, /etc) pass. TAP on stdout; exit 1 on a finding.
#
#   tests/doc/paths.sh [TREE]     (default: this repository; TREE must be
#                                  a git work tree: its tracked and new,
#                                  not ignored, files are read)
set -uo pipefail

tree=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$tree" || exit 1
top=$(pwd -P)
self=tests/doc/paths.sh
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT

# Absolute paths: the directory must start a path (not be the tail of
# one, as in /var/cache/gpreempt/rocr/root or $d/root).
abs='(^|[][ \t"'\''`(<>=:,;|{}])/(work|home|root|Users|mnt)/'
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
	[ "$f" = "$self" ] && continue
	[ -f "$f" ] || continue
	grep -IqE '.' "$f" 2>/dev/null || continue # binary or empty
	grep -nIE "$abs" "$f" | sed "s|^|$f:|" >> "$bad"
	grep -nIF '../shared' "$f" | sed "s|^|$f:|" >> "$bad"
	# Relative paths that start a token: resolve from the file's folder.
	dir=$(dirname "$f")
	grep -noIE '(^|[][ \t"'\''`(<>=:,;|{}])(\.\./)+[A-Za-z0-9._-]*' "$f" |
	while IFS=: read -r line m; do
		rel=${m#"${m%%.*}"}
		d=$top/$dir/$rel
		# Normalise without requiring the target to exist.
		n=$(realpath -m "$d")
		case $n/ in "$top"/*) ;; *) echo "$f:$line: $rel leaves the tree" >> "$bad" ;; esac
	done
done

if [ -s "$bad" ]; then
	echo "not ok 1 - no tracked file names a path outside the repository"
	sed 's/^/#   /' "$bad"
	echo "1..1"
	exit 1
fi
echo "ok 1 - no tracked file names a path outside the repository"
echo "1..1"
