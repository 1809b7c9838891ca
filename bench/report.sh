# SPDX-License-Identifier: GPL-2.0
# Summary tables of bench/run.sh, from the raw output in $OUT: sourced by
# run.sh (uses its OUT, slot, pct and stats), not run on its own.

# "imm SCHED RATE N P50_NS P99_NS MAX_NS MISSED" lines of RAW as a table.
imm_rows() { # raw where
	echo
	echo "Immediate path ($2): BPF timestamp of a real exit event -> the embedded"
	echo "consumer's callback (user/trace/probe.h, epoll), us; rate 0 = back to back;"
	echo "/pipe: the baseline, a pipe write just before the exit, no BPF"
	printf '%-10s %6s %6s %9s %9s %9s %7s\n' sched rate n p50 p99 max missed
	awk '$1 == "imm" { printf "%-10s %6d %6d %9.1f %9.1f %9.1f %7d\n", $2, $3, $4, $5 / 1000, $6 / 1000, $7 / 1000, $8 }' "$1"
}

# The same in the VM, every KFD hook attached (part imm).
imm_table() {
	local raw=$OUT/imm.raw
	[ -s "$raw" ] && grep -q '^BENCH imm ' "$raw" || return 0
	sed -n 's/^BENCH imm /imm /p' "$raw" > "$OUT/imm.tsv"
	imm_rows "$OUT/imm.tsv" "VM $slot, TCG, all KFD hooks attached"
}

bpf_table() {
	local raw=$OUT/bpf.raw
	[ -s "$raw" ] || return 0
	echo
	echo "Per-event cost of the shared BPF logic (host $(uname -r), BPF_PROG_TEST_RUN"
	echo "repeat 1000; ns per run: median [p25-p75]; net = minus the empty program)"
	printf '%-18s %6s %8s %15s %8s %7s\n' program chunks median "[p25-p75]" net events
	awk '$1 == "cost" { printf "%-18s %6d %8d %7d-%-7d %8d %7d\n", $2, $3, $4, $5, $6, $7, $8 }' "$raw"
	grep -q '^imm ' "$raw" || return 0
	imm_rows "$raw" "host"
	echo
	echo "Ring buffer, producer CPU 0 -> consumer CPU 1, events/s; the rate rises"
	echo "until every trial at a rate lost events. count: the consumer only counts;"
	echo "json: it formats each event as gpreempt-trace -j does, into /dev/null"
	printf '%-5s %-6s %9s %9s %9s %9s\n' KiB mode target offered consumed lost
	awk '$1 == "rb" { printf "%-5s %-6s %9d %9d %9d %9d\n", $2, $3, $4, $5, $6, $7 }' "$raw"
	awk '$1 == "rb" { k = $2 " KiB ring, " $3 " consumer"; all[k, $4]++; keys[k] = 1; rates[$4] = 1
			if ($7 == 0) ok[k, $4]++
			if (!((k, $4) in lo) || $5 < lo[k, $4]) lo[k, $4] = $5 }
	     END { for (k in keys) { best = 0
			for (r in rates) if (all[k, r] && ok[k, r] == all[k, r] && r + 0 > best) best = r + 0
			if (best) printf "%s: zero loss in every trial up to a target of %d events/s (%d offered at least)\n", k, best, lo[k, best]
			else printf "%s: events lost at every rate\n", k } }' "$raw" | sort
	awk '$1 == "fmt" { printf "formatter alone (gpreempt-trace -j, to /dev/null): %d ns per event (median of %d x 10,000) [%d-%d]\n", $3, $2, $4, $5 }' "$raw"
}

ctl_table() {
	local raw=$OUT/ctl.raw mode n p50 p99 io back
	grep -q '^BENCH lat' "$raw" 2>/dev/null || return 0
	echo
	echo "Suspend request -> SUSPEND_QUEUES ioctl entry (VM $slot, TCG), us: bench/ctl-lat's"
	echo "CLOCK_BOOTTIME stamp vs gpreempt-trace's kfd_ioctl_set_debug_trap entry;"
	echo "ioctl = its duration; ioctl->done = ioctl return to the reply (or exit)"
	printf '%-8s %6s %9s %9s %10s %10s %15s\n' mode n p50 p99 "ioctl p50" "ioctl p99" "ioctl->done p50"
	for mode in oneshot daemon; do
		read -r n p50 p99 < <(awk -v m=$mode '$2 == "lat" && $3 == m && $5 >= 0 { print $5 }' "$raw" | pct)
		[ "$n" -gt 0 ] || continue
		read -r _ io io99 < <(awk -v m=$mode '$2 == "lat" && $3 == m && $6 >= 0 { print $6 }' "$raw" | pct)
		back=$(awk -v m=$mode '$2 == "lat" && $3 == m && $7 >= 0 { print $7 }' "$raw" | pct | cut -d' ' -f2)
		awk -v m=$mode -v n=$n -v a=$p50 -v b=$p99 -v c=$io -v c9=$io99 -v d=$back 'BEGIN {
			printf "%-8s %6d %9.1f %9.1f %10.1f %10.1f %15.1f\n", m, n, a / 1000, b / 1000, c / 1000, c9 / 1000, d / 1000 }'
	done
	n=$(awk '$2 == "lat" && $5 < 0' "$raw" | wc -l)
	[ "$n" = 0 ] || echo "$n requests had no traced SUSPEND ioctl (lost or failed before the ioctl)"
	grep '^BENCH ctl-skip' "$raw" | sed 's/^BENCH ctl-skip /skipped: /' || true
	if [ -s "$OUT/ctl-host.raw" ]; then
		read -r n p50 p99 < <(awk '$1 == "rtt" { print $3 }' "$OUT/ctl-host.raw" | pct)
		awk -v n=$n -v a=$p50 -v b=$p99 'BEGIN { printf "host: daemon \"status\" round trip (socket, parse, reply; no ioctl), n=%d: p50 %.1f us, p99 %.1f us\n", n, a / 1000, b / 1000 }'
	fi
}

