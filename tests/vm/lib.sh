# SPDX-License-Identifier: GPL-2.0
# Sourced by every guest test (busybox sh). Results go to the result port
# read by scripts/vm.sh; everything else goes to the console log.
#   gp_ok NAME | gp_fail NAME WHY | gp_skip NAME WHY | gp_log FILE
#   gp_check NAME CMD...        ok when CMD exits 0, else fail
#   gp_wait_file FILE [SECS]    wait for a ready file (no sleep-and-hope);
#                               SECS as on an idle host, scaled for load
#   $GP_WAIT_SCALE              multiply any bound measured on an idle
#                               host by it: [ $i -lt $((50 * GP_WAIT_SCALE)) ]
#   gp_jq NAME FILE EXPR        ok when jq -s EXPR over FILE's lines is true
# $GP_KERNEL is 6.1, 6.12 or 7.x.

GP_RESULTS=${GP_RESULTS:-/dev/ttyS1}
# A loaded host runs the guest several times slower while its clock keeps
# wall-clock time: every wait's bound is what it takes on an idle host
# times this. A passing wait ends as soon as its condition holds, so the
# margin costs nothing; a stuck test is ended by init.sh's silence limit
# (docs/development.md, "Timeouts").
GP_WAIT_SCALE=${GP_WAIT_SCALE:-5}

gp_ok() { echo "GPTEST ok $1" > "$GP_RESULTS"; }
gp_skip() { echo "GPTEST skip $1 # $2" > "$GP_RESULTS"; }
gp_fail() {
	echo "GPTEST fail $1 # $2" > "$GP_RESULTS"
	echo "FAIL: $1: $2"
}
gp_log() {
	echo "--- $1"
	cat "$1" 2>/dev/null
	echo "---"
}
gp_check() {
	name=$1
	shift
	if "$@"; then gp_ok "$name"; else gp_fail "$name" "failed: $*"; fi
}
gp_wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -gt $((${2:-30} * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
	return 0
}
# gp_wait_log FILE TEXT [SECS]: until grep finds TEXT in FILE (scaled).
gp_wait_log() {
	i=0
	while ! grep -q "$2" "$1"; do
		i=$((i + 1))
		[ $i -gt $((${3:-30} * 10 * GP_WAIT_SCALE)) ] && return 1
		sleep 0.1
	done
	return 0
}
# gp_nobody: a user nobody (65534) and group nogroup, for tests of a
# non-root client (busybox su drops to it). The initramfs root comes from
# a mktemp -d (0700): / and the tools get the modes a real system has, or
# nobody could not even start gpreempt-ctl.
gp_nobody() {
	grep -q '^nobody:' /etc/passwd 2>/dev/null || {
		mkdir -p /etc
		grep -q '^root:' /etc/passwd 2>/dev/null ||
			echo 'root:x:0:0:root:/:/bin/sh' >> /etc/passwd
		echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
		echo 'nogroup:x:65534:' >> /etc/group
	}
	chmod 0755 / /bin /gp /gp/bin /gp/tests /gp/tests/vm 2>/dev/null
}
gp_jq() {
	if jq -e -s "$3" "$2" >/dev/null 2>&1; then
		gp_ok "$1"
	else
		gp_fail "$1" "jq '$3' is false"
		gp_log "$2"
	fi
}
