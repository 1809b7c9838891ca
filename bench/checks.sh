# SPDX-License-Identifier: GPL-2.0
# Quick mode's checks of bench/run.sh: each measured path ran and gave
# sane numbers (never a timing threshold). Sourced by run.sh (uses its
# tap and OUT), not run on its own.

# Quick mode: did it run, are the numbers sane, did each tracer trace?
overhead_check() { # raw sum
	local raw=$1 sum=$2 t op n bad why hits
	for op in create dbg create-p dbg-p; do
		n=$(awk -v o="$op" '$1 == "none" && $2 == o { print $3 }' "$sum")
		if [ "${n:-0}" -gt 0 ]; then
			tap ok "overhead quick: untraced $op loop ran, $n samples"
		else
			tap fail "overhead quick: untraced $op loop ran" "no samples"
		fi
	done
	# create fails EINVAL (22, no GPU); SUSPEND/RESUME of a bogus id is 0.
	bad=$(awk '$2 == "run" && (($5 ~ /^create/ && $8 != 22) || ($5 ~ /^dbg/ && $8 != 0) || $7 <= 0)' "$raw" | head -3)
	if [ -z "$bad" ]; then
		tap ok "overhead quick: every sample > 0 ns with the expected errno"
	else
		tap fail "overhead quick: every sample > 0 ns with the expected errno" "$(echo "$bad" | tr '\n' ';')"
	fi
	for t in $(awk '$2 == "attach" || $2 == "skip" { print $3 }' "$raw" | sort -u); do
		why=$(awk -v t="$t" '$2 == "skip" && $3 == t { $1 = $2 = $3 = ""; print; exit }' "$raw" | sed 's/^ *//')
		if [ -n "$why" ]; then
			case $t in
			bpftrace|bt-hist|bt-printf|bt-empty) command -v bpftrace > /dev/null &&
				tap fail "overhead quick: $t attached" "$why" ||
				tap skip "overhead quick: $t attached" "$why" ;;
			*) tap fail "overhead quick: $t attached" "$why" ;;
			esac
			continue
		fi
		n=$(awk -v t="$t" '$2 == "run" && $4 == t && $6 > 0' "$raw" | wc -l)
		hits=$(awk -v t="$t" '$2 == "hits" && $3 == t { s += $5 } END { print s + 0 }' "$raw")
		# Every attach must have traced something, not just the sum.
		if awk -v t="$t" '$2 == "hits" && $3 == t && $4 != "dbg" && $5 == 0 { bad = 1 } END { exit !bad }' "$raw"; then
			tap fail "overhead quick: $t traced in every run" "a run saw 0 events"
		elif [ "$n" -gt 0 ] && [ "$hits" -gt 0 ]; then
			tap ok "overhead quick: $t attached, traced $hits events, $n samples"
		else
			tap fail "overhead quick: $t attached and traced" "$n samples, $hits events seen"
		fi
	done
}

# The immediate path in the VM: every run delivered its exit events.
imm_check() { # raw
	local raw=$1 n
	# the pipe baseline's rows (SCHED .../pipe) are not the path's
	n=$(awk '$1 == "BENCH" && $2 == "imm" && $3 !~ /pipe/ && $5 > 0 { c += $5 } END { print c + 0 }' "$raw")
	if [ "$n" -gt 0 ] && ! grep -q '^BENCH skip imm \(other\|fifo\) rate' "$raw"; then
		tap ok "imm: immediate path delivered $n exit events in the VM"
	else
		tap fail "imm: immediate path delivered events in the VM" \
			"$(grep '^BENCH \(imm\|skip imm\)' "$raw" | tr '\n' ';')"
	fi
}

