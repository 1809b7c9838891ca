# shellcheck shell=bash
# record_scrape DIR: what the daemon and the tracer export, for the tests
# that hold shipped queries to it (alerts.bats, dashboard.bats).
#   DIR/live  a real scrape (curl) of a real daemon started here with
#             --metrics on loopback, an arbiter and a per-GPU machine
#             (notify busy/idle --gpu 10001): every family it renders.
#   DIR/l0    the unit tests' dumps with every family populated, per-pid
#             series included (tests/unit/test_metrics*.c --dump), and
#             the tracer's, which cannot attach on this host (no KFD):
#             tests/vm/26-trace-metrics.sh scrapes a real one.
# Needs daemon_helper.bash (daemon_setup run, $D a scratch folder);
# teardown must kill $SCRAPE_PIDS.
record_scrape() {
	local dir=$1 port tests on
	tests=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/../tests
	mkdir -p "$dir"
	sleep 300 & on=$!
	SCRAPE_PIDS=$on
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	daemon_bg -s "$dir/s.sock" --online pid="$on" \
		--offline uid=0,comm=no-such-job --metrics "127.0.0.1:$port"
	"$CTL" notify busy --pid "$on" --gpu 10001 -s "$dir/s.sock" >/dev/null
	"$CTL" notify idle --pid "$on" --gpu 10001 -s "$dir/s.sock" >/dev/null
	curl -sS --max-time 30 -o "$dir/live" "http://127.0.0.1:$port/metrics"
	kill -TERM "$DPID"; wait "$DPID" || true; DPID=
	grep -q '^gpreempt_gpu_online_busy{gpu_id="10001"} 0$' "$dir/live"
	{
		"$tests/test_metrics" --dump
		"$tests/test_metrics_policy" --dump
		"$tests/test_trace_metrics" --dump
	} > "$dir/l0"
}
