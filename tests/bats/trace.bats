#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# gpreempt-trace's command-line surface on the host (root, no AMD GPU):
# help, bad flags (exit 2), not root (3), no /dev/kfd (4), nothing to
# attach (6), --check. What happens with a real KFD is tested in the VM
# (tests/vm/2*.sh); here nothing claims kernel behaviour the host lacks.
#
# "No amdgpu" cases: the tool checks /dev/kfd before loading BPF. To reach
# the attach stage on this host, a few tests give it an empty file named
# /dev/kfd inside a private mount namespace (a tmpfs over /dev, invisible
# to the rest of the machine). The tool then really tries the host kernel,
# which really has no amdgpu: every hook is absent.

bats_require_minimum_version 1.5.0

setup() {
	TRACE=${GP_BIN:-$BATS_TEST_DIRNAME/../..}/gpreempt-trace
	[ -x "$TRACE" ] || skip "no gpreempt-trace at $TRACE (set GP_BIN)"
	TRACE=$(readlink -f "$TRACE")
	# A copy uid 65534 can reach (the work tree may be root-only); made
	# here, not in as_nobody, which runs in run's subshell.
	NOBODY_DIR=$(mktemp -d /tmp/gp-trace-bats.XXXXXX)
	cp "$TRACE" "$NOBODY_DIR/gpreempt-trace"
	chmod 755 "$NOBODY_DIR" "$NOBODY_DIR/gpreempt-trace"
}

teardown() {
	[ -n "${NOBODY_DIR:-}" ] && rm -rf "$NOBODY_DIR" || true
}

# no_amdgpu ARGS...: run the tracer where /dev/kfd exists but is not KFD.
no_amdgpu() {
	unshare -m sh -c 'mount -t tmpfs gp-test /dev && : > /dev/kfd &&
		exec "$0" "$@"' "$TRACE" "$@"
}

