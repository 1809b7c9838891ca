# SPDX-License-Identifier: GPL-2.0
# The hostile member of the daemon's --group in 67-hostile.sh (not a
# test: the harness runs only [0-9]*.sh). Run as that member, in DIR
# (its own), it does every attack of issue 24 at once until DIR/stop
# exists: busy for pid 1, for root's online, for the arbiter's held job
# and for its own long-lived processes; classify of short-lived ones;
# more connections than its share, held; sessions (plain attach, no
# max-hold); a process named after the online selector; resume, detach
# and suspend of root's job the arbiter holds, resume and detach of its
# own offline job while the arbiter holds it; idle for root's online; idle
# TCP connections to the metrics port, re-opened as the server closes
# them; its offline job is named with bytes that are not UTF-8.
#   hostile_tenant.sh SOCK METRICS-PORT ONLINE-PID HELD-PID DIR
# Every request's outcome goes to DIR/req.log as "REQUEST => RC LAST-LINE";
# DIR/status.out is its last full `status`; DIR/hostile.ready once set up;
# pids in DIR/spoof.pid, DIR/bad.pid (the offline job), DIR/sess.pids.
SOCK=$1
PORT=$2
OPID=$3
T=$4
DIR=$5
cd "$DIR" || exit 1

send() { # REQUEST
	_out=$(timeout 120 gpreempt-ctl daemon -s "$SOCK" --send "$1" 2>&1)
	echo "$1 => $? $(echo "$_out" | tail -n 1)" >> req.log
}

# KFD process NAME-OR-PATH READY: started and waited for; pid in KPID
kfd_proc() {
	"$1" open runtime-enable "ready:$2" wait:600000 > /dev/null 2>&1 &
	KPID=$!
	_i=0
	while [ ! -e "$2" ] && [ $_i -lt 600 ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
}

# a process named after the online selector (uid 0 is not ours)
sh -c 'while :; do sleep 1; done' gp-online-standin &
echo $! > spoof.pid

# its offline job (uid and "gp-tenant-job" in its argv): a KFD process
# named with bytes that are not UTF-8; the arbiter holds it while online
# is busy, and a held process's comm is a metrics label
BAD="$DIR/$(printf 'gp\377\376x')"
cp /gp/bin/kfd-exerciser "$BAD"
kfd_proc "$BAD" "$DIR/gp-tenant-job.ready"
echo $KPID > bad.pid

# sessions: more plain attaches of its own KFD processes than its share
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	kfd_proc kfd-exerciser "$DIR/s$i.ready"
	echo $KPID >> sess.pids
	send "attach pid=$KPID"
done

# long-lived processes of its own to name in busy
LONG=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	sleep 100000 &
	LONG="$LONG $!"
done

# idle metrics connections read a FIFO this shell keeps open: no data,
# no EOF, until the server closes them
mkfifo idle.fifo
exec 3<> idle.fifo

batch() {
	for p in 1 "$OPID" "$T" "$(cat spoof.pid)" $LONG; do
		send "busy pid=$p"
	done
	for i in 1 2 3 4 5 6 7 8; do
		sleep 0.2 &
		send "classify pid=$! class=online"
	done
	send "resume pid=$T"
	send "detach pid=$T"
	send "suspend pid=$T"
	send "resume pid=$(cat bad.pid)"
	send "detach pid=$(cat bad.pid)"
	send "idle pid=$OPID"
	timeout 120 gpreempt-ctl daemon -s "$SOCK" --send status > status.new 2>&1 &&
		mv status.new status.out
}

touch hostile.ready
round=0
while [ ! -e stop ]; do
	round=$((round + 1))
	n=$(pidof nc | wc -w)
	while [ "$n" -lt 12 ]; do
		nc 127.0.0.1 "$PORT" < idle.fifo > /dev/null 2>&1 &
		n=$((n + 1))
	done
	batch
	# 12 connections (the share is 8) held for 3 s, the batch meanwhile
	kfd-exerciser uconnect:$SOCK uconnect:$SOCK uconnect:$SOCK \
		uconnect:$SOCK uconnect:$SOCK uconnect:$SOCK uconnect:$SOCK \
		uconnect:$SOCK uconnect:$SOCK uconnect:$SOCK uconnect:$SOCK \
		uconnect:$SOCK wait:3000 > conns.out 2>&1 &
	U=$!
	batch
	wait $U
	echo "round $round" > rounds
done
