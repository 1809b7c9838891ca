# SPDX-License-Identifier: GPL-2.0
# Issue 24's L2 scenario on 6.12: a hostile member of the daemon's
# --group (a user made here, uid 4242) does every attack at once
# (tests/vm/hostile_tenant.sh) while the arbiter arbitrates a real ROCr
# process (rocr-probe, offline: uid=0,cmdline=rocr-probe) against a
# notify-driven online stand-in (root's shell named gp-online-standin:
# uid=0,cmdline=gp-online-standin). --max-hold 600s: the watchdog's
# bound would resume a long busy on a slow host. Root drives 3 busy/idle cycles; what
# is checked throughout, against the kernel (gpreempt-trace's KFD
# suspend/resume events) and the daemon:
#   - the ROCr job is suspended exactly while online is busy: suspended
#     after each busy, no kernel resume of it before the idle, resumed no
#     earlier than --resume-after after it, nothing in between;
#   - root's notify, policy, status and classify and every metrics scrape
#     are answered (never refused), each within 30 s x GP_WAIT_SCALE (a
#     freeze, not a slow host; the longest is reported);
#   - the tenant's requests on what is not its own are all refused, and
#     its resume/detach of its own offline job while the arbiter holds it
#     (offline by a second --offline: uid 4242, gp-tenant-job in argv);
#     its name spoof makes nothing online; its `status` shows its own
#     holds and not the arbiter's; its connections stop at its share;
#   - the daemon's fd count and RSS are bounded: at most 200 fds above the
#     start while attacked (64 clients, 64 sessions, metrics: each a few
#     fds), and back within 8 fds and 8 MiB of the start once the tenant
#     is gone;
#   - the exposition stays valid UTF-8 while the tenant's job, named with
#     bytes that are not UTF-8, is held (its comm is a label).
# The VM has no GPU: the ROCr process has no queues; the suspend and
# resume reach KFD (debug trap) and are what the tracer sees.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/rocr_lib.sh
. /gp/tests/vm/trace_lib.sh
. /gp/tests/vm/arb_lib.sh

wait_log() { gp_wait_log $LOG "$@"; } # TEXT SECS

ctl_only_612 "hostile tenant" || exit 0
rocr_present "hostile tenant: real ROCr offline process" || exit 0

SOCK=/tmp/hos.sock
LOG=/tmp/hos.log
TR=/tmp/hos-trace.json
PORT=9466
HD=/tmp/hx
HUID=4242
DEADLINE=$((30 * GP_WAIT_SCALE))
ip link set lo up 2>/dev/null

grep -q '^root:' /etc/passwd 2>/dev/null || {
	mkdir -p /etc
	echo 'root:x:0:0:root:/:/bin/sh' >> /etc/passwd
	echo 'root:x:0:' >> /etc/group
}
grep -q '^gphost:' /etc/passwd ||
	echo "gphost:x:$HUID:$HUID:gphost:/tmp:/bin/sh" >> /etc/passwd
grep -q '^gphost:' /etc/group || echo "gphost:x:$HUID:" >> /etc/group
chmod 0755 / /bin /gp /gp/bin /gp/tests /gp/tests/vm 2>/dev/null
chmod 0666 /dev/kfd
rm -rf $HD
mkdir -p $HD
chown $HUID:$HUID $HD

ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
fds() { ls /proc/$DPID/fd 2>/dev/null | wc -l; }
rss() { ctl_field $DPID VmRSS; }

# rq WHAT CMD...: one of root's requests; a refusal or a freeze is noted
# in $bad, the longest answer in $maxms
bad=
maxms=0
rq() {
	_w=$1
	shift
	_t0=$(ms)
	timeout $DEADLINE "$@" > /tmp/hos.rq 2>&1
	_rc=$?
	_dt=$(($(ms) - _t0))
	[ $_dt -gt $maxms ] && maxms=$_dt
	[ $_rc -eq 0 ] || bad="$bad; $_w rc=$_rc after ${_dt} ms: $(tail -n 1 /tmp/hos.rq)"
	return $_rc
}

