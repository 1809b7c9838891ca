# SPDX-License-Identifier: GPL-2.0
# What scripts/demo.sh shows: both tools against the real KFD of the booted
# Debian kernel. There is no GPU, so CREATE_QUEUE fails inside the kernel
# (EINVAL) and the targets own no hardware queues; the debug-trap protocol
# (ptrace attach, ENABLE, runtime handshake, SUSPEND, RESUME, DISABLE) runs
# for real on 6.12. Runs as the guest's main script.
show() { echo; echo "\$ $*"; "$@"; echo "(exit $?)"; }

echo "kernel $(uname -r), KFD at /dev/kfd"
show kfd-exerciser version
show gpreempt-ctl check

echo
echo "\$ gpreempt-trace -T &     # tracing while the workloads below run"
gpreempt-trace -T --ready-file /tmp/trace.ready > /tmp/trace.out 2>&1 &
tpid=$!
i=0
while [ ! -e /tmp/trace.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done

# A workload asking KFD for a queue (the kernel refuses: no GPU).
show kfd-exerciser -q create:gpu=0xdeadbeef,type=aql,prio=7,ring=4096 destroy:qid=3

# A "training job": opens KFD, enables its runtime like ROCr, then waits.
kfd-exerciser -q open runtime-enable ready:/tmp/job.ready wait > /dev/null &
job=$!
while [ ! -e /tmp/job.ready ]; do sleep 0.1; done
show gpreempt-ctl list
show gpreempt-ctl suspend --pid $job --for 500ms
show gpreempt-ctl suspend --pid $job --queue 1 --queue 2 --for 200ms

echo
echo "\$ gpreempt-ctl daemon &   # warm sessions for low-latency requests"
gpreempt-ctl daemon --ready /tmp/d.ready > /tmp/daemon.log 2>&1 &
dpid=$!
while [ ! -e /tmp/d.ready ]; do sleep 0.1; done
show gpreempt-ctl suspend --pid $job
show gpreempt-ctl status
show gpreempt-ctl resume --pid $job
kill -TERM $dpid
wait $dpid

# Arbitration: the daemon suspends offline jobs while online is busy.
# The "server" is a shell whose command line says serve.py; the training
# job above is offline. No GPU: each suspend reaches KFD, no queue stops.
echo
echo "\$ gpreempt-ctl daemon --online uid=0,cmdline=serve.py --offline uid=0,comm=kfd-exerciser \\"
echo "      --resume-after 2ms --min-offline-share 20 --window 1s &"
sh -c 'while :; do sleep 1; done' serve.py &
srv=$!
rm -f /tmp/d.ready
gpreempt-ctl daemon --ready /tmp/d.ready --online uid=0,cmdline=serve.py \
	--offline uid=0,comm=kfd-exerciser --resume-after 2ms \
	--min-offline-share 20 --window 1s > /tmp/arbiter.log 2>&1 &
dpid=$!
while [ ! -e /tmp/d.ready ]; do sleep 0.1; done
i=0
while ! grep -q "offline pid $job .* attached" /tmp/arbiter.log; do
	i=$((i + 1))
	[ $i -gt 100 ] && break
	sleep 0.1
done
show gpreempt-ctl notify busy --pid $srv
sleep 1.3
show gpreempt-ctl notify idle --pid $srv
sleep 0.1
show gpreempt-ctl policy
echo "--- the daemon's decisions ---"
grep 'arbiter: \(busy\|idle\|suspend\|resume\)' /tmp/arbiter.log | cut -c14-
kill -TERM $dpid
wait $dpid
kill $srv $job
wait $job 2>/dev/null

kill -INT $tpid
wait $tpid
echo
echo "--- gpreempt-trace output (SIGINT: final map and histograms) ---"
cat /tmp/trace.out
