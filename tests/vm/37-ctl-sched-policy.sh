# SPDX-License-Identifier: GPL-2.0
# amdgpu.sched_policy=2 (no hardware scheduler) makes KFD refuse every
# debug-trap op. Reload the real module with that parameter and check that
# the kernel refuses (raw ioctl) and that gpreempt-ctl says why, exit 7.
# Then reload it with defaults for the tests that follow.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

if [ "$GP_KERNEL" != 6.12 ]; then
	gp_skip "ctl sched_policy=2" "only 6.12 has the debug-trap API and KFD"
	exit 0
fi
ko=$(grep '/amdgpu\.ko$' /gp/modules.order)

reload() { # insmod args...
	rmmod amdgpu || return 1
	insmod "$ko" "$@" || return 1
	test -c /dev/kfd
}

if ! reload sched_policy=2; then
	gp_fail "reload amdgpu with sched_policy=2" "rmmod/insmod failed"
	exit 0
fi
gp_check "amdgpu reloaded with sched_policy=2" \
	grep -qx 2 /sys/module/amdgpu/parameters/sched_policy

# The kernel's own answer, independent of gpreempt-ctl.
kfd-exerciser dbg:op=enable,pid=self > /tmp/sp.raw 2>&1
if ctl_has /tmp/sp.raw '.step == "dbg" and .errno == 22'; then
	gp_ok "sched_policy=2: KFD refuses DBG_TRAP ENABLE with EINVAL"
else
	gp_fail "sched_policy=2: KFD refuses DBG_TRAP ENABLE with EINVAL" \
		"$(cat /tmp/sp.raw)"
fi

gpreempt-ctl check > /tmp/sp.check 2>&1
rc=$?
gp_log /tmp/sp.check
if [ $rc -eq 7 ] && grep -q 'sched_policy' /tmp/sp.check; then
	gp_ok "ctl check: sched_policy=2 -> exit 7 with the reason"
else
	gp_fail "ctl check: sched_policy=2 -> exit 7 with the reason" "rc=$rc"
fi

if ctl_target sp open runtime-enable ready:/tmp/sp.ready wait:60000; then
	gpreempt-ctl suspend --pid "$TPID" --for 1s > /tmp/sp.susp 2>&1
	rc=$?
	gp_log /tmp/sp.susp
	tracer=$(ctl_field "$TPID" TracerPid)
	if [ $rc -eq 7 ] && grep -q 'sched_policy=2' /tmp/sp.susp &&
	   [ "$tracer" = 0 ]; then
		gp_ok "ctl suspend: sched_policy=2 -> exit 7, target untouched"
	else
		gp_fail "ctl suspend: sched_policy=2 -> exit 7, target untouched" \
			"rc=$rc TracerPid=$tracer"
	fi
	kill "$TPID"
	wait "$TPID" 2>/dev/null
else
	gp_fail "ctl suspend: sched_policy=2 -> exit 7, target untouched" \
		"exerciser target never got ready"
fi

gp_check "amdgpu reloaded with default parameters" reload
