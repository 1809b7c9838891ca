#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shape of user/, checked from the #include lines and (check 4) the
# definitions and uses themselves (so it cannot drift from the code); TAP
# on stdout. docs/architecture.md says
# why the layers are what they are.
#
#   tests/structure/check-layers.sh [ROOT]    ROOT: a tree with user/ (.)
#
# 1. no file under user/daemon/ includes a header of user/arbiter/ (the
#    daemon is a host for modules and names none: daemon_module.h);
# 2. every include points to the same folder or a lower layer (rank);
# 3. no include circle among the files of user/;
# 4. no call circle among the .c files of one folder: file A uses a name
#    that file B defines (c-defs.awk) and B, through any chain of the
#    folder's files, uses one of A's. A file that both serves the others
#    and calls them back belongs split: the shared core below, callbacks
#    registered upward (docs/architecture.md).
# 5. no module includes daemon_int.h: a module (a folder with a file that
#    defines a struct gp_module) calls down through daemon_host.h only;
# 6. no daemon file names a module's concept: it uses no name a module's
#    files define (functions, variables, macros, tags, enum constants)
#    and its strings do not say a module's name (its gp_module's .name):
#    a limit cause, a message or a metric of a module is the module's,
#    registered through daemon_module.h.
# A header is found by its bare name in user/*/ or user/*/*/ (the Makefile puts every
# folder on -I, so names are unique); names found nowhere in user/ are
# the system's, bpf/'s or generated (skeletons) and are not layered.
set -uo pipefail
shopt -s nullglob

here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/../..}
cd "$root" || exit 1

# Bottom to top. A folder may include its own headers and those of any
# folder with a lower rank; equal ranks are peers that include neither.
declare -A rank=(
	[notify]=0	# gp_notify: libc only, copied into servers
	[base]=1	# no GPU: errors, JSON, /proc, sockets
	[kfd]=2		# the kernel's ABI and topology
	[session]=3	# ptrace and the debug-trap session
	[metrics]=3	# exposition, HTTP endpoint, histograms
	[policy]=3	# pure decisions: no I/O, clock injected
	[backend]=4	# how a process's GPU work stops: kfd/, cuda/
	[proto]=4	# the wire protocol
	[trace]=5	# gpreempt-trace
	[detect]=6	# activity detectors: one record through one feed
	[daemon]=6	# the host
	[arbiter]=7	# a module of the daemon
	[ctl]=8		# gpreempt-ctl (and the daemon's composition root)
)

edges=$(mktemp)
calls=$(mktemp -d)
trap 'rm -rf "$edges" "$calls"' EXIT
declare -A home=()
for f in user/*/*.h user/*/*/*.h; do
	home[$(basename "$f")]=$f
done
for f in user/*/*.[ch] user/*/*/*.[ch]; do
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

echo "1..6"
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
# Comments and strings go first (cc -fpreprocessed, then sed): names
# they mention are no calls.
strip() {
	${CC:-cc} -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null |
		sed -E 's/"([^"\\]|\\.)*"/""/g'
}
for dir in user/*/ user/*/*/; do
	for f in "$dir"*.c; do
		[ -e "$f" ] || continue
		strip "$f" > "$calls/src"
		awk -f "$here/c-defs.awk" "$calls/src" |
			sed "s|^|$f |" >> "$calls/defs"
		grep -ow '[A-Za-z_][A-Za-z0-9_]*' "$calls/src" | sort -u |
			sed "s|^|$f |" >> "$calls/uses"
	done
done
# "A B name": A uses name, which B of the same folder defines.
awk 'NR == FNR { def[$2] = $1; next }
     ($2 in def) && def[$2] != $1 {
	a = $1; b = def[$2]; sub(/[^/]*$/, "", a); sub(/[^/]*$/, "", b)
	if (a == b) print $1, def[$2], $2
     }' "$calls/defs" "$calls/uses" > "$calls/edges"
loop=$(awk '{ print $1, $2 }' "$calls/edges" | sort -u | tsort 2>&1 >/dev/null |
	grep -v "input contains a loop" | sort -u)
