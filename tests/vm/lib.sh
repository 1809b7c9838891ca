# SPDX-License-Identifier: GPL-2.0
# Sourced by every guest test (busybox sh). Results go to the result port
# read by scripts/vm.sh; everything else goes to the console log.
#   gp_ok NAME | gp_fail NAME WHY | gp_skip NAME WHY | gp_log FILE
#   gp_check NAME CMD...        ok when CMD exits 0, else fail
#   gp_wait_file FILE [SECS]    wait for a ready file (no sleep-and-hope)
#   gp_jq NAME FILE EXPR        ok when jq -s EXPR over FILE's lines is true
# $GP_KERNEL is 6.1, 6.12 or 7.x.

GP_RESULTS=${GP_RESULTS:-/dev/ttyS1}

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
		[ $i -gt $((${2:-30} * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}
gp_jq() {
	if jq -e -s "$3" "$2" >/dev/null 2>&1; then
		gp_ok "$1"
	else
		gp_fail "$1" "jq '$3' is false"
		gp_log "$2"
	fi
}
