#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The doc-test: every fenced shell block of README.md and docs/*.md runs as
# written, on the rung its tag names (docs/development.md, "The doc-test"):
#   ```sh host              on this host, from the top of a scratch copy of
#                           the tree that holds the built ./gpreempt-trace
#                           and ./gpreempt-ctl (bash -e: a failing command
#                           fails the block)
#   ```sh vm                in the Debian 6.12 guest (scripts/vm.sh), tools
#                           on PATH (busybox sh -e)
#   ```sh no-run: REASON    not run; REASON must say why
# A sh/bash/shell/console block without one of these tags, a no-run without
# a reason, or a fence without any info string fails. TAP on stdout.
#
#   tests/doc/doctest.sh [--no-vm] [FILE...]    (default: README.md docs/*.md)
#
# `sudo`: the CI host runs as root without the sudo package; a stand-in on
# PATH runs the command as root (what sudo does for root) and refuses to
# run for anyone else. The guest's /init installs the same (tests/vm/init.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
OUT=${OUTPUT:-.output}
vm=1
if [ "${1:-}" = --no-vm ]; then vm=0; shift; fi
[ $# -gt 0 ] || set -- README.md docs/*.md

work=$(mktemp -d /tmp/gpdoc.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/host" "$work/vm" "$work/vmtests"

# Split the files into blocks: $work/{host,vm}/NNN (the commands) and
# $work/list (one line per shell block: NNN TAG FILE:LINE [REASON]).
awk -v dir="$work" '
function out(s) { print s >> (dir "/list") }
FNR == 1 { inblk = 0 }
/^```/ {
	if (inblk) { inblk = 0; if (f != "") close(f); next }
	inblk = 1; f = ""
	info = substr($0, 4); sub(/[ \t]+$/, "", info)
	where = FILENAME ":" FNR
	n++; id = sprintf("%03d", n)
	if (info == "") { out(id " bad " where " a fence without an info string (```text for output)"); next }
	split(info, w, /[ \t]+/)
	if (w[1] !~ /^(sh|bash|shell|console|zsh)$/) next
	if (info ~ /^sh host$/) { out(id " host " where); f = dir "/host/" id; next }
	if (info ~ /^sh vm$/) { out(id " vm " where); f = dir "/vm/" id; next }
	if (info ~ /^sh no-run: *[^ ]/) {
		r = info; sub(/^sh no-run: */, "", r)
		out(id " no-run " where " " r); next
	}
	out(id " bad " where " shell block tagged \"" info "\": use sh host, sh vm or sh no-run: REASON")
	next
}
inblk && f != "" { print > f }
' "$@"
touch "$work/list"

n=0
failed=0
tap() { # ok|not-ok text
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

while read -r id tag where rest; do
	case $tag in
	bad) tap not-ok "doc $where: $rest" ;;
	no-run) tap ok "doc $where: not run # SKIP $rest" ;;
	esac
done < "$work/list"

# Host blocks, in a scratch copy with the built tools at its top.
if grep -q ' host ' "$work/list"; then
	if make -s OUTPUT="$OUT" BINDIR="$OUT/bin" "$OUT/bin/gpreempt-trace" \
		"$OUT/bin/gpreempt-ctl" >&2; then
		tree=$work/tree
		mkdir -p "$tree" "$work/bin"
		git ls-files -co --exclude-standard -z |
			tar --null -T - -cf - | tar -xf - -C "$tree"
		cp "$OUT/bin/gpreempt-trace" "$OUT/bin/gpreempt-ctl" "$tree/"
		if ! command -v sudo > /dev/null; then
			printf '%s\n' '#!/bin/sh' \
				'# doc-test stand-in: sudo as root runs the command as root' \
				'[ "$(id -u)" = 0 ] || { echo "sudo stand-in: root only" >&2; exit 1; }' \
				'exec "$@"' > "$work/bin/sudo"
			chmod 0755 "$work/bin/sudo"
		fi
		while read -r id tag where rest; do
			[ "$tag" = host ] || continue
			if (cd "$tree" && PATH=$work/bin:$PATH timeout -k 10 600 \
				bash -e "$work/host/$id") > "$work/host/$id.log" 2>&1; then
				tap ok "doc $where (host)"
			else
				tap not-ok "doc $where (host): exit $?"
				sed 's/^/#   /' "$work/host/$id.log" | tail -n 40
			fi
		done < "$work/list"
	else
		tap not-ok "doc: build of the tools for the host blocks failed"
	fi
fi

# Guest blocks: one generated guest test runs them all in one 6.12 boot.
if grep -q ' vm ' "$work/list" && [ $vm = 1 ]; then
	g=$work/vmtests/99-doc.sh
	{
		echo '. /gp/tests/vm/lib.sh'
		# blocks that run a HIP program need the HIP disk (scripts/hipdisk.sh)
		if grep -q -w hip-launch "$work"/vm/*; then echo '# gp-disk: hip'; fi
		echo 'mkdir -p /tmp/doc-wd'
		# Each block is a session of its own; what it leaves running is
		# ended before the next one starts.
		cat <<-'EOF'
		doc_run() { # name file
			( cd /tmp/doc-wd && exec setsid sh -e "$2" ) \
				> /tmp/doc.log 2>&1 &
			pid=$!
			wait $pid
			rc=$?
			kill -TERM -$pid 2>/dev/null
			i=0
			while kill -0 -$pid 2>/dev/null && [ $i -lt 100 ]; do
				sleep 0.1; i=$((i + 1))
			done
			kill -KILL -$pid 2>/dev/null
			if [ $rc = 0 ]; then gp_ok "$1"; else
				gp_fail "$1" "exit $rc"; gp_log /tmp/doc.log; fi
		}
		EOF
		while read -r id tag where rest; do
			[ "$tag" = vm ] || continue
			echo "cat > /tmp/doc-$id.sh <<'GP_DOC_BLOCK_END'"
			cat "$work/vm/$id"
			echo 'GP_DOC_BLOCK_END'
			echo "doc_run 'doc $where (vm)' /tmp/doc-$id.sh"
		done < "$work/list"
	} > "$g"
	VM_EXTRA_TESTS=$work/vmtests scripts/vm.sh test -k 6.12 -t '99-doc.sh' \
		> "$work/vm.tap" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP"*) n=$((n + 1)); echo "ok $n ${line#ok [0-9]* }" ;;
		"ok "*) tap ok "${line#ok [0-9]* - }" ;;
		"not ok "*) tap not-ok "${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$work/vm.tap"
	grep -q '^ok \|^not ok ' "$work/vm.tap" ||
		{ tap not-ok "doc: the guest run printed no result"; tail -n 20 "$work/vm.tap" | sed 's/^/#   /'; }
elif grep -q ' vm ' "$work/list"; then
	while read -r id tag where rest; do
		[ "$tag" = vm ] && n=$((n + 1)) && echo "ok $n - doc $where (vm) # SKIP --no-vm"
	done < "$work/list"
fi
echo "1..$n"
exit $failed