ties=$(for f in $loop; do
	awk -v f="$f" -v in_loop=" $(echo $loop) " '$1 == f && index(in_loop, " " $2 " ") {
		names[$2] = names[$2] " " $3 }
	     END { for (b in names) print f " -> " b ":" names[b] }' "$calls/edges"
done)
# without a compiler every file would read empty and check 4 pass unseen
command -v "${CC:-cc}" >/dev/null ||
	ties="no C compiler (${CC:-cc}) to strip the sources with: set CC"
verdict 4 "no call circle among the files of one folder" \
	"a call circle (file -> file: the names it uses)" "$ties"

# The modules: folders with a file that defines a struct gp_module, and
# the names those say they are (.name).
modules=$(grep -lE '^(static )?const struct gp_module [A-Za-z_0-9]+ = [{]' \
	user/*/*.c user/*/*/*.c 2>/dev/null | sed 's|/[^/]*$||' | sort -u)
bad=$(for m in $modules; do
	while read -r f t; do
		case $f in "$m"/*) ;; *) continue ;; esac
		[ "$t" = user/daemon/daemon_int.h ] &&
			echo "$f includes $t (use daemon_host.h)"
	done < "$edges"
done)
verdict 5 "no module includes daemon_int.h" \
	"a module includes daemon_int.h (the daemon's private structs)" \
	"$bad"

# Every name a module's files define: the .c files' external names
# (check 4's), and its headers' macros, struct/union/enum tags, typedefs
# and enum constants.
for m in $modules; do
	for f in "$m"/*.c "$m"/*/*.c; do
		[ -e "$f" ] || continue
		awk -v f="$f" '$1 == f { print $2 }' "$calls/defs"
	done
	for f in "$m"/*.h "$m"/*/*.h; do
		[ -e "$f" ] || continue
		strip "$f" | awk '
			/^[[:space:]]*#[[:space:]]*define[[:space:]]/ {
				sub(/^[[:space:]]*#[[:space:]]*define[[:space:]]+/, "")
				sub(/[^A-Za-z0-9_].*/, ""); print; next }
			{ line = $0
			  while (match(line, /(struct|union|enum)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*[{]/)) {
				t = substr(line, RSTART, RLENGTH); sub(/^[a-z]+[[:space:]]+/, "", t)
				sub(/[[:space:]]*[{]$/, "", t); print t
				line = substr(line, RSTART + RLENGTH) } }
			/^typedef/ { t = $0; sub(/;.*/, "", t); sub(/\).*/, "", t)
				if (match(t, /[A-Za-z_][A-Za-z0-9_]*$/)) print substr(t, RSTART, RLENGTH) }
			/enum[^;]*[{]/ { in_enum = 1; next }
			in_enum && /[}]/ { in_enum = 0 }
			in_enum && match($0, /^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*/) {
				t = substr($0, RSTART, RLENGTH); gsub(/[[:space:]]/, "", t); print t }'
	done
done | sort -u > "$calls/modnames"
# The modules' own names (gp_module.name), for the strings.
modwords=$(for m in $modules; do
	awk '/struct gp_module [A-Za-z_0-9]+ = [{]/ { on = 1 }
	     on && match($0, /\.name = "[^"]+"/) {
		s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s)
		sub(/"$/, "", s); print s; on = 0 }' "$m"/*.c "$m"/*/*.c 2>/dev/null
done | sort -u)
bad=$(for f in user/daemon/*.[ch] user/daemon/*/*.[ch]; do
	[ -e "$f" ] || continue
	strip "$f" | grep -ow '[A-Za-z_][A-Za-z0-9_]*' | sort -u |
		comm -12 - "$calls/modnames" | sed "s|^|$f uses |"
	for w in $modwords; do
		${CC:-cc} -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null |
			grep -oE '"([^"\\]|\\.)*"' | grep -qi -- "$w" &&
			echo "$f says \"$w\" in a string"
	done
done)
verdict 6 "no daemon file names a module's concept" \
	"a daemon file names a module's concept (register it: daemon_module.h)" \
	"$bad"
[ "$fails" -eq 0 ]
