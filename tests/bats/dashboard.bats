#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The shipped Grafana dashboard (packaging/grafana/gpreempt.json): every
# PromQL expression of its panels and variables parses (promtool, as
# recording rules) and names only metric families and labels that a real
# scrape of the daemon has (the tracer's: its renderer's output, as in
# alerts.bats), so the dashboard cannot drift from the code; it has the
# panels and variables issue 35 asks for; and its picture in docs/ is
# rendered from it (packaging/grafana/render-preview.py).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
DASH=packaging/grafana/gpreempt.json

load daemon_helper
load scrape_helper

setup() {
	cd "$TOP"
	command -v jq >/dev/null || skip "no jq"
	D=$BATS_TEST_TMPDIR
	SCRAPE_PIDS=
}

teardown() {
	[ -z "${CTL:-}" ] || daemon_teardown "$SCRAPE_PIDS"
}

# every PromQL expression: panels' targets and the query variables'
exprs() {
	jq -r '(.panels[] | .targets[]?.expr),
	       (.templating.list[] | select(.type == "query") | .query.query)' "$DASH"
}

@test "dashboard: valid JSON; every panel has a title, a query, the datasource variable" {
	run -0 jq -e '.uid == "gpreempt" and (.panels | length) > 15' "$DASH"
	run -0 jq -r '.panels[] | select(.type != "row") |
		select((.title // "") == "" or ((.targets // []) | length) == 0 or
		       .datasource.uid != "${datasource}") | .id' "$DASH"
	[ -z "$output" ] || { echo "panels lacking title, query or datasource: $output"; false; }
	# ids unique, no panel overlapping another on the grid
	run -0 jq -e '[.panels[].id] | length == (unique | length)' "$DASH"
	run -0 jq -r '.panels[] | .gridPos | "\(.x) \(.y) \(.w) \(.h)"' "$DASH"
	awk '{ for (i = $1; i < $1 + $3; i++) for (j = $2; j < $2 + $4; j++)
		if (seen[i "," j]++) { print "overlap at " i "," j; bad = 1 } }
		END { exit bad }' <<< "$output"
}

@test "dashboard: variables node, gpu and pod; the panels the issue lists" {
	run -0 jq -r '.templating.list[].name' "$DASH"
	for v in node gpu pod; do grep -qx "$v" <<< "$output" || { echo "no variable $v"; false; }; done
	all=$(exprs)
	for m in gpreempt_gpu_online_busy gpreempt_policy_online_busy \
		 gpreempt_policy_offline_suspended_seconds_total gpreempt_queues \
		 gpreempt_policy_suspends_total gpreempt_gpu_resumes_total \
		 gpreempt_suspend_duration_seconds_bucket gpreempt_resume_duration_seconds_bucket \
		 gpreempt_trigger_to_suspend_seconds_bucket \
		 gpreempt_policy_budget_resumes_total gpreempt_policy_max_hold_resumes_total \
		 gpreempt_watchdog_resumes_total gpreempt_policy_failures_total \
		 gpreempt_errors_total gpreempt_limit_hits_total gpreempt_clients_rejected_total \
		 gpreempt_trace_events_lost_total 'up{job="gpreempt"'; do
		grep -qF "$m" <<< "$all" || { echo "no panel queries $m"; false; }
	done
	# latency panels are heatmaps of bucket rates, by le
	run -0 jq -r '.panels[] | select(.type == "heatmap") | .targets[].expr' "$DASH"
	[ "$(wc -l <<< "$output")" -ge 7 ]
	! grep -v 'sum by (le) (increase(.*_bucket' <<< "$output"
}

@test "dashboard: every expression parses (promtool check rules, as recording rules)" {
	command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"
	f=$BATS_TEST_TMPDIR/dash-rules.yml
	{
		echo 'groups:'
		echo '  - name: dashboard'
		echo '    rules:'
		i=0
		# Grafana's variables as a query would see them
		while read -r e; do
			i=$((i + 1))
			e=${e//\$__rate_interval/5m}
			e=${e//\$node/.*}
			e=${e//\$gpu/.*}
			printf '      - record: dashboard:expr%d\n        expr: %s\n' "$i" \
				"$(jq -Rn --arg e "$e" '$e')"
		done < <(exprs | grep -v '^label_values(')
	} > "$f"
	run -0 promtool check rules "$f"
	[[ "$output" == *"SUCCESS: "*" rules found"* ]]
	# and a broken one fails
	sed -i '0,/expr: "/s/expr: "/expr: "sum by (/' "$f"
	run ! promtool check rules "$f"
}

@test "dashboard: every metric name and label of its queries is in a real scrape" {
	daemon_setup
	command -v curl >/dev/null || skip "no curl (scripts/setup.sh installs it)"
	record_scrape "$D/scrape"
	# the daemon's families must be in the live scrape itself
	run -0 python3 tests/bats/promql_names.py "$D/scrape/live" \
		< <(exprs | grep -v 'gpreempt_trace_\|gpreempt_queues')
	echo "$output"
	[ "$(wc -l <<< "$output")" -ge 20 ]
	run -0 python3 tests/bats/promql_names.py "$D/scrape/live" "$D/scrape/l0" < <(exprs)
	echo "$output"
	[[ "$output" == *gpreempt_trace_dbg_trap_duration_seconds_bucket* ]]
	# a renamed family in the dashboard is caught
	sed 's/gpreempt_gpu_online_busy/gpreempt_gpu_online_busy_ratio/' "$DASH" > "$D/bad.json"
	run -1 python3 tests/bats/promql_names.py "$D/scrape/live" "$D/scrape/l0" \
		< <(DASH=$D/bad.json exprs)
	[[ "$output" == *"gpreempt_gpu_online_busy_ratio: no such family"* ]]
}

# the sha256 the picture records of the dashboard it was drawn from
png_source() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
i = 8
while i < len(d):
    n, t = struct.unpack(">I4s", d[i:i + 8])
    body = d[i + 8:i + 8 + n]
    if t == b"tEXt":
        k, v = body.split(b"\0", 1)
        if k == b"Description":
            print(v.decode())
    i += 12 + n
PY
}

@test "dashboard: docs/img/dashboard.png was drawn from this gpreempt.json (re-render with render.py)" {
	want=sha256:$(sha256sum "$DASH" | cut -d' ' -f1)
	run -0 png_source docs/img/dashboard.png
	[ "$output" = "$want" ] || {
		echo "docs/img/dashboard.png is stale: packaging/grafana/preview/render.py $DASH packaging/grafana/preview/scrape.prom docs/img/dashboard.png"
		false
	}
	grep -q '](img/dashboard.png)' docs/service.md
	# the renderer itself, where Debian's matplotlib is installed
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
		skip "no python3-matplotlib: the committed picture's source was checked"
	run -0 /usr/bin/python3 packaging/grafana/preview/render.py "$DASH" \
		packaging/grafana/preview/scrape.prom "$D/d.png"
	run -0 png_source "$D/d.png"
	[ "$output" = "$want" ]
}
