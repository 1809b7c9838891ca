# SPDX-License-Identifier: GPL-2.0
# Per-GPU suspension on the real KFD (6.12): `gpreempt-ctl suspend --gpu`
# turns a gpu_id into exactly the target's queue ids on that GPU, and the
# one SUSPEND_QUEUES ioctl carries exactly them: gpreempt-trace sees a
# suspend asking that many queues, the ctl's result lists those ids.
# The VM has no GPU node, so queue placement comes from a STAND-IN sysfs
# tree (/tmp/kfd-standin/<pid>/queues/<qid>/{gpuid,type,size}, the
# kernel's format) naming queues on two GPUs; KFD answers them invalid
# (no such queue here), which is how the ids come back one by one.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/trace_lib.sh

ctl_only_612 "ctl suspend --gpu names exactly the subset" || exit 0

standin_queue() { # pid qid gpu_id
	d=/tmp/kfd-standin/$1/queues/$2
	mkdir -p "$d"
	printf '%u\n' "$3" > "$d/gpuid"
	printf '0\n' > "$d/type"
	printf '1048576\n' > "$d/size"
}

n="ctl suspend --gpu: one ioctl naming exactly the queues on that GPU"
if ctl_target g1 open runtime-enable ready:/tmp/g1.ready wait:60000; then
	rm -rf /tmp/kfd-standin
	# queues 0,1 on GPU 10001; 2,3 on GPU 10002; 4 on GPU 10001
	standin_queue "$TPID" 0 10001
	standin_queue "$TPID" 1 10001
	standin_queue "$TPID" 2 10002
	standin_queue "$TPID" 3 10002
	standin_queue "$TPID" 4 10001
	if tr_start /tmp/g1-trace.json; then
		gpreempt-ctl suspend -p "$TPID" --gpu 10002 \
			--kfd-proc /tmp/kfd-standin --for 200ms -j \
			> /tmp/g1.json 2> /tmp/g1.err
		rc=$?
		tr_stop
		gp_log /tmp/g1.json
		if [ $rc -eq 10 ] &&
		   ctl_has /tmp/g1.json '.type == "suspend" and .requested == 2 and ([.queues[].id] == [2, 3])' &&
		   jq -s -e --argjson t "$TPID" '[.[] | select(.type == "event"
			and .op == "suspend" and .target_pid == $t)]
			| length == 1 and .[0].queues_asked == 2' \
			/tmp/g1-trace.json > /dev/null; then
			gp_ok "$n"
		else
			gp_fail "$n" "rc=$rc $(cat /tmp/g1.err)"
			gp_log /tmp/g1-trace.json
		fi
	else
		gp_fail "$n" "gpreempt-trace never got ready"
	fi

	n="ctl suspend --gpu on a GPU the target has no queue on: exit 2, no ioctl"
	gpreempt-ctl suspend -p "$TPID" --gpu 10077 \
		--kfd-proc /tmp/kfd-standin --for 100ms > /tmp/g2.out 2> /tmp/g2.err
	rc=$?
	if [ $rc -eq 2 ] &&
	   grep -q "no KFD queue on the gpu_id given (its queues are on: 10001, 10002)" /tmp/g2.err; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc $(cat /tmp/g2.err)"
	fi
	kill "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
else
	gp_fail "$n" "exerciser target not ready"
fi