cleanup() {
	touch $HD/stop
	for p in /proc/[0-9]*; do
		[ "$(stat -c %u $p 2>/dev/null)" = $HUID ] && kill -KILL ${p#/proc/} 2>/dev/null
	done
	kill "$T" "$OPID" "$RSP" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	tr_stop
}

if ! tr_start "$TR"; then
	gp_fail "hostile tenant: gpreempt-trace starts" "no ready file"
	exit 0
fi
sh -c 'while :; do sleep 1; done' gp-online-standin &
OPID=$!
rm -f /tmp/hos.ready
gpreempt-ctl daemon --socket $SOCK --ready /tmp/hos.ready --group $HUID \
	--online uid=0,cmdline=gp-online-standin \
	--offline uid=0,cmdline=rocr-probe \
	--offline uid=$HUID,cmdline=gp-tenant-job --resume-after 300ms \
	--scope node --max-hold 600s --metrics 127.0.0.1:$PORT 2>> $LOG &
DPID=$!
T=
n="hostile tenant: the arbiter attaches the ROCr job ahead of time"
if gp_wait_file /tmp/hos.ready 20 && rocr_target hoff &&
   T=$TPID && wait_log "offline pid $T .* attached" 20; then
	gp_ok "$n"
else
	gp_fail "$n" "T=$T $(cat /tmp/hoff.out)"
	gp_log $LOG
	cleanup
	exit 0
fi
fd0=$(fds)
rss0=$(rss)

su -s /bin/sh gphost -c "sh /gp/tests/vm/hostile_tenant.sh $SOCK $PORT $OPID $T $HD" \
	> /tmp/hos-tenant.out 2>&1 &
n="hostile tenant: set up (spoof, bad name held, sessions) and attacking"
if gp_wait_file $HD/hostile.ready 120; then
	gp_ok "$n"
else
	gp_fail "$n" "$(cat /tmp/hos-tenant.out)"
	gp_log $HD/req.log
	cleanup
	exit 0
fi
SP=$(cat $HD/spoof.pid)
BP=$(cat $HD/bad.pid)
S1=$(head -n 1 $HD/sess.pids)
wait_log "offline pid $BP .* attached" 20 ||
	echo "hostile: the tenant's offline job $BP not attached yet"

# sample: root's policy, status and a scrape; the policy must say STATE
# (busy: online busy and the job suspended; idle: neither)
fdmax=$fd0
hmax=0
nsample=0
sample() { # busy|idle
	nsample=$((nsample + 1))
	rq status gpreempt-ctl status -s $SOCK
	rq scrape wget -q -O /tmp/hos-m.txt "http://127.0.0.1:$PORT/metrics"
	rq policy gpreempt-ctl policy -j -s $SOCK || return
	cp /tmp/hos.rq /tmp/hos-p.json
	if [ "$1" = busy ]; then want=1; else want=0; fi
	jq -e -s --argjson t "$T" --argjson w $want \
	   '([.[] | select(.type == "arbiter")][0].online_busy == $w) and
	    ([.[] | select(.type == "proc" and .pid == $t)][0].suspended == $w)' \
	   /tmp/hos-p.json > /dev/null ||
		bad="$bad; sample $nsample ($1): policy says otherwise"
	jq -e -s --argjson p "$SP" '[.[] | select(.type == "proc" and
	    .pid == $p and .class == "online")] | length == 0' \
	   /tmp/hos-p.json > /dev/null ||
		bad="$bad; the spoofed pid $SP is online"
	_h=$(jq -s --argjson u $HUID '[.[] | select(.type == "proc" and
	    .uid == $u)] | length' /tmp/hos-p.json)
	[ "$_h" -gt $hmax ] && hmax=$_h
	_f=$(fds)
	[ "$_f" -gt $fdmax ] && fdmax=$_f
}

# between OP FROM TO: kernel events OP for the job in [FROM, TO)
between() {
	jq -s --arg op "$1" --argjson t "$T" --argjson a "$2" --argjson b "$3" \
	   '[.[] | select(.type == "event" and .op == $op and
	     .target_pid == $t and .ts_boot_ns >= $a and .ts_boot_ns < $b)]
	    | length' "$TR"
}

inv=
t_prev=$(now_ns)
for cycle in 1 2 3; do
	t_b=$(now_ns)
	[ "$(between suspend "$t_prev" "$t_b")" = 0 ] ||
		inv="$inv; cycle $cycle: suspended while online was idle"
	rq "notify busy" gpreempt-ctl notify busy --pid $OPID -s $SOCK
	if ! ev_wait suspend "$T" "$t_b" 1 10; then
		inv="$inv; cycle $cycle: no kernel suspend after busy"
		continue
	fi
	t_s=$(ev_first suspend "$T" "$t_b")
	for i in 1 2 3 4; do
		sample busy
		sleep 0.5
	done
	t_i=$(now_ns)
	rq "notify idle" gpreempt-ctl notify idle --pid $OPID -s $SOCK
	[ "$(between resume "$t_s" "$t_i")" = 0 ] ||
		inv="$inv; cycle $cycle: resumed while online was busy"
	if ! ev_wait resume "$T" "$t_i" 1 10; then
		inv="$inv; cycle $cycle: no kernel resume after idle"
		continue
	fi
	t_r=$(ev_first resume "$T" "$t_i")
	# /proc/uptime is 10 ms coarse: allow that much
	[ $((t_r - t_i)) -ge 290000000 ] ||
		inv="$inv; cycle $cycle: resumed $(((t_r - t_i) / 1000000)) ms after idle"
	echo "hostile: cycle $cycle: suspended $(((t_s - t_b) / 1000000)) ms after busy, resumed $(((t_r - t_i) / 1000000)) ms after idle"
	for i in 1 2 3; do
		sample idle
		sleep 0.5
	done
	t_prev=$t_r
