#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The shipped alert rules (packaging/prometheus/gpreempt-alerts.yml):
# promtool checks them and runs their unit tests
# (tests/prometheus/gpreempt-alerts.test.yml: each alert fires, with its
# labels and summary, and stays quiet where it should), and every metric
# name and label they use is held to a real scrape of the daemon (L1;
# the tracer's families from its renderer, tests/bats/scrape_helper.bash).

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
RULES=packaging/prometheus/gpreempt-alerts.yml
UNIT=tests/prometheus/gpreempt-alerts.test.yml

load daemon_helper
load scrape_helper

setup() {
	cd "$TOP"
	command -v promtool >/dev/null ||
		skip "no promtool (apt-get install prometheus; scripts/setup.sh does)"
	D=$BATS_TEST_TMPDIR
	SCRAPE_PIDS=
}

teardown() {
	[ -z "${CTL:-}" ] || daemon_teardown "$SCRAPE_PIDS"
}

# the rules' alert names and expressions
alerts() { sed -nE 's/^ +- alert: *([A-Za-z]+)$/\1/p' "$RULES"; }
exprs() { sed -nE 's/^ +expr: *(.*)$/\1/p' "$RULES"; }

@test "alerts: promtool check rules is clean; promtool test rules passes" {
	run -0 promtool check rules "$RULES"
	[[ "$output" == *"SUCCESS: 9 rules found"* ]]
	run -0 promtool test rules "$UNIT"
	[[ "$output" == *SUCCESS* ]]
}

@test "alerts: the ones the issue asks for exist, and each has a firing case in the unit tests" {
	for a in GpreemptOfflineStarved GpreemptArbiterFailures \
		 GpreemptQueueOperationsFailed GpreemptHoldEndedByWatchdog \
		 GpreemptHoldEndedByMaxHold GpreemptTracerLostEvents \
		 GpreemptDaemonAbsent; do
		alerts | grep -qx "$a" || { echo "no alert $a"; false; }
	done
	grep -q 'absent(up{job="gpreempt"}' "$RULES"
	for a in $(alerts); do
		# a case with exp_alerts that is not the empty list
		awk -v a="$a" '$0 ~ "alertname: " a "$" { f = 1; next }
			f && /exp_alerts: \[\]/ { f = 0 }
			f && /exp_alerts:$/ { ok = 1 } END { exit !ok }' "$UNIT" ||
			{ echo "$a never fires in $UNIT"; false; }
	done
}

@test "alerts: the unit tests catch a changed rule (threshold, window, absent guard)" {
	t=$BATS_TEST_TMPDIR/t
	mkdir -p "$t/tests/prometheus" "$t/packaging/prometheus"
	cp "$UNIT" "$t/tests/prometheus/"
	for change in 's/ > 0.95$/ > 0.99/' \
		      's/increase(gpreempt_watchdog_resumes_total\[15m\])/increase(gpreempt_watchdog_resumes_total[5m])/' \
		      's/absent(up{job="gpreempt"} == 1)/up{job="gpreempt"} == 0 and on() vector(0) == 1/'; do
		sed "$change" "$RULES" > "$t/$RULES"
		! cmp -s "$RULES" "$t/$RULES" || { echo "sed did not change: $change"; false; }
		run -1 promtool test rules "$t/$UNIT"
		[[ "$output" == *FAILED* ]]
	done
}

@test "alerts: every metric name and label the rules use is in a real scrape" {
	daemon_setup
	command -v curl >/dev/null || skip "no curl (scripts/setup.sh installs it)"
	record_scrape "$D/scrape"
	# gpreempt_trace_* come only from the tracer's renderer (l0); the
	# daemon's must be in the live scrape itself.
	run -0 python3 tests/bats/promql_names.py "$D/scrape/live" \
		< <(exprs | grep -v gpreempt_trace_)
	echo "$output"
	[[ "$output" == *gpreempt_policy_failures_total* ]]
	run -0 python3 tests/bats/promql_names.py "$D/scrape/live" "$D/scrape/l0" < <(exprs)
	echo "$output"
	[ "$(wc -l <<< "$output")" -eq 7 ]
	# and the check can fail: a name or a label the code does not export
	run -1 python3 tests/bats/promql_names.py "$D/scrape/live" \
		<<< 'increase(gpreempt_watchdog_resume_total[5m]) > 0'
	[[ "$output" == *"gpreempt_watchdog_resume_total: no such family"* ]]
	run -1 python3 tests/bats/promql_names.py "$D/scrape/live" \
		<<< 'increase(gpreempt_errors_total{reason="x"}[5m]) > 0'
	[[ "$output" == *"no label reason"* ]]
}
