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
	[[ "$output" == *"ok 4 - no call circle"* ]]
}

# A lower file of a folder calling back into the file that calls it (the
# circles the arbiter, the daemon and bugreport had), through the shared
# header both include: the includes alone do not show it.
@test "structure: two files of one folder calling each other fail check 4" {
	printf 'void dlog(const char *fmt, ...);\nvoid json_log_hook(void)\n{\n\tdlog("x");\n}\n' \
		>> "$T/user/daemon/daemon_reply.c"
	printf 'void json_log_hook(void);\nvoid daemon_log_calls_back(void)\n{\n\tjson_log_hook();\n}\n' \
		>> "$T/user/daemon/daemon_log.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"ok 3 "* ]]
	[[ "$output" == *"not ok 4 "* ]]
	[[ "$output" == *"user/daemon/daemon_log.c -> user/daemon/daemon_reply.c: json_log_hook"* ]]
	[[ "$output" == *"user/daemon/daemon_reply.c -> user/daemon/daemon_log.c: dlog"* ]]
}

@test "structure: a call one way, or a name in a comment or a static, is no circle" {
	# daemon_log.c names reply_* only in a comment, a string and a
	# static; daemon_reply.c defines a static of a dlog-like name
	printf '/* reply_ok() */\nstatic void reply_ok_local(void)\n{\n\tconst char *s = "reply_line";\n\t(void)s;\n}\n' \
		>> "$T/user/daemon/daemon_log.c"
	printf 'static void dlog_flush_here(void)\n{\n}\n' \
		>> "$T/user/daemon/daemon_reply.c"
	run -0 "$CHECK" "$T"
	[[ "$output" == *"ok 4 - no call circle"* ]]
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

@test "structure: a module including daemon_int.h fails check 5" {
	echo '#include "daemon_int.h"' >> "$T/user/arbiter/arbiter_core.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"not ok 5 "* ]]
	[[ "$output" == *"user/arbiter/arbiter_core.c includes user/daemon/daemon_int.h"* ]]
}

@test "structure: a daemon file using a name a module defines fails check 6" {
	# the old shape: the arbiter's limit cause in the daemon's enum
	printf 'int daemon_log_cause(void)\n{\n\treturn ARB_LIMIT_PROCS;\n}\n' \
		>> "$T/user/daemon/daemon_log.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"ok 5 "* ]]
	[[ "$output" == *"not ok 6 "* ]]
	[[ "$output" == *"user/daemon/daemon_log.c uses ARB_LIMIT_PROCS"* ]]
}

@test "structure: a daemon string saying a module's name fails check 6; a comment does not" {
	printf '/* the arbiter */\nconst char *daemon_log_said = "arbiter_processes";\n' \
		>> "$T/user/daemon/daemon_limits.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"not ok 6 "* ]]
	[[ "$output" == *'user/daemon/daemon_limits.c says "arbiter" in a string'* ]]
}

# Checks 5 and 6 hold no exception: the executor, which once read struct
# target through daemon_int.h, and the daemon's target table, whose
# refusal once named the arbiter, fail like any other file.
@test "structure: the executor including daemon_int.h fails check 5 (no exception)" {
	echo '#include "daemon_int.h"' >> "$T/user/arbiter/arbiter_gpus.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"not ok 5 "* ]]
	[[ "$output" == *"user/arbiter/arbiter_gpus.c includes user/daemon/daemon_int.h"* ]]
	[[ "$output" != *"TODO"* ]]
}

@test "structure: the target table saying the arbiter in a string fails check 6 (no exception)" {
	printf 'const char *daemon_targets_said = "kept for root and the arbiter";\n' \
		>> "$T/user/daemon/daemon_targets.c"
	run -1 "$CHECK" "$T"
	[[ "$output" == *"not ok 6 "* ]]
	[[ "$output" == *'user/daemon/daemon_targets.c says "arbiter" in a string'* ]]
	[[ "$output" != *"TODO"* ]]
}
