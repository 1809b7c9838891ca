#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The layer check (tests/structure/check-layers.sh) on copies of user/
# with one bad include each: it must fail, naming the file; on the tree
# itself it passes.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	CHECK=$TOP/tests/structure/check-layers.sh
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T"
	cp -r "$TOP/user" "$T/"
}

@test "structure: the tree passes the layer check" {
	run -0 "$CHECK" "$TOP"
	[[ "$output" == *"ok 3 - no include circle"* ]]
}

@test "structure: the daemon including an arbiter header fails check 1" {
	echo '#include "arbiter.h"' >> "$T/user/daemon/daemon_log.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"not ok 1 "* ]]
	[[ "$output" == *"user/daemon/daemon_log.c includes user/arbiter/arbiter.h"* ]]
}

@test "structure: a lower layer including a higher one fails check 2" {
	echo '#include "session.h"' >> "$T/user/base/json.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"ok 1 "* ]]
	[[ "$output" == *"not ok 2 "* ]]
	[[ "$output" == *"user/base/json.c (base, layer 1) includes user/session/session.h"* ]]
}

@test "structure: two headers including each other fail check 3" {
	echo '#include "json.h"' >> "$T/user/base/util.h"
	echo '#include "util.h"' >> "$T/user/base/json.h"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"ok 2 "* ]]
	[[ "$output" == *"not ok 3 "* ]]
	[[ "$output" == *"user/base/json.h"* ]]
}

@test "structure: a folder without a layer fails check 2 until it has one" {
	mkdir "$T/user/newthing"
	echo '#include "util.h"' > "$T/user/newthing/x.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"folder without a layer"* ]]
}
