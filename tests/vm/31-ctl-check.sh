# SPDX-License-Identifier: GPL-2.0
# gpreempt-ctl check (and suspend's first gate) on each kernel: 6.12 has
# the debug-trap API, 6.1 (KFD 1.11) has none, 7.x refuses to create a
# KFD process without a GPU.
. /gp/tests/vm/lib.sh
. /gp/tests/vm/ctl_lib.sh

gpreempt-ctl check > /tmp/c.txt 2>&1
rc=$?
gpreempt-ctl check -j > /tmp/c.json 2>/dev/null
rcj=$?
gp_log /tmp/c.txt

case $GP_KERNEL in
6.12)
	if [ $rc -eq 0 ] && [ $rcj -eq 0 ] &&
	   ctl_has /tmp/c.json '.item == "kfd_version" and .value == "1.17" and .ok' &&
	   ctl_has /tmp/c.json '.type == "verdict" and .ok'; then
		gp_ok "ctl check: KFD 1.17 has the debug-trap API, exit 0"
	else
		gp_fail "ctl check: KFD 1.17 has the debug-trap API, exit 0" \
			"rc=$rc/$rcj"
	fi
	if ctl_has /tmp/c.json '.item == "gpus" and .value == "0" and (.detail | test("no GPU node"))'; then
		gp_ok "ctl check: reports no GPU node in the topology"
	else
		gp_fail "ctl check: reports no GPU node in the topology" \
			"$(cat /tmp/c.json)"
	fi
	;;
6.1)
	if [ $rc -eq 7 ] && [ $rcj -eq 7 ] &&
	   grep -q "has no debug-trap API" /tmp/c.txt &&
	   ctl_has /tmp/c.json '.item == "kfd_version" and .value == "1.11" and (.ok | not)'; then
		gp_ok "ctl check: KFD 1.11 has no debug-trap API, exit 7"
	else
		gp_fail "ctl check: KFD 1.11 has no debug-trap API, exit 7" \
			"rc=$rc/$rcj"
	fi
	if ctl_target v61 open ready:/tmp/v61.ready wait:60000; then
		gpreempt-ctl suspend --pid "$TPID" --for 100ms > /tmp/s61.out 2> /tmp/s61.err
		rc=$?
		gp_log /tmp/s61.err
		if [ $rc -eq 7 ] && grep -q "has no debug-trap API" /tmp/s61.err &&
		   [ "$(ctl_field "$TPID" TracerPid)" = 0 ]; then
			gp_ok "ctl suspend on 6.1: no debug-trap API, exit 7, target untouched"
		else
			gp_fail "ctl suspend on 6.1: no debug-trap API, exit 7, target untouched" "rc=$rc"
		fi
	else
		gp_fail "ctl suspend on 6.1: no debug-trap API, exit 7, target untouched" \
			"exerciser target did not start"
	fi
	kill "$TPID" 2>/dev/null
	wait
	;;
7.x)
	if [ $rc -eq 4 ] && [ $rcj -eq 4 ] &&
	   grep -q "refuses to create a process" /tmp/c.txt &&
	   ctl_has /tmp/c.json '.item == "kfd_open" and .value == "open: EINVAL" and (.detail | test("without a GPU"))'; then
		gp_ok "ctl check: KFD refuses processes without a GPU, exit 4"
	else
		gp_fail "ctl check: KFD refuses processes without a GPU, exit 4" \
			"rc=$rc/$rcj"
	fi
	;;
esac
