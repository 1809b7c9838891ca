# SPDX-License-Identifier: GPL-2.0
# Debian trixie's real ROCm runtime (ROCr 6.1.2, libhsakmt, rocminfo) on
# each kernel, with no GPU: what rocminfo and hsa_init() report, and
# which KFD calls ROCr makes, in order, checked against docs/rocr.md.
# 6.12: the CPU agent, the runtime enabled by ROCr itself. 6.1 (KFD 1.11):
# the same without RUNTIME_ENABLE. 7.x: KFD refuses the process (open
# EINVAL), hsa_init() fails. A missing runtime fails, it is never skipped.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh
. /gp/tests/vm/rocr_lib.sh

rocr_present "rocr: Debian's runtime is installed in the guest" || exit 0
gp_ok "rocr: Debian's runtime is installed in the guest"

# 1. rocminfo, under its own name.
rocminfo > /tmp/ri.out 2>&1
rc=$?
gp_log /tmp/ri.out
case $GP_KERNEL in
6.12|6.1)
	n="rocr: rocminfo lists the CPU agent and no GPU, exit 0"
	if [ $rc -eq 0 ] && grep -q "^HSA Agents" /tmp/ri.out &&
	   grep -q "Device Type: *CPU" /tmp/ri.out &&
	   ! grep -q "Device Type: *GPU" /tmp/ri.out; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi ;;
7.x)
	n="rocr: rocminfo cannot open /dev/kfd (EINVAL, no GPU), exit 1"
	if [ $rc -eq 1 ] &&
	   grep -q "Unable to open /dev/kfd read-write: Invalid argument" /tmp/ri.out; then
		gp_ok "$n"
	else
		gp_fail "$n" "rc=$rc"
	fi ;;
esac

# 2. hsa_init() and the KFD calls behind it, then hsa_shut_down().
n="rocr: KFD probes for the call order attach"
if ! rocr_kfd_trace_on; then
	gp_fail "$n" "tracefs kprobes on kfd_open/kfd_ioctl refused"
	exit 0
fi
gp_ok "$n"
rocr_target p1 -w 200
rp=$?
wait "$TPID"
prc=$?
HSA_ENABLE_DEBUG=1 rocr-probe -w 0 > /tmp/p2.out 2>&1 &
dpid=$!
wait "$dpid"
# The stand-in, with its default runtime-enable, for the comparison below.
kfd-exerciser open runtime-enable runtime-disable > /tmp/x1.out 2>&1 &
xpid=$!
wait "$xpid"
rocr_kfd_trace_off
gp_log /tmp/p1.out
case $GP_KERNEL in
6.12|6.1)
	n="rocr: hsa_init() succeeds, one CPU agent, hsa_shut_down() succeeds, exit 0"
	if [ $rp -eq 0 ] && [ $prc -eq 0 ] &&
	   ctl_has /tmp/p1.out '.step == "hsa_init" and .status == 0' &&
	   ctl_has /tmp/p1.out '.step == "agents" and .cpu == 1 and .gpu == 0' &&
	   ctl_has /tmp/p1.out '.step == "hsa_shut_down" and .status == 0'; then
		gp_ok "$n"
	else
		gp_fail "$n" "ready=$rp rc=$prc"
	fi ;;
7.x)
	n="rocr: hsa_init() fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES, exit 1"
	if [ $rp -eq 0 ] && [ $prc -eq 1 ] &&
	   ctl_has /tmp/p1.out '.step == "hsa_init" and .status == 4104 and .name == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"' &&
	   dmesg | grep -q "no gpu node! Cannot create KFD process"; then
		gp_ok "$n"
	else
		gp_fail "$n" "ready=$rp rc=$prc"
	fi ;;
esac

for key in "$GP_KERNEL" "$GP_KERNEL-debug"; do
	if [ "$key" = "$GP_KERNEL" ]; then
		pid=$(jq -r 'select(.step == "start") | .pid' /tmp/p1.out)
		what="ROCr's KFD calls (hsa_init, hsa_shut_down)"
	else
		pid=$dpid
		what="with HSA_ENABLE_DEBUG=1, ROCr's KFD calls"
	fi
	want=$(rocr_doc_calls "$key")
	got=$(rocr_kfd_calls "$pid")
	echo "$key: got:  $got"
	echo "$key: want: $want"
	n="rocr: $what are the ones docs/rocr.md states for $GP_KERNEL"
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "got '$got', docs say '$want'"
		gp_log /tmp/rocr-kfd.trace
	fi
done

# The stand-in must enable and disable its runtime as ROCr does (same
# RUNTIME_ENABLE calls, mode_mask included). 6.12 only: on 6.1 ROCr makes
# no such call and the exerciser's gets ENOTTY; on 7.x neither opens.
if [ "$GP_KERNEL" = 6.12 ]; then
	n="rocr: kfd-exerciser's runtime-enable/-disable make ROCr's RUNTIME_ENABLE calls"
	rt() { rocr_kfd_calls "$1" | tr ' ' '\n' | grep '^RUNTIME_ENABLE' | tr '\n' ' '; }
	ours=$(rt "$xpid")
	theirs=$(rt "$(jq -r 'select(.step == "start") | .pid' /tmp/p1.out)")
	if [ -n "$theirs" ] && [ "$ours" = "$theirs" ]; then
		gp_ok "$n"
	else
		gp_fail "$n" "kfd-exerciser: '$ours', ROCr: '$theirs'"
	fi
fi
