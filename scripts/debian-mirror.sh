#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian archive mirror this machine already uses, for the scripts
# that add package lists (setup.sh: bookworm-backports, kernels.sh:
# trixie-backports, rocr.sh and hipcc.sh: trixie). An operator behind a
# proxy or with a local mirror edits nothing in the project.
#
#   scripts/debian-mirror.sh [SOURCES-FILE...]
#
# Prints the URI of the first enabled `deb` entry for a Debian suite
# (bookworm, trixie, stable, ... with -updates, -backports) that is not
# the security archive, from /etc/apt/sources.list and
# /etc/apt/sources.list.d/*.list and *.sources (one-line and deb822
# formats), or from the files given. GPREEMPT_DEBIAN_MIRROR, when set,
# wins: the one documented override. Exit 1, saying so, when none is found.
set -euo pipefail

if [ -n "${GPREEMPT_DEBIAN_MIRROR:-}" ]; then
	echo "${GPREEMPT_DEBIAN_MIRROR%/}"
	exit 0
fi

if [ $# -eq 0 ]; then
	set -- /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources
fi

# Debian's codenames and aliases; a third-party repository (a vendor's
# own suite names) is never taken for the archive.
SUITES='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)(-updates|-backports|-proposed-updates)?$'

# Every entry as "URI SUITE" lines, in file order. One-line format:
#   deb [opts] URI SUITE COMPONENT...
# deb822: stanzas of Types:, URIs:, Suites:, Enabled: (blank-line separated).
entries() { # file
	case $1 in
	*.sources)
		awk '
		function flush(   i, j, nu, ns, u, s) {
			if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false)$/) {
				nu = split(uris, u, " "); ns = split(suites, s, " ")
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++) print u[i], s[j]
			}
			types = uris = suites = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			key = tolower($1); sub(/:$/, "", key)
			val = $0; sub(/^[^:]*:[ \t]*/, "", val)
			if (key == "types") types = val
			else if (key == "uris") uris = val
			else if (key == "suites") suites = val
			else if (key == "enabled") enabled = tolower(val)
		}
		END { flush() }' "$1" ;;
	*)
		awk '
		{ sub(/#.*/, "") }
		$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			if (i + 1 <= NF) print $i, $(i + 1)
		}' "$1" ;;
	esac
}

for f in "$@"; do
	[ -r "$f" ] || continue
	while read -r uri suite; do
		[[ $suite =~ $SUITES ]] || continue
		case $uri in *debian-security*) continue ;; esac
		echo "${uri%/}"
		exit 0
	done < <(entries "$f")
done
echo "debian-mirror.sh: no Debian archive in ${*}; set GPREEMPT_DEBIAN_MIRROR to" \
     "the mirror's URI (e.g. the one your proxy serves)" >&2
exit 1