overhead_table() {
	local sum=$OUT/overhead.tsv raw=$OUT/overhead.raw t n
	[ -s "$sum" ] || return 0
	echo
	echo "Per-call cost of one traced KFD ioctl (VM $slot, TCG), ns per call over"
	echo "batches: median [p25-p75]; base = untraced runs just before and after;"
	echo "added = median - base median; x = median / base median; min-added ="
	echo "fastest traced batch - fastest base batch (least disturbed by load)"
	printf '%-10s %-8s %4s %8s %15s %8s %8s %5s %9s\n' \
		tracer loop n median "[p25-p75]" base added x min-added
	awk '{ printf "%-10s %-8s %4d %8.0f %7.0f-%-7.0f %8.0f %8.0f %5.2f %9.0f\n",
		$1, $2, $3, $4, $5, $6, $9, $4 - $9, $4 / $9, $7 - $10 }' "$sum"
	# The targets' ratios: added cost of gpreempt-trace over the added
	# cost of each baseline, same loop, same boot.
	echo
	awk '{ add[$1 " " $2] = $4 - $9; madd[$1 " " $2] = $7 - $10 } END {
		ng = split("gp-fentry gp-kprobes gp-reduced gp-cpu1 gp-summary gp-summary-k", g, " ")
		nb = split("bpftrace bt-hist bt-printf bt-empty fgraph kphist", b, " ")
		split("create dbg create-p dbg-p", o, " ")
		for (i = 1; i <= ng; i++) for (l = 1; l <= 4; l++) {
			k = g[i] " " o[l]
			if (!(k in add)) continue
			line = sprintf("%-12s %-8s added/added:", g[i], o[l])
			for (j = 1; j <= nb; j++) {
				kb = b[j] " " o[l]
				if ((kb in add) && add[kb] > 0)
					line = line sprintf(" %s %.2f", b[j], add[k] / add[kb])
				if ((kb in madd) && madd[kb] > 0)
					line = line sprintf(" (min %.2f)", madd[k] / madd[kb])
			}
			print line
		}
	}' "$sum"
	if grep -q '^BENCH lost' "$raw"; then
		echo
		echo "Events reported lost (ring or perf buffer full), summed over the runs:"
		awk '$2 == "lost" { l[$3] += $4 } END { for (k in l) printf "  %-10s %d\n", k, l[k] }' "$raw" | sort
	fi
	if grep -q '^BENCH cpu' "$raw"; then
		echo
		echo "CPU time of the tracer process itself (its loader: ring buffer, decode,"
		echo "output) during its loops, per traced ioctl (USER_HZ ticks of 10 ms)"
		awk '$2 == "cpu" { t[$3] += $4; n[$3] += $5 } END {
			for (k in t) printf "%-10s %6d ticks over %7d ioctls = %8.0f ns per ioctl\n",
				k, t[k], n[k], t[k] * 1e7 / n[k] }' "$raw" | sort
	fi
	if grep -q '^BENCH attach' "$raw"; then
		echo
		echo "Exec to attached, and memory when attached (VM $slot, TCG)"
		printf '%-11s %5s %12s %12s %12s\n' tracer n "median ms" "VmRSS kB" "VmHWM kB"
		for t in $(awk '$2 == "attach" { print $3 }' "$raw" | sort -u); do
			read -r n med q1 q3 lo hi < <(awk -v t="$t" '$2 == "attach" && $3 == t { print $4 }' "$raw" | stats)
			rss=$(awk -v t="$t" '$2 == "attach" && $3 == t { print $5 }' "$raw" | stats | cut -d' ' -f2)
			hwm=$(awk -v t="$t" '$2 == "attach" && $3 == t { print $6 }' "$raw" | stats | cut -d' ' -f2)
			printf '%-11s %5d %12.0f %12.0f %12.0f\n' "$t" "$n" "$med" "$rss" "$hwm"
		done
		echo "(fgraph and kphist are tracefs writes from the shell: no process, no RSS)"
	fi
	if grep -q '^BENCH skip' "$raw"; then
		echo
		grep '^BENCH skip' "$raw" | sed 's/^BENCH skip /skipped: /'
	fi
}

