# SPDX-License-Identifier: GPL-2.0
# gpreempt-trace --metrics: a scrape (busybox wget) from the tracer's own
# poll loop while it runs, in event and summary mode, counts the known
# workload: 2 CREATE_QUEUE and 3 DESTROY_QUEUE ioctls, every one failing
# with the kernel's EINVAL (no GPU), as calls_total, errors_total and the
# duration histogram's _count, and equal to what the tracer itself
# reports on exit. On 7.x no ioctl reaches KFD: all zero.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/trace_lib.sh

ADDR=127.0.0.1:9465
ip link set lo up 2>/dev/null	# the guest boots with lo down

workload() {
	kfd-exerciser create:gpu=0xdeadbeef,type=aql,ring=4096 \
		create:gpu=7,type=compute,ring=8192 destroy:qid=3 \
		destroy:qid=4 destroy:qid=5 > /dev/null 2>&1
}

metric() { # FILE NAME{LABELS} -> value, or "none"
	awk -v k="$2" '$1 == k { v = $2 } END { print v == "" ? "none" : v }' "$1"
}

if [ "$GP_KERNEL" = 7.x ]; then nc=0 nd=0; else nc=2 nd=3; fi
for mode in event summary; do
	[ $mode = summary ] && flag=-s || flag=
	n="trace --metrics ($mode mode): the scrape counts the workload's ioctls"
	if ! tr_start /tmp/met-$mode.json $flag --metrics $ADDR; then
		gp_fail "$n" "the tracer did not start"
		continue
	fi
	workload
	rm -f /tmp/met-$mode.txt
	wget -q -O /tmp/met-$mode.txt "http://$ADDR/metrics"
	wrc=$?
	alive=0
	kill -0 "$tr_pid" 2>/dev/null && alive=1
	tr_stop
	got="calls create=$(metric /tmp/met-$mode.txt 'gpreempt_trace_calls_total{op="create"}')"
	got="$got errors=$(metric /tmp/met-$mode.txt 'gpreempt_trace_errors_total{op="create"}')"
	got="$got hist=$(metric /tmp/met-$mode.txt 'gpreempt_trace_duration_seconds_count{op="create"}')"
	got="$got destroy=$(metric /tmp/met-$mode.txt 'gpreempt_trace_calls_total{op="destroy"}')"
	got="$got errors=$(metric /tmp/met-$mode.txt 'gpreempt_trace_errors_total{op="destroy"}')"
	got="$got lost=$(metric /tmp/met-$mode.txt 'gpreempt_trace_events_lost_total')"
	[ "$nc" = 0 ] && hc=none || hc=$nc
	want="calls create=$nc errors=$nc hist=$hc destroy=$nd errors=$nd lost=0"
	# the tracer's own report of the same run (events, or summary counts)
	if [ $mode = summary ]; then
		own=$(jq -s '[.[] | select(.type == "count" and .op == "create")
			| .count] | add // 0' /tmp/met-$mode.json)
	else
		own=$(jq -s '[.[] | select(.type == "event" and .op == "create")]
			| length' /tmp/met-$mode.json)
	fi
	if [ $wrc = 0 ] && [ $alive = 1 ] && [ "$got" = "$want" ] &&
	   [ "$own" = "$nc" ] && [ "$tr_rc" = 0 ]; then
		gp_ok "$n ($got)"
	else
		gp_fail "$n" "wget rc $wrc, alive $alive, rc $tr_rc; got: $got; want: $want; the tracer's own create count: $own"
		gp_log /tmp/met-$mode.json.err
		gp_log /tmp/met-$mode.txt
	fi
done

n="trace --metrics: the port is free again after the tracer exits"
if ! wget -q -T 2 -O /dev/null "http://$ADDR/metrics" 2>/dev/null; then
	gp_ok "$n"
else
	gp_fail "$n" "something still answers on $ADDR"
fi
