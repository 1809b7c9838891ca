#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The VM harness and the suite runner must turn a guest failure into a
# failed run: a deliberate failing guest test, and a guest that stops
# before finishing its tests. Boots Debian's 6.1 kernel (the quickest);
# needs the kernel cache from scripts/setup.sh.

TOP=$BATS_TEST_DIRNAME/../..

setup_file() {
	export EXTRA=$(mktemp -d)
	export VM_OUTPUT=$TOP/.output/vm
}

teardown_file() {
	rm -rf "$EXTRA"
}

setup() {
	rm -f "$EXTRA"/*.sh
	"$TOP/scripts/kernels.sh" path 6.1 kver >/dev/null 2>&1 ||
		skip "guest kernels not cached: run scripts/setup.sh"
}

@test "a failing guest test fails vm.sh and is reported as not ok" {
	cat > "$EXTRA/99-deliberate.sh" <<'EOS'
. /gp/tests/vm/lib.sh
gp_ok "deliberate pass"
gp_fail "deliberate failure" "on purpose"
EOS
	VM_EXTRA_TESTS=$EXTRA run "$TOP/scripts/vm.sh" test -k 6.1 -t '99*'
	[ "$status" -ne 0 ]
	[[ "$output" == *"ok 1 - [6.1] deliberate pass"* ]]
	[[ "$output" == *"not ok 2 - [6.1] deliberate failure # on purpose"* ]]
}

@test "the suite runner sums it into the closing line and exits 1" {
	cat > "$EXTRA/99-deliberate.sh" <<'EOS'
. /gp/tests/vm/lib.sh
gp_fail "deliberate failure" "on purpose"
EOS
	KERNELS=6.1 VMTESTS='99*' VM_EXTRA_TESTS=$EXTRA \
		run "$TOP/scripts/run-tests.sh" vm
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "0 passed, 1 failed, 0 skipped" ]
}

@test "a guest that stops before finishing its tests fails the run" {
	cat > "$EXTRA/99-poweroff.sh" <<'EOS'
poweroff -f
EOS
	VM_EXTRA_TESTS=$EXTRA run "$TOP/scripts/vm.sh" test -k 6.1 -t '99*'
	[ "$status" -ne 0 ]
	[[ "$output" == *"not ok 1 - [6.1] guest finished its tests"* ]]
}