# as_nobody [--caps=LIST] ARGS...: the tracer as uid/gid 65534, no
# groups, and no capabilities but LIST (e.g. --caps=bpf,perfmon).
as_nobody() {
	local caps=()
	if [[ "${1:-}" == --caps=* ]]; then
		caps=(--inh-caps="+${1#--caps=}" --ambient-caps="+${1#--caps=}")
		caps[0]=${caps[0]//,/,+}
		caps[1]=${caps[1]//,/,+}
		shift
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups "${caps[@]}" \
		"$NOBODY_DIR/gpreempt-trace" "$@"
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

@test "trace --help: exit 0, documents the flags, has EXAMPLES" {
	run -0 --separate-stderr "$TRACE" --help
	[[ "$output" == *"Usage: gpreempt-trace"* ]]
	[[ "$output" == *EXAMPLES:* ]]
	for f in --pid --duration --interval --timestamp --milliseconds \
		 --microseconds --json --summary --all-dbg --kprobes --check \
		 --verbose; do
		[[ "$output" == *"$f"* ]] || { echo "missing $f"; false; }
	done
	# exit codes are part of the interface
	[[ "$output" == *"4 no /dev/kfd"* ]]
	[ -z "$stderr" ]
}

@test "trace -h and --version: exit 0 on stdout" {
	run -0 --separate-stderr "$TRACE" -h
	[[ "$output" == *EXAMPLES:* ]]
	run -0 --separate-stderr "$TRACE" --version
	[[ "$output" == "gpreempt-trace "* ]]
}

@test "trace --help needs no privilege" {
	run -0 as_nobody --help
	[[ "$output" == *EXAMPLES:* ]]
}

@test "trace unknown flag: exit 2, message on stderr, nothing on stdout" {
	run -2 --separate-stderr "$TRACE" --no-such-flag
	[[ "$stderr" == *"unrecognized option '--no-such-flag'"* ]]
	[[ "$stderr" == *"--help"* ]]
	[ -z "$output" ]
}

@test "trace stray argument: exit 2" {
	run -2 --separate-stderr "$TRACE" 5
	[[ "$stderr" == *"unexpected argument: 5"* ]]
	[ -z "$output" ]
}

@test "trace bad values: exit 2 naming the value" {
	local args
	for args in "-d abc" "-d 0" "-d -5" "-d 10parsecs" "-i 0" \
		    "-i soon" "-p 0" "-p -1" "-p abc" "-p 12x" \
		    "-p 99999999999"; do
		run -2 --separate-stderr "$TRACE" $args
		[[ "$stderr" == *"invalid"*"${args#-? }"* ]] ||
			{ echo "args: $args stderr: $stderr"; false; }
		[ -z "$output" ]
	done
}

@test "trace missing flag value: exit 2" {
	run -2 --separate-stderr "$TRACE" -d
	[[ "$stderr" == *"requires an argument"* ]]
	run -2 --separate-stderr "$TRACE" -p
	[[ "$stderr" == *"requires an argument"* ]]
}

@test "trace -k with --reduced: exit 2, says why" {
	run -2 --separate-stderr "$TRACE" -k --reduced
	[[ "$stderr" == *"--reduced"* ]]
	[ -z "$output" ]
}

@test "trace --metrics with a bad address: exit 2 before any probe, says what it wants" {
	local addr
	for addr in foo 127.0.0.1 127.0.0.1:0 example.com:9465 "[::1]9465"; do
		run -2 --separate-stderr "$TRACE" --metrics "$addr"
		[[ "$stderr" == *"bad metrics address '$addr'"*"IP:PORT"* ]] ||
			{ echo "addr: $addr stderr: $stderr"; false; }
		[ -z "$output" ]
	done
}

@test "trace with standard output on /dev/null: summary mode, said on stderr; a pipe or -s: nothing said" {
	# The decision only: the host has no /dev/kfd, so the tool stops there
	# (exit 4); the summary run itself is L2 (tests/vm/25-trace-summary.sh).
	run -4 bash -c '"$1" -d 1 2>&1 >/dev/null' _ "$TRACE"
	[[ "$output" == *"standard output is /dev/null: summary mode (-s)"* ]]
	run -4 --separate-stderr "$TRACE" -d 1
	[[ "$stderr" != *"summary mode"* ]]
	run -4 bash -c '"$1" -s -d 1 2>&1 >/dev/null' _ "$TRACE"
	[[ "$output" != *"summary mode"* ]]
}

@test "trace too many -p: exit 2" {
	local args=() i
	for i in $(seq 1 65); do args+=(-p "$i"); done
	run -2 --separate-stderr "$TRACE" "${args[@]}"
	[[ "$stderr" == *"at most 64"* ]]
}

@test "trace bad flags are reported before privilege (nobody: exit 2)" {
	run -2 as_nobody -d abc
	[[ "$output" == *"invalid duration: abc"* ]]
}

@test "trace not root: exit 3 and says what is needed" {
	run -3 --separate-stderr as_nobody -d 1
	[[ "$stderr" == *root* ]]
	[[ "$stderr" == *CAP_BPF* ]]
	[ -z "$output" ]
}

@test "trace not root but CAP_BPF+CAP_PERFMON: passes the privilege check" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	# it gets as far as the /dev/kfd check: exit 4, not 3
	run -4 --separate-stderr as_nobody --caps=bpf,perfmon -d 1
	[[ "$stderr" == *amdgpu* ]]
	# one of the two is not enough
	run -3 --separate-stderr as_nobody --caps=bpf -d 1
	[[ "$stderr" == *CAP_PERFMON* ]]
	run -3 --separate-stderr as_nobody --caps=perfmon -d 1
}

@test "trace not root with --check or -j: still exit 3" {
	run -3 --separate-stderr as_nobody --check
	[[ "$stderr" == *root* ]]
	run -3 --separate-stderr as_nobody -j
	[ -z "$output" ]
}

@test "trace every documented flag parses (gets to the /dev/kfd check)" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	local args ready=$BATS_TEST_TMPDIR/ready
	for args in "-p 1 -p 2" "--pid=3" "-d 500ms" "-d 10" "--duration=2m" \
		    "-i 1s" "-T" "-m" "-u" "-j" "--json" "-k" "--kprobes" \
		    "--reduced" "--check" "-v" "--no-pin" "-s" "--summary" \
		    "--all-dbg" "-s -j -i 1s" "--metrics 127.0.0.1:9465" \
		    "--metrics=[::1]:9465" "--ready-file $ready" \
		    "-T -m -j -v -p 9 -d 1 -i 1"; do
		run -4 --separate-stderr "$TRACE" $args
		[[ "$stderr" == *amdgpu* ]] ||
			{ echo "args: $args stderr: $stderr"; false; }
	done
	# a refused start writes no ready file
	[ ! -e "$ready" ]
}

@test "trace without /dev/kfd: exit 4, points at amdgpu" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	run -4 --separate-stderr "$TRACE"
	[[ "$stderr" == *"/dev/kfd"* ]]
	[[ "$stderr" == *amdgpu* ]]
	[ -z "$output" ]
}