done
rounds=$(cat $HD/rounds 2>/dev/null)
rq classify sh -c "sleep 60 & gpreempt-ctl daemon -s $SOCK --send \"classify pid=\$! class=online\"; r=\$?; kill \$!; exit \$r"

n="hostile tenant: the ROCr job is suspended exactly while online is busy (kernel events, 3 cycles)"
arb=$(gpreempt-ctl policy -j -s $SOCK | grep '"type":"arbiter"')
if [ -z "$inv" ] && echo "$arb" | grep -q '"max_hold_resumes":0,' &&
   echo "$arb" | grep -q '"failures":0,'; then
	gp_ok "$n"
else
	gp_fail "$n" "$inv; $arb"
	gp_log $LOG
fi

n="hostile tenant: root's notify, policy, status, classify and scrapes never refused nor frozen"
if [ -z "$bad" ] && [ -n "$rounds" ]; then
	gp_ok "$n ($nsample samples, longest ${maxms} ms, tenant $rounds)"
else
	gp_fail "$n" "tenant ${rounds:-no round done}$bad"
	gp_log /tmp/hos-tenant.out
fi

R=$HD/req.log
n="hostile tenant: its requests on root's and the arbiter's processes are all refused"
ok_any=$(grep -E "^(busy|idle|resume|detach|suspend) pid=($T|$OPID|1|$SP) => 0 " $R)
if [ -z "$ok_any" ] && grep -q "^resume pid=$T => 3 " $R &&
   grep -q "^detach pid=$T => 3 " $R && grep -q "^busy pid=1 => 3 " $R &&
   grep -q "^idle pid=$OPID => 3 " $R && grep -q "^busy pid=$SP => 2 " $R &&
   grep -q "^resume pid=$BP => 3 .*held by the arbiter" $R &&
   grep -q "^detach pid=$BP => 3 .*held by the arbiter" $R; then
	gp_ok "$n"
else
	gp_fail "$n" "accepted: ${ok_any:-none}"
	gp_log $R
fi

n="hostile tenant: its status shows its own holds only; its connections stop at its share"
if grep -q "^session pid=$S1 " $HD/status.out &&
   ! grep -q "^session pid=$BP " $HD/status.out &&
   ! grep -q "^session pid=$T " $HD/status.out &&
   [ "$(grep -c '"reply":"ok"' $HD/conns.out)" -le 8 ] &&
   grep -q '"reply":"err 11 ' $HD/conns.out &&
   [ "$hmax" -le 16 ]; then
	gp_ok "$n (arbiter rows of its uid at most $hmax)"
else
	gp_fail "$n" "hmax=$hmax $(cat $HD/status.out $HD/conns.out)"
fi

n="hostile tenant: the exposition stays UTF-8 with its bad name held; limits counted"
if ! od -An -v -tx1 /tmp/hos-m.txt | grep -q ' ff' &&
   grep -qF "pid=\"$BP\",comm=\"gp\\\\xff\\\\xfex\"" /tmp/hos-m.txt &&
   grep -q '^gpreempt_limit_hits_total{cause="clients_per_uid"} [1-9]' /tmp/hos-m.txt; then
	gp_ok "$n"
else
	gp_fail "$n" "$(grep -a 'comm=\|limit_hits' /tmp/hos-m.txt | head -20)"
fi

# the tenant goes: its shell ends at 'stop', the rest is killed
touch $HD/stop
for p in /proc/[0-9]*; do
	[ "$(stat -c %u $p 2>/dev/null)" = $HUID ] && kill -KILL ${p#/proc/} 2>/dev/null
done
_i=0
while [ "$(fds)" -gt $((fd0 + 8)) ] && [ $_i -lt $((100 * GP_WAIT_SCALE)) ]; do
	_i=$((_i + 1))
	sleep 0.1
done
fd1=$(fds)
rss1=$(rss)
n="hostile tenant: the daemon's fds and RSS stay bounded"
if [ "$fdmax" -le $((fd0 + 200)) ] && [ "$fd1" -le $((fd0 + 8)) ] &&
   [ "$rss1" -le $((rss0 + 8192)) ] && kill -0 $DPID; then
	gp_ok "$n (fds $fd0, at most $fdmax, then $fd1; RSS $rss0 kB, then $rss1 kB)"
else
	gp_fail "$n" "fds $fd0 max $fdmax end $fd1; RSS $rss0 -> $rss1 kB"
	ls -l /proc/$DPID/fd
	gp_log $LOG
fi
cleanup
wait 2>/dev/null
exit 0
