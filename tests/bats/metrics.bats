#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The daemon's Prometheus endpoint (--metrics) on the host: the
# exposition passes `promtool check metrics`, and a real Prometheus
# (Debian's package; 127.0.0.1 only, a scratch config and data dir,
# bounded time) scrapes it and can query the series. Counting logic is
# L0 (tests/unit/test_metrics*.c).

bats_require_minimum_version 1.5.0

setup() {
	daemon_setup
	command -v curl >/dev/null || skip "no curl (scripts/setup.sh installs it)"
	D=$(mktemp -d /tmp/gpmetrics.XXXXXX)
	SOCK=$D/ctl.sock
	DPID= PPID_=
}

teardown() {
	daemon_teardown "$PPID_"
	rm -rf "$D"
}

# A free loopback port (not a guess that may collide with another run).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

load daemon_helper

start_daemon() {
	PORT=$(free_port)
	daemon_bg --socket "$SOCK" --metrics "127.0.0.1:$PORT" "$@"
}

@test "metrics: GET /metrics answers the exposition; promtool check metrics is clean" {
	command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"
	start_daemon
	# Some traffic so the counters are not all zero.
	"$CTL" daemon --socket "$SOCK" --send status >/dev/null
	"$CTL" daemon --socket "$SOCK" --send 'suspend pid=1' >/dev/null 2>&1 || true
	run -0 curl -sS -D "$D/head" -o "$D/body" "http://127.0.0.1:$PORT/metrics"
	grep -qi '^Content-Type: text/plain; version=0.0.4' "$D/head"
	grep -q '^gpreempt_requests_total{op="status"} 1$' "$D/body"
	grep -q '^gpreempt_requests_total{op="suspend"} 1$' "$D/body"
	grep -q '^gpreempt_errors_total{cause="target_refused"} 1$' "$D/body"
	grep -q '^gpreempt_sessions_held 0$' "$D/body"
	grep -q '^gpreempt_suspend_duration_seconds_bucket{le="+Inf"} 0$' "$D/body"
	run -0 promtool check metrics < "$D/body"
	[ -z "$output" ] || { echo "$output"; false; }
	# Elsewhere: 404; the daemon serves on.
	run -0 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/"
	[ "$output" = 404 ]
	run -0 "$CTL" daemon --socket "$SOCK" --send status
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "metrics: a stalled client does not hold up the daemon's socket" {
	start_daemon
	# Open connections that never send a request, more than the bound.
	for i in $(seq 12); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || true
		fds+=("$fd")
	done
	# The control socket answers at once while every HTTP slot is taken.
	run -0 timeout 5 "$CTL" daemon --socket "$SOCK" --send status
	# Once they go away (or time out), scrapes are served again.
	for fd in "${fds[@]}"; do exec {fd}>&-; done
	run -0 curl -sS --max-time 9 -o /dev/null -w '%{http_code}' \
		"http://127.0.0.1:$PORT/metrics"
	[ "$output" = 200 ]
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "metrics: a real Prometheus scrapes the daemon (127.0.0.1, scratch config)" {
	command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"
	start_daemon
	"$CTL" daemon --socket "$SOCK" --send status >/dev/null
	PPORT=$(free_port)
	cat > "$D/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gpreempt
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOC
	prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/data" \
		--web.listen-address="127.0.0.1:$PPORT" >"$D/prom.log" 2>&1 &
	PPID_=$!
	q="http://127.0.0.1:$PPORT/api/v1/query"
	ok=
	for _ in $(seq 60); do	# 30 s at most
		if curl -s "$q?query=gpreempt_requests_total%7Bop%3D%22status%22%7D" \
			| grep -q '"value":\[[0-9.]*,"1"\]'; then
			ok=1
			break
		fi
		sleep 0.5
	done
	[ -n "$ok" ] || { tail -20 "$D/prom.log"; false; }
	run -0 curl -s "$q?query=up%7Bjob%3D%22gpreempt%22%7D"
	[[ "$output" == *'"value":['*',"1"]'* ]]
	run -0 curl -s "$q?query=gpreempt_suspend_duration_seconds_count"
	[[ "$output" == *'"status":"success"'* ]]
	kill -TERM "$PPID_"; wait "$PPID_" || true; PPID_=
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "metrics: the arbiter's gpreempt_policy_* families; promtool clean (L0 dump and a live scrape)" {
	command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"
	TESTS=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/../tests
	# Every family populated (histograms, per-process series): L0 state.
	run -0 "$TESTS/test_metrics_policy" --dump
	grep -q '^gpreempt_policy_offline_suspended_ratio{pid="12"' <<< "$output"
	run -0 promtool check metrics <<< "$output"
	[ -z "$output" ] || { echo "$output"; false; }
	# Live: without the arbiter, none of its families.
	start_daemon
	run -0 curl -sS "http://127.0.0.1:$PORT/metrics"
	! grep -q '^gpreempt_policy_' <<< "$output"
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	# With it: a busy period counted, online busy now.
	start_daemon --offline uid=0,comm=no-such-job
	sleep 300 & PPID_=$!
	run -0 "$CTL" notify busy --pid "$PPID_" -s "$SOCK"
	curl -sS -o "$D/body" "http://127.0.0.1:$PORT/metrics"
	grep -q '^gpreempt_policy_busy_periods_total 1$' "$D/body"
	grep -q '^gpreempt_policy_online_busy 1$' "$D/body"
	grep -q '^gpreempt_policy_offline_processes 0$' "$D/body"
	grep -q '^gpreempt_policy_suspend_duration_seconds_count 0$' "$D/body"
	run -0 promtool check metrics < "$D/body"
	[ -z "$output" ] || { echo "$output"; false; }
	kill -TERM "$DPID"; wait "$DPID"; DPID=
}

@test "metrics: gpreempt-trace's families from a map snapshot (L0 dump); promtool clean" {
	command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"
	TESTS=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/../tests
	# The tracer cannot attach here (no kprobes, no amdgpu): its scrape
	# renders through tm_render, fed here with every family populated;
	# the VM test (tests/vm/26-trace-metrics.sh) scrapes the tracer.
	run -0 "$TESTS/test_trace_metrics" --dump
	grep -q '^gpreempt_trace_calls_total{op="create"} 3$' <<< "$output"
	grep -q '^gpreempt_queues{gpu_id="100",state="suspended"} 1$' <<< "$output"
	grep -q '^gpreempt_trace_duration_seconds_bucket{op="create",le="+Inf"} 3$' <<< "$output"
	run -0 promtool check metrics <<< "$output"
	[ -z "$output" ] || { echo "$output"; false; }
}
