# SPDX-License-Identifier: GPL-2.0
# Summary mode (-s: counts and histograms in BPF maps, nothing per event
# to user space) reports the same per-op counts, failures and histogram
# counts as event mode for the same workload, with fentry and kprobes:
# real KFD ioctls (CREATE/DESTROY failing with the kernel's EINVAL; on
# 6.12 the debug-trap protocol with suspend/resume too). On 7.x no ioctl
# reaches KFD: both modes must then agree on nothing.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/trace_lib.sh

workload() {
	kfd-exerciser create:gpu=0xdeadbeef,type=aql,ring=4096 \
		create:gpu=7,type=compute,ring=8192 destroy:qid=3 \
		destroy:qid=4 destroy:qid=5 > /dev/null 2>&1
	if [ "$GP_KERNEL" = 6.12 ]; then
		kfd-exerciser debug-target:qids=7+1234,grace=5 > /dev/null 2>&1
	fi
}

# op -> {count, failed} from event mode's events, or summary's counts
ev_counts() {
	jq -S -s -c '[.[] | select(.type == "event")] | group_by(.op)
		| map({key: .[0].op, value: {count: length,
		       failed: ([.[] | select(.ret < 0)] | length)}})
		| from_entries' "$1"
}
sum_counts() {
	jq -S -s -c '[.[] | select(.type == "count")]
		| map({key: .op, value: {count, failed}}) | from_entries' "$1"
}
hist_counts() { # "op/sub" -> count of the whole-op histograms
	jq -S -s -c '[.[] | select(.type == "hist" and .phase == null)]
		| map({key: "\(.op)/\(.sub)", value: .count}) | from_entries' "$1"
}

for mode in fentry kprobes; do
	[ $mode = kprobes ] && flag=-k || flag=
	ok=1
	tr_start /tmp/sum-ev-$mode.json $flag || ok=0
	[ $ok = 1 ] && { workload; tr_stop; }
	tr_start /tmp/sum-s-$mode.json -s $flag || ok=0
	[ $ok = 1 ] && { workload; tr_stop; }
	if [ $ok = 0 ]; then
		gp_fail "trace $mode: summary counts equal event counts" \
			"a tracer did not start"
		continue
	fi
	ev=$(ev_counts /tmp/sum-ev-$mode.json)
	sm=$(sum_counts /tmp/sum-s-$mode.json)
	nev=$(jq -s '[.[] | select(.type == "event")] | length' \
		/tmp/sum-s-$mode.json)
	if [ "$GP_KERNEL" = 7.x ]; then want='{}'; else want=$ev; fi
	if [ "$ev" = "$sm" ] && [ "$sm" = "$want" ] && [ "$nev" = 0 ] &&
	   { [ "$GP_KERNEL" = 7.x ] || [ "$ev" != '{}' ]; }; then
		gp_ok "trace $mode: summary counts equal event counts ($sm)"
	else
		gp_fail "trace $mode: summary counts equal event counts" \
			"events: $ev; summary: $sm; summary events: $nev"
		gp_log /tmp/sum-s-$mode.json.err
	fi
	he=$(hist_counts /tmp/sum-ev-$mode.json)
	hs=$(hist_counts /tmp/sum-s-$mode.json)
	if [ "$he" = "$hs" ]; then
		gp_ok "trace $mode: summary histograms count what event mode's do"
	else
		gp_fail "trace $mode: summary histograms count what event mode's do" \
			"events: $he; summary: $hs"
	fi
done

# Output nobody reads: standard output on /dev/null chooses summary mode
# by itself, says so on stderr, and the run ends cleanly.
n="trace with stdout on /dev/null: summary mode chosen, clean exit"
rm -f /tmp/tr.ready
gpreempt-trace -j --ready-file /tmp/tr.ready > /dev/null 2> /tmp/sum-null.err &
tr_pid=$!
tr_rc=none
if gp_wait_file /tmp/tr.ready 120; then
	workload
	tr_stop
else
	kill "$tr_pid" 2>/dev/null
	wait "$tr_pid"
fi
if [ "$tr_rc" = 0 ] &&
   grep -q "standard output is /dev/null: summary mode (-s)" /tmp/sum-null.err; then
	gp_ok "$n"
else
	gp_fail "$n" "exit $tr_rc"
	gp_log /tmp/sum-null.err
fi
