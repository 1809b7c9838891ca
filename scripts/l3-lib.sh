# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the L3 kits (scripts/l3-colocate.sh, l3-gpus.sh, l3-launch.sh) share:
# option parsing, refusals with their exit codes, the output folder, the
# HIP build, child clean-up and the closing analysis. Sourced (not run)
# after the kit sets `kit` (its name in messages) and `top` (the tree).
#
# Exit codes every kit keeps: 2 bad usage or nothing to judge, 3 not root,
# 4 no /dev/kfd, 5 no hipcc (or no workload), 6 the tree is not built.
# Test hooks: L3_KFD (device checked instead of /dev/kfd), L3_BIN (folder
# of gpreempt-ctl and gpreempt-trace), L3_HIPCC (the HIP compiler).

# Defaults every kit has; each kit sets its own --duration.
rate=20
out=""
analyze_only=""

l3_die() { echo "$kit: $2" >&2; exit "$1"; }

# --help: the kit's header comment, from its third line to the code.
l3_help() {
	awk 'NR < 3 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"
	exit 0
}

# l3_parse "--flag var ..." ARGS...: every option takes one value, stored
# in the named variable; -h/--help prints the header; anything else is
# refused (exit 2) before the kit touches anything.
l3_parse() {
	local table=$1 f found
	shift
	while [ $# -gt 0 ]; do
		case $1 in -h|--help) l3_help ;; esac
		found=""
		for f in $table; do
			if [ -z "$found" ] && [ "$f" = "$1" ]; then found=next
			elif [ "$found" = next ]; then found=$f; break
			fi
		done
		case $found in ''|next) l3_die 2 "unknown option '$1' (see --help)" ;; esac
		[ $# -ge 2 ] || l3_die 2 "$1 needs a value"
		printf -v "$found" '%s' "$2"
		shift 2
	done
}

l3_numbers() { # value...: each a non-negative number
	local n
	for n; do
		case $n in ''|*[!0-9.]*) l3_die 2 "not a positive number: '$n'" ;; esac
	done
}

# --analyze-only DIR: re-analyse a finished run (no GPU) and exit with the
# kit's analyze's status. A second argument names a folder DIR must hold.
l3_analyze_only() { # dir [subfolder]
	[ -n "$1" ] || return 0
	if [ -n "${2:-}" ]; then
		[ -d "$1/$2" ] || l3_die 2 "$1 has no $2/ folder"
	else
		[ -d "$1" ] || l3_die 2 "no folder $1"
	fi
	analyze "$1"
	exit $?
}

# Refusals, before anything is created.
l3_need_root() { # why
	[ "$(id -u)" = 0 ] || l3_die 3 "run as root: $1"
}
l3_need_kfd() { # what the kit needs
	kfd=${L3_KFD:-/dev/kfd}
	[ -c "$kfd" ] || l3_die 4 "no $kfd: is amdgpu loaded and is there an AMD GPU? (this kit needs $1)"
}
l3_need_tools() { # sets ctl and trace; with "trace", both must be built
	ctl=${L3_BIN:-$top}/gpreempt-ctl
	trace=${L3_BIN:-$top}/gpreempt-trace
	if [ "${1:-}" = trace ]; then
		[ -x "$ctl" ] && [ -x "$trace" ] || l3_die 6 "build first: make (no $ctl or $trace)"
	else
		[ -x "$ctl" ] || l3_die 6 "build first: make (no $ctl)"
	fi
}
l3_have_hipcc() {
	hipcc=${L3_HIPCC:-hipcc}
	command -v "$hipcc" >/dev/null
}
l3_need_hipcc() {
	l3_have_hipcc || l3_die 5 "hipcc not found (install ROCm's hipcc)"
}

l3_outdir() { # mktemp-name subfolder...: sets out
	local s
	[ -n "$out" ] || out=$(mktemp -d "/tmp/$1.XXXXXX")
	shift
	for s; do mkdir -p "$out/$s" || l3_die 2 "cannot create $out"; done
}

# What every kit's host.txt starts with.
l3_host_lines() {
	echo "date: $(date -u +%FT%TZ)"
	echo "kernel: $(uname -r)"
	echo "gpreempt: $(git -C "$top" describe --always --dirty 2>/dev/null)"
}

l3_build_hip() { # workload...: tests/l3/W.hip -> $out/gp-l3-W
	local w
	for w; do
		"$hipcc" -O2 -I"$top/tests/l3" -o "$out/gp-l3-$w" "$top/tests/l3/$w.hip" ||
			l3_die 5 "hipcc failed on tests/l3/$w.hip"
	done
}

# Children the kit started (pids+=($!)); killed on exit and between runs.
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	pids=()
}
l3_trap() { trap cleanup EXIT INT TERM; }

wait_for() { # secs cmd...: poll until cmd succeeds
	local s=$1
	shift
	for _ in $(seq $((s * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}

# The end of a measured run: analyse the output folder, say where it is.
l3_finish() {
	local rc
	trap - EXIT INT TERM
	echo
	analyze "$out"
	rc=$?
	echo "output: $out (send it with a bug report)"
	exit $rc
}
