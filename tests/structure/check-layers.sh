#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shape of user/, checked from the #include lines themselves (so it
# cannot drift from the code); TAP on stdout. docs/architecture.md says
# why the layers are what they are.
#
#   tests/structure/check-layers.sh [ROOT]    ROOT: a tree with user/ (.)
#
# 1. no file under user/daemon/ includes a header of user/arbiter/ (the
#    daemon is a host for modules and names none: daemon_module.h);
# 2. every include points to the same folder or a lower layer (rank);
# 3. no include circle among the files of user/.
# A header is found by its bare name in user/*/ (the Makefile puts every
# folder on -I, so names are unique); names found nowhere in user/ are
# the system's, bpf/'s or generated (skeletons) and are not layered.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1

# Bottom to top. A folder may include its own headers and those of any
# folder with a lower rank; equal ranks are peers that include neither.
declare -A rank=(
	[notify]=0	# gp_notify: libc only, copied into servers
	[base]=1	# no GPU: errors, JSON, /proc, sockets
	[kfd]=2		# the kernel's ABI and topology
	[session]=3	# ptrace and the debug-trap session
	[metrics]=3	# exposition, HTTP endpoint, histograms
	[proto]=4	# the wire protocol
	[trace]=5	# gpreempt-trace
	[daemon]=6	# the host
	[arbiter]=7	# a module of the daemon
	[ctl]=8		# gpreempt-ctl (and the daemon's composition root)
)

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
declare -A home=()
for f in user/*/*.h; do
	home[$(basename "$f")]=$f
done
for f in user/*/*.[ch]; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r h; do
		t=${home[$(basename "$h")]:-}
		[ -n "$t" ] && echo "$f $t"
	done
done > "$edges"

layer() { local d=${1#user/}; echo "${d%%/*}"; }
fails=0
# verdict N PASS-TEXT FAIL-TEXT FOUND: one TAP line, FOUND's lines below
# a failure as diagnostics.
verdict() {
	local l
	if [ -z "$4" ]; then
		echo "ok $1 - $2"
		return
	fi
	fails=$((fails + 1))
	echo "not ok $1 - $3"
	while IFS= read -r l; do echo "#   $l"; done <<<"$4"
}

echo "1..3"
bad=$(while read -r f t; do
	[ "$(layer "$f")" = daemon ] && [ "$(layer "$t")" = arbiter ] &&
		echo "$f includes $t"
done < "$edges")
verdict 1 "no file under user/daemon includes an arbiter header" \
	"the daemon includes arbiter headers (register through daemon_module.h instead)" \
	"$bad"

bad=$(while read -r f t; do
	a=$(layer "$f") b=$(layer "$t")
	[ "$a" = "$b" ] && continue
	ra=${rank[$a]:-} rb=${rank[$b]:-}
	if [ -z "$ra" ] || [ -z "$rb" ]; then
		echo "$f includes $t: folder without a layer" \
		     "(give it a rank in $0)"
	elif [ "$rb" -ge "$ra" ]; then
		echo "$f ($a, layer $ra) includes $t ($b, layer $rb)"
	fi
done < "$edges")
verdict 2 "every include points down (or within its folder)" \
	"includes that point up or across" "$bad"

# tsort names the files of a loop on stderr ("input contains a loop").
loop=$(awk '$1 != $2' "$edges" | tsort 2>&1 >/dev/null)
verdict 3 "no include circle among the files of user/" \
	"an include circle" "$loop"
[ "$fails" -eq 0 ]