bpf_check() { # raw
	local raw=$1 n bad
	n=$(awk '$1 == "cost" && $2 != "bench_empty" && $4 > 0 && $9 == 0' "$raw" | wc -l)
	if [ "$n" -ge 4 ]; then
		tap ok "bpf quick: logic cost measured for $n programs, no event lost"
	else
		tap fail "bpf quick: logic cost measured" "$(tr '\n' ';' < "$raw")"
	fi
	# rb KB MODE TARGET OFFERED CONSUMED LOST SECS
	bad=$(awk '$1 == "rb" && ($6 <= 0 || $5 <= 0)' "$raw")
	n=$(awk '$1 == "rb"' "$raw" | wc -l)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
		tap ok "bpf quick: ring buffer consumer ran, $(awk '$1 == "rb" { c += $6 } END { print c }' "$raw") events consumed"
	else
		tap fail "bpf quick: ring buffer consumer ran" "${bad:-no rb lines}"
	fi
	# imm SCHED RATE N P50 P99 MAX MISSED
	# (SCHED .../pipe: the baseline, no BPF: not evidence of the path)
	if awk '$1 == "imm" && $2 !~ /pipe/ && $4 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' "$raw"; then
		tap ok "bpf quick: immediate path delivered $(awk '$1 == "imm" && $2 !~ /pipe/ { c += $4 } END { print c }' "$raw") exit events"
	else
		tap fail "bpf quick: immediate path delivered events" "$(grep '^imm' "$raw" | tr '\n' ';')"
	fi
}

ctl_check() { # raw
	local raw=$1 mode n ok
	for mode in oneshot daemon; do
		n=$(awk -v m=$mode '$2 == "lat" && $3 == m' "$raw" | wc -l)
		ok=$(awk -v m=$mode '$2 == "lat" && $3 == m && $5 > 0 && $6 > 0 && $7 >= 0' "$raw" | wc -l)
		if [ "$n" -gt 0 ] && [ "$ok" = "$n" ]; then
			tap ok "ctl quick: $mode requests matched to traced SUSPEND ioctls, $n samples"
		else
			tap fail "ctl quick: $mode requests matched to traced SUSPEND ioctls" \
				"$ok of $n matched; $(grep '^BENCH ctl-skip' "$raw" | tr '\n' ' ')"
		fi
	done
}

# Arbiter quick mode (guest-arbiter.sh, K = 1 and 4; over 8 GPUs K = 1
# and 8): every offline process attached, and every busy round trip
# answered.
arbiter_check() { # raw
	local raw=$1 k n
	for k in 1 4; do
		n=$(awk -v k=$k '$1 == "BENCH" && $2 == "arb" && $3 == k && $5 > 0' "$raw" | wc -l)
		if grep -q "^BENCH info K=$k offline attached: $k\$" "$raw" && [ "$n" -ge 10 ]; then
			tap ok "arbiter quick: $k offline attached, $n busy round trips"
		else
			tap fail "arbiter quick: $k offline attached, busy round trips" \
				"$(grep "^BENCH info K=$k" "$raw"), $n round trips"
		fi
	done
	# 8 GPUs (stand-in placement): both scopes ran, every busy answered,
	# and SUSPEND ioctls were counted (numbers present; no timing).
	for k in 1 8; do
		for sc in node gpu; do
			n=$(awk -v k=$k -v s=$sc '$2 == "garb" && $3 == s && $4 == k && $6 > 0' "$raw" | wc -l)
			if grep -q "^BENCH info gpus K=$k scope=$sc offline attached: $k\$" "$raw" &&
			   [ "$n" -ge 10 ] &&
			   awk -v k=$k -v s=$sc '$2 == "gioctl" && $3 == s && $4 == k && $5 > 0 { ok = 1 } END { exit !ok }' "$raw"; then
				tap ok "arbiter quick: 8 GPUs, $k offline, --scope $sc: $n busy round trips, ioctls counted"
			else
				tap fail "arbiter quick: 8 GPUs, $k offline, --scope $sc" \
					"$(grep "^BENCH info gpus K=$k scope=$sc" "$raw"), $n round trips; $(grep "^BENCH gioctl $sc $k " "$raw")"
			fi
		done
	done
}