@test "trace -j without /dev/kfd: exit 4, stdout stays clean NDJSON" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	run -4 --separate-stderr "$TRACE" -j
	[ -z "$output" ]
	[[ "$stderr" == *amdgpu* ]]
}

@test "trace -d 1 without /dev/kfd fails at once, not after 1 s" {
	[ ! -e /dev/kfd ] || skip "this host has /dev/kfd"
	local t0 t1
	t0=$(now_ms)
	run -4 --separate-stderr "$TRACE" -d 1
	t1=$(now_ms)
	[ $((t1 - t0)) -lt 900 ] || { echo "took $((t1 - t0)) ms"; false; }
}

@test "trace -d 2 ends on time (needs a real /dev/kfd)" {
	[ -c /dev/kfd ] || skip "no KFD on this host: covered in the VM"
	local t0 t1
	t0=$(now_ms)
	run -0 --separate-stderr timeout -s KILL 10 "$TRACE" -d 2
	t1=$(now_ms)
	[ $((t1 - t0)) -ge 2000 ] && [ $((t1 - t0)) -lt 5000 ] ||
		{ echo "took $((t1 - t0)) ms"; false; }
	[[ "$output" == *latency* || "$output" == *"No latencies"* ]]
}

@test "trace --check with no amdgpu: every hook absent, why, exit 6" {
	grep -qs '^amdgpu ' /proc/modules && skip "amdgpu is loaded here"
	run -6 --separate-stderr no_amdgpu --check
	[[ "$output" == *"amdgpu module: not loaded"* ]]
	local f
	for f in kfd_ioctl_create_queue kfd_ioctl_destroy_queue \
		 kfd_procfs_add_queue evict_process_queues_cpsch \
		 restore_process_queues_cpsch kfd_process_evict_queues \
		 kfd_ioctl_set_debug_trap suspend_queues resume_queues; do
		echo "$output" | grep -Eq "^ +$f +absent +[a-z]" ||
			{ echo "no absent line for $f"; false; }
	done
	! echo "$output" | grep -q ' attached'
}

@test "trace --check -j with no amdgpu: NDJSON, every hook not attached" {
	grep -qs '^amdgpu ' /proc/modules && skip "amdgpu is loaded here"
	run -6 --separate-stderr no_amdgpu --check -j
	echo "$output" | jq -e . >/dev/null
	# at least the nine core hooks, none attached, each says why
	[ "$(echo "$output" | jq -s '[.[] | select(.func?)] | length')" -ge 9 ]
	[ "$(echo "$output" | jq -s '[.[] | select(.func? and .attached)] |
		length')" = 0 ]
	[ "$(echo "$output" | jq -s '[.[] | select(.func? and
		((.why // "") | length) == 0)] | length')" = 0 ]
}

@test "trace with no amdgpu: exit 6, no probe could attach, fast" {
	grep -qs '^amdgpu ' /proc/modules && skip "amdgpu is loaded here"
	local t0 t1
	t0=$(now_ms)
	run -6 --separate-stderr no_amdgpu -d 1
	t1=$(now_ms)
	[[ "$stderr" == *"could attach"* ]]
	[[ "$stderr" == *"--check"* ]]
	[ -z "$output" ]
	# it gave up without waiting out -d
	[ $((t1 - t0)) -lt 5000 ] || { echo "took $((t1 - t0)) ms"; false; }
	# and left no pinned map behind
	[ ! -e /sys/fs/bpf/gpreempt/queues ]
}

@test "trace: the kernel refusing the BPF programs exits 5, not 1" {
	# Root without CAP_PERFMON and CAP_SYS_ADMIN: bpf(2) works (the
	# pre-check creates a map) but the kernel really refuses tracing
	# programs, as a locked-down or restricted kernel would.
	run --separate-stderr unshare -m sh -c 'mount -t tmpfs gp-test /dev &&
		: > /dev/kfd && exec setpriv --bounding-set=-perfmon,-sys_admin \
		--inh-caps=-perfmon,-sys_admin "$0" "$@"' "$TRACE" -d 1
	echo "status $status: $stderr"
	[ "$status" -eq 5 ]
	[[ "$stderr" == *"refused the BPF programs"* ]]
}
