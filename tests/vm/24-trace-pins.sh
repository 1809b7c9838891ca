# SPDX-License-Identifier: GPL-2.0
# The pinned queue map (/sys/fs/bpf/gpreempt/queues, what gpreempt-ctl
# list reads) never outlives a tracer that could clean up: SIGHUP (closed
# terminal) and SIGPIPE (`gpreempt-trace | head`) end it through cleanup.
# SIGKILL cannot: its pin is then stale and the next tracer replaces it.
# A second tracer leaves the first one's live pin alone. Real tracers,
# real bpffs, any kernel (7.x included: attaching needs no GPU).
. /gp/tests/vm/lib.sh
. /gp/tests/vm/trace_lib.sh

pin=/sys/fs/bpf/gpreempt/queues

pin_id() { # a new pin is a new bpffs inode; empty if none
	stat -c %i "$pin" 2>/dev/null
}

# SIGHUP
if tr_start /tmp/pin-hup.json; then
	[ -e $pin ] && before=1 || before=0
	kill -HUP "$tr_pid"
	wait "$tr_pid"
	rc=$?
	if [ $before = 1 ] && [ ! -e $pin ] && [ $rc -eq 0 ]; then
		gp_ok "trace: SIGHUP ends it with exit 0 and removes its pin"
	else
		gp_fail "trace: SIGHUP ends it with exit 0 and removes its pin" \
			"pinned before=$before, rc=$rc, after: $(ls $pin 2>&1)"
		gp_log /tmp/pin-hup.json.err
	fi
else
	gp_fail "trace: SIGHUP ends it with exit 0 and removes its pin" \
		"no ready file"
fi

# SIGPIPE: the reader goes after one byte; the next write (-i) fails.
rm -f /tmp/pin-pipe.ready
( gpreempt-trace -i 200ms --ready-file /tmp/pin-pipe.ready \
	2> /tmp/pin-pipe.err; echo $? > /tmp/pin-pipe.rc ) | head -c 1 \
	> /dev/null
rc=$(cat /tmp/pin-pipe.rc 2>/dev/null)
if [ -e /tmp/pin-pipe.ready ] && [ "$rc" = 0 ] && [ ! -e $pin ]; then
	gp_ok "trace | head: ends with exit 0 when the reader goes, pin removed"
else
	gp_fail "trace | head: ends with exit 0 when the reader goes, pin removed" \
		"ready=$(ls /tmp/pin-pipe.ready 2>&1), rc=$rc, pin: $(ls $pin 2>&1)"
	gp_log /tmp/pin-pipe.err
fi

# Two tracers: the second leaves the first one's pin alone.
if tr_start /tmp/pin-a.json; then
	a_pid=$tr_pid
	a_id=$(pin_id)
	if tr_start /tmp/pin-b.json; then
		tr_stop
		b_id_after=$(pin_id)
		if [ -n "$a_id" ] && [ "$b_id_after" = "$a_id" ] &&
		   grep -q "live" /tmp/pin-b.json.err; then
			gp_ok "trace: a second tracer keeps the first one's live pin"
		else
			gp_fail "trace: a second tracer keeps the first one's live pin" \
				"first=$a_id after second=$b_id_after"
			gp_log /tmp/pin-b.json.err
		fi
	else
		gp_fail "trace: a second tracer keeps the first one's live pin" \
			"second: no ready file"
	fi
	tr_pid=$a_pid
	# SIGKILL: the pin stays, stale; the next tracer replaces it.
	kill -KILL "$a_pid"
	wait "$a_pid" 2>/dev/null
	if [ -e $pin ] && tr_start /tmp/pin-c.json; then
		c_id=$(pin_id)
		tr_stop
		if [ -n "$c_id" ] && [ "$c_id" != "$a_id" ] &&
		   ! grep -q "live" /tmp/pin-c.json.err && [ ! -e $pin ]; then
			gp_ok "trace: a pin left by SIGKILL is stale and replaced"
		else
			gp_fail "trace: a pin left by SIGKILL is stale and replaced" \
				"killed=$a_id new=$c_id, after: $(ls $pin 2>&1)"
			gp_log /tmp/pin-c.json.err
		fi
	else
		gp_fail "trace: a pin left by SIGKILL is stale and replaced" \
			"pin after kill: $(ls $pin 2>&1)"
	fi
else
	gp_fail "trace: a second tracer keeps the first one's live pin" \
		"first: no ready file"
fi
