# SPDX-License-Identifier: GPL-2.0
# Helpers for the real-runtime guest tests (5*-rocr-*.sh), sourced after
# lib.sh and ctl_lib.sh. The runtime is Debian trixie's ROCr, rocminfo
# and their libraries at their own paths (scripts/rocr.sh, scripts/vm.sh).
#   rocr_present NAME          fail NAME (never skip) when the runtime is
#                              missing from the guest; 1 then
#   rocr_target NAME [ARGS]    rocr-probe ARGS in the background, output in
#                              /tmp/NAME.out; sets TPID; 1 if never ready
#   rocr_kfd_trace_on / _off   tracefs kprobes on KFD's open, ioctl
#                              dispatcher, RUNTIME_ENABLE and release
#   rocr_kfd_calls PID         that pid's KFD calls, in order, one line:
#                              open=0 GET_VERSION=0 ... RUNTIME_ENABLE(1)=0
#   rocr_doc_calls KEY         the sequence docs/rocr.md states for KEY

ROCR_LIB=/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1
TRC=/sys/kernel/tracing

rocr_present() {
	if [ -e "$ROCR_LIB" ] && [ -x /usr/bin/rocminfo ] &&
	   [ -x /gp/bin/rocr-probe ]; then
		return 0
	fi
	gp_fail "$1" "Debian's ROCm runtime is not in the guest: scripts/rocr.sh fetch failed or never ran (run scripts/setup.sh; the vm.sh header line says which packages it used)"
	return 1
}

rocr_target() {
	_n=$1
	shift
	rm -f "/tmp/$_n.ready"
	rocr-probe -r "/tmp/$_n.ready" "$@" > "/tmp/$_n.out" 2>&1 &
	TPID=$!
	gp_wait_file "/tmp/$_n.ready" 30
}

# Plain kprobes (cheap under TCG; fprobes and globs are not). The
# RUNTIME_ENABLE handler does not exist on 6.1: its probe is optional.
rocr_kfd_trace_on() {
	echo > $TRC/trace
	echo 'p:gprocr/kopen kfd_open filp=$arg2:x64' >> $TRC/kprobe_events &&
	echo 'r:gprocr/kopen_ret kfd_open ret=$retval:s32' >> $TRC/kprobe_events &&
	echo 'p:gprocr/kioctl kfd_ioctl cmd=$arg2:x32' >> $TRC/kprobe_events &&
	echo 'r:gprocr/kioctl_ret kfd_ioctl ret=$retval:s32' >> $TRC/kprobe_events &&
	echo 'p:gprocr/krel kfd_release filp=$arg2:x64' >> $TRC/kprobe_events || return 1
	echo 'p:gprocr/krt kfd_ioctl_runtime_enable mode=+8($arg3):u32' \
		>> $TRC/kprobe_events 2>/dev/null
	echo 1 > $TRC/events/gprocr/enable
}

# A process's last reference to /dev/kfd can be dropped after its
# parent's wait returned, by another task (a mapping of the file in an mm
# another task still holds): under two host CPU hogs a release was missed
# once. So the trace stays on until every successful open has had its
# release (the idle figure times GP_WAIT_SCALE at most), and a release is
# matched to its open by the file, not by the pid that ran it.
rocr_kfd_trace_off() {
	local i=0
	while [ $i -lt $((50 * GP_WAIT_SCALE)) ] &&
	      ! awk '{ ev = $5; sub(/:$/, "", ev) }
		ev == "kopen_ret" && $NF == "ret=0" { o++ }
		ev == "krel" { r++ }
		END { exit (o > r) }' $TRC/trace; do
		sleep 0.1
		i=$((i + 1))
	done
	echo 0 > $TRC/events/gprocr/enable
	cp $TRC/trace /tmp/rocr-kfd.trace
	for e in krt krel kioctl_ret kioctl kopen_ret kopen; do
		echo "-:gprocr/$e" >> $TRC/kprobe_events 2>/dev/null
	done
}

# KFD ioctl numbers (_IOC_NR, kfd_ioctl.h) of the calls ROCr makes or
# could make at start-up; others print as their hex number.
rocr_kfd_calls() {
	awk -v pid="$1" '
	BEGIN {
		split("GET_VERSION CREATE_QUEUE DESTROY_QUEUE SET_MEMORY_POLICY GET_CLOCK_COUNTERS GET_PROCESS_APERTURES UPDATE_QUEUE CREATE_EVENT DESTROY_EVENT SET_EVENT RESET_EVENT WAIT_EVENTS", a, " ")
		for (i in a) nm[i] = a[i]
		nm[20] = "GET_PROCESS_APERTURES_NEW"; nm[21] = "ACQUIRE_VM"
		nm[22] = "ALLOC_MEMORY_OF_GPU"; nm[24] = "MAP_MEMORY_TO_GPU"
		nm[31] = "SMI_EVENTS"; nm[32] = "SVM"; nm[33] = "SET_XNACK_MODE"
		nm[35] = "AVAILABLE_MEMORY"; nm[37] = "RUNTIME_ENABLE"
		nm[38] = "DBG_TRAP"
		en[1] = "EPERM"; en[2] = "ENOENT"; en[11] = "EAGAIN"
		en[16] = "EBUSY"; en[19] = "ENODEV"; en[22] = "EINVAL"
		en[25] = "ENOTTY"
	}
	function res(r) { return r == 0 ? "0" : ((-r in en) ? en[-r] : r) }
	{ ev = $5; sub(/:$/, "", ev) }
	# a release is the pid'"'"'s when it closes a file the pid opened,
	# whichever task dropped the last reference
	ev == "krel" && ($NF in own) { out = out " release"; delete own[$NF] }
	$1 !~ ("-" pid "$") { next }
	ev == "kopen" { own[$NF] = 1 }
	ev == "kopen_ret" { v = $NF; sub(/ret=/, "", v); out = out " open=" res(v) }
	ev == "kioctl" {
		c = $NF; sub(/cmd=0x/, "", c)
		n = 0
		for (i = length(c) - 1; i <= length(c); i++)
			n = n * 16 + index("0123456789abcdef", substr(c, i, 1)) - 1
		name = (n in nm) ? nm[n] : sprintf("0x%02x", n); mode = ""
	}
	ev == "krt" { v = $NF; sub(/mode=/, "", v); mode = "(" v ")" }
	ev == "kioctl_ret" { v = $NF; sub(/ret=/, "", v); out = out " " name mode "=" res(v) }
	END { sub(/^ /, "", out); print out }' /tmp/rocr-kfd.trace
}

# docs/rocr.md states each observed sequence on a line
# "kfd-calls KEY: CALL ..."; the harness copies the file to /gp/docs.
rocr_doc_calls() {
	sed -n "s/^kfd-calls $1: //p" /gp/docs/rocr.md
}
