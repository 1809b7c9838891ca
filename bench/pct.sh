# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/arbiter.sh and bench/edge.sh: "P50 P99" in us (nearest
# rank, one decimal) of the ns on stdin, one per line; "- -" on none.
pct() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- -"; exit }
		i = int(NR * 0.99); if (i < NR * 0.99) i++
		printf "%.1f %.1f\n", v[int((NR + 1) / 2)] / 1000, v[i] / 1000 }'
}