# Per-program BPF run time (part "progs"): where summary and event mode
# spend their BPF time per traced call.
progs_table() {
	local raw=$OUT/progs.raw
	[ -s "$raw" ] && grep -q '^BENCH prog ' "$raw" || return 0
	echo
	echo "BPF run time per program while kfd-loop ran (VM $slot, TCG; the kernel's"
	echo "BPF_ENABLE_STATS accounting, whose two sched_clock() reads per run are"
	echo "included); per call = all programs' time over the loop's calls"
	printf '%-10s %-7s %-16s %8s %8s\n' mode loop program runs ns/run
	awk '$2 == "progcalls" { calls = $3 }
	     $2 == "prog" {
		printf "%-10s %-7s %-16s %8d %8d\n", $3, $4, $5, $6, $7
		k = $3 " " $4; t[k] += $6 * $7; if (!(k in seen)) { seen[k] = 1; ord[++n] = k }
	     }
	     END { for (i = 1; i <= n; i++) if (calls > 0)
		printf "%-18s BPF ns per call: %d\n", ord[i], t[ord[i]] / calls }' "$raw"
}

# Quick mode: every mode's programs ran in both loops.
progs_check() {
	local raw=$1 m l n
	for m in summary summary-k events; do
		for l in create dbg; do
			n=$(awk -v m=$m -v l=$l '$2 == "prog" && $3 == m && $4 == l && $6 > 0' "$raw" | wc -l)
			if [ "$n" -ge 2 ]; then
				tap ok "progs quick: $m $l: $n programs ran"
			else
				tap fail "progs quick: $m $l: entry and return programs ran" \
					"$(grep "skip progs" "$raw" | head -1)"
			fi
		done
	done
}

# The one table docs/benchmarks.md opens with (--current): the headline
# figures of the raw output in $OUT as Markdown, with the run's commit,
# machine and date from its machine.txt. Ratios are against baselines of
# the same boot; the full tables above hold every figure.
current_table() {
	local m=$OUT/machine.txt txt
	txt=$(mktemp)
	overhead_table > "$txt" 2>/dev/null
	echo "Run: $(sed -n 's/^date: //p' "$m"), commit $(sed -n 's/^commit: //p' "$m" | grep . || echo 'not recorded');"
	echo "host $(sed -n 's/^host: //p' "$m"); guest $(sed -n 's/^guest kernel: //p' "$m") under QEMU/TCG;"
	echo "load average $(sed -n 's/^load average at start: //p' "$m" | cut -d' ' -f1) at start."
	echo
	echo "| measure | gpreempt | baseline (same boot) | ratio |"
	echo "| --- | --- | --- | --- |"
	awk '$3 == "added/added:" { for (i = 4; i <= NF; i += 4) r[$1, $2, $i] = $(i + 1) }
	     $3 ~ /^[0-9]+$/ && $7 ~ /^-?[0-9]+$/ && NF == 9 { add[$1, $2] = $7 }
	     END { split("create dbg create-p dbg-p", L, " ")
		split("gp-fentry gp-summary", G, " ")
		for (g = 1; g <= 2; g++) for (l = 1; l <= 4; l++) {
			if (!((G[g], L[l]) in add)) continue
			base = (G[g] == "gp-summary" && (("bt-hist", L[l]) in add)) ? "bt-hist" : "bpftrace"
			if (!((base, L[l]) in add)) continue
			printf "| added ns per traced call, %s loop | %s: %d | %s: %d | %s |\n", L[l], G[g],
				add[G[g], L[l]], base, add[base, L[l]], r[G[g], L[l], base] "x" }
		}' "$txt"
	awk '/^Exec to attached/ { on = 1; next } on && NF == 5 && $2 ~ /^[0-9]+$/ { ms[$1] = $3; rss[$1] = $4 }
	     END { if (("gp-fentry" in ms) && ("bpftrace" in ms)) {
			printf "| exec to attached, ms (median) | %d | bpftrace: %d | %.2fx |\n", ms["gp-fentry"], ms["bpftrace"], ms["gp-fentry"] / ms["bpftrace"]
			printf "| VmRSS when attached, MB | %.1f | bpftrace: %.1f | %.2fx |\n", rss["gp-fentry"] / 1024, rss["bpftrace"] / 1024, rss["gp-fentry"] / rss["bpftrace"] } }' "$txt"
	ctl_table 2>/dev/null | awk '$1 == "daemon" || $1 == "oneshot" {
		printf "| request to SUSPEND ioctl, %s, us p50 / p99 | %s / %s | | |\n", $1, $3, $4 }'
	rm -f "$txt"
}
