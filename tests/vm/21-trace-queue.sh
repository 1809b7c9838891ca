# SPDX-License-Identifier: GPL-2.0
# The exerciser's CREATE_QUEUE and DESTROY_QUEUE (real ioctls, failing with
# the kernel's own EINVAL: there is no GPU) appear as events carrying
# exactly the values it passed, its pid and the errno, with fentry, with
# kprobes and in reduced mode; after SIGINT the histogram counts equal the
# event counts, and the queue map was pinned while the tracer ran.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/trace_lib.sh

if [ "$GP_KERNEL" = 7.x ]; then
	# No ioctl reaches KFD here; the tracer still runs and ends cleanly.
	if tr_start /tmp/q-7.json; then
		tr_stop
		if [ $tr_rc -eq 0 ] && jq -s -e '[.[] | select(.type == "lost")]
		    | length == 1 and .[0].events == 0' /tmp/q-7.json >/dev/null
		then
			gp_ok "trace runs and ends cleanly on SIGINT"
		else
			gp_fail "trace runs and ends cleanly on SIGINT" "rc=$tr_rc"
			gp_log /tmp/q-7.json
			gp_log /tmp/q-7.json.err
		fi
	else
		gp_fail "trace runs and ends cleanly on SIGINT" "no ready file"
	fi
	gp_skip "trace sees create/destroy" "7.x refuses open(/dev/kfd)"
	exit 0
fi

run_mode() { # name flags...
	name=$1
	shift
	out=/tmp/q-$name.json
	if ! tr_start "$out" "$@"; then
		gp_fail "trace $name: starts" "no ready file"
		return
	fi
	[ -e /sys/fs/bpf/gpreempt/queues ] && pinned=1 || pinned=0
	kfd-exerciser ready \
		create:gpu=0xdeadbeef,type=aql,prio=7,pct=100,ring=4096 \
		destroy:qid=3 > /tmp/ex-$name.json
	tr_stop
	expid=$(jq -r 'select(.step == "ready") | .pid' /tmp/ex-$name.json)
	cerr=$(jq -r 'select(.step == "create") | .errno' /tmp/ex-$name.json)
	derr=$(jq -r 'select(.step == "destroy") | .errno' /tmp/ex-$name.json)
	[ "$name" = reduced ] && red=true || red=false

	if [ $tr_rc -eq 0 ]; then
		gp_ok "trace $name: SIGINT ends it with exit 0"
	else
		gp_fail "trace $name: SIGINT ends it with exit 0" "rc=$tr_rc"
		gp_log "$out.err"
	fi
	if jq -s -e --argjson p "$expid" --argjson e "$cerr" --argjson r $red '
	    [.[] | select(.type == "event" and .op == "create" and .pid == $p)]
	    | length == 1 and (.[0] | .gpu_id == 3735928559 and .queue_type_raw == 2
	      and .priority == 7 and .percentage == 100
	      and .ring_size_bytes == 4096 and .ret == -$e and $e == 22
	      and .duration_ns > 0 and .comm == "kfd-exerciser" and .ns_pid == $p
	      and .reduced == $r)' "$out" > /dev/null; then
		gp_ok "trace $name: create event has the exerciser's values"
	else
		gp_fail "trace $name: create event has the exerciser's values" \
			"pid=$expid errno=$cerr"
		gp_log "$out"
		gp_log /tmp/ex-$name.json
	fi
	if jq -s -e --argjson p "$expid" --argjson e "$derr" '
	    [.[] | select(.type == "event" and .op == "destroy" and .pid == $p)]
	    | length == 1 and (.[0] | .queue_id == 3 and .ret == -$e
	      and $e == 22 and .duration_ns > 0)' "$out" > /dev/null; then
		gp_ok "trace $name: destroy event has qid 3 and EINVAL"
	else
		gp_fail "trace $name: destroy event has qid 3 and EINVAL" \
			"pid=$expid errno=$derr"
		gp_log "$out"
	fi
	if tr_hist_matches "$out"; then
		gp_ok "trace $name: histogram counts equal event counts"
	else
		gp_fail "trace $name: histogram counts equal event counts" \
			"mismatch"
		gp_log "$out"
	fi
	if [ $pinned = 1 ] && [ ! -e /sys/fs/bpf/gpreempt/queues ]; then
		gp_ok "trace $name: queue map pinned while running, then unpinned"
	else
		gp_fail "trace $name: queue map pinned while running, then unpinned" \
			"pinned=$pinned, after: $(ls /sys/fs/bpf/gpreempt 2>&1)"
	fi
}

run_mode fentry
run_mode kprobes -k
run_mode reduced --reduced
