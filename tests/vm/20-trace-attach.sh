# SPDX-License-Identifier: GPL-2.0
# gpreempt-trace loads, CO-RE-relocates and attaches on this kernel with
# fentry, with --kprobes and in reduced mode (--check -j: a real load and
# attach, reported per hook). 6.1 has no KFD debug API: those hooks must be
# reported absent and everything else must still attach.
. /gp/tests/vm/lib.sh

core="kfd_ioctl_create_queue kfd_ioctl_destroy_queue kfd_procfs_add_queue
kfd_procfs_del_queue evict_process_queues_cpsch evict_process_queues_nocpsch
restore_process_queues_cpsch restore_process_queues_nocpsch
kfd_process_evict_queues pm_send_unmap_queue amdkfd_fence_wait_timeout"
debug="kfd_ioctl_set_debug_trap suspend_queues resume_queues"

# hook FILE FUNC HOW: FUNC reported with HOW (and attached unless absent)
hook() {
	jq -s -e --arg f "$2" --arg how "$3" \
		'[.[] | select(.type == "hook" and .func == $f)]
		 | length == 1 and (.[0] | .how == $how
		   and (.how == "absent" or .attached == true))' \
		"$1" > /dev/null
}

check_mode() { # name how mode-word flags...
	name=$1 how=$2 modeword=$3
	shift 3
	out=/tmp/check-$(echo "$name" | tr -c 'a-z\n' _).json
	gpreempt-trace --check -j "$@" > "$out" 2> "$out.err"
	rc=$?
	bad=""
	[ $rc -eq 0 ] || bad="$bad rc=$rc"
	jq -s -e --arg m "$modeword" '[.[] | select(.type == "probes")]
		| length == 1 and (.[0] | .mode == $m and .module_btf
		  and .attached > 0)' "$out" > /dev/null ||
		bad="$bad probes-line"
	if [ "$modeword" = reduced ]; then
		want="kfd_ioctl_create_queue kfd_ioctl_destroy_queue"
	else
		want=$core
	fi
	for f in $want; do
		hook "$out" "$f" "$how" || bad="$bad $f"
	done
	for f in $debug; do
		if [ "$GP_KERNEL" = 6.1 ]; then
			hook "$out" "$f" absent || bad="$bad $f-not-absent"
		elif [ "$modeword" = full ] || [ $f = kfd_ioctl_set_debug_trap ]
		then
			hook "$out" "$f" "$how" || bad="$bad $f"
		fi
	done
	if [ -z "$bad" ]; then
		gp_ok "trace attaches: $name"
	else
		gp_fail "trace attaches: $name" "wrong:$bad"
		gp_log "$out"
		gp_log "$out.err"
	fi
}

check_mode fentry fentry full
# kprobes go through the perf kprobe PMU (sysfs), the exit hook is a raw
# tracepoint: neither needs tracefs or debugfs. Prove it by unmounting them.
umount /sys/kernel/debug/tracing 2>/dev/null
umount /sys/kernel/tracing 2>/dev/null
umount /sys/kernel/debug 2>/dev/null
if grep -qE ' (tracefs|debugfs) ' /proc/mounts; then
	gp_fail "trace attaches: kprobes, no tracefs/debugfs" \
		"could not unmount: $(grep -E 'tracefs|debugfs' /proc/mounts)"
	check_mode kprobes kprobe full -k
else
	check_mode "kprobes, no tracefs/debugfs" kprobe full -k
fi
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
check_mode reduced kprobe reduced --reduced

# The one-line notice for what this kernel lacks (text mode, stderr).
if [ "$GP_KERNEL" = 6.1 ]; then
	gpreempt-trace -d 1 > /tmp/t61.out 2> /tmp/t61.err
	if grep -q '^gpreempt-trace: suspend_queues: not in this kernel.*skipped' \
		/tmp/t61.err && [ "$(grep -c suspend_queues /tmp/t61.err)" = 1 ]
	then
		gp_ok "trace says in one line that suspend_queues is absent"
	else
		gp_fail "trace says in one line that suspend_queues is absent" \
			"stderr did not"
		gp_log /tmp/t61.err
	fi
fi
