# shellcheck shell=bash
# daemon_setup [--kfd-ok]: the shared start of a daemon test's setup():
# CTL is the built gpreempt-ctl, the test needs root, and (unless
# --kfd-ok) a host with /dev/kfd is left to the VM tests; DPID is empty.
daemon_setup() {
	CTL=${GP_BIN:-$BATS_TEST_DIRNAME/../../.output/bin}/gpreempt-ctl
	[ -x "$CTL" ] || skip "no gpreempt-ctl at $CTL (set GP_BIN)"
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ "${1:-}" = --kfd-ok ] || [ ! -e /dev/kfd ] ||
		skip "this host has /dev/kfd: the VM tests cover it"
	DPID=
}

# daemon_bg ARGS...: "$CTL" daemon --ready "$D/ready" ARGS in the
# background (DPID), stderr to "$D/log"; ready when the file appears
# (a minute at most: a loaded CI host is slow), else its log is shown
# and it fails.
daemon_bg() {
	"$CTL" daemon --ready "$D/ready" "$@" 2>"$D/log" &
	DPID=$!
	for _ in $(seq 600); do
		[ -s "$D/ready" ] && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$D/log"
	return 1
}

# as USER CMD...: CMD with USER's uid and the test's group $GRP, no other
# groups. exec: a background `as ... &` is then the command itself, and $!
# names what teardown must kill.
as() {
	local u=$1
	shift
	exec setpriv --reuid="$u" --regid="$GRP" --clear-groups "$@"
}

# users_setup TAG GROUP USER...: the scratch directory $D
# (/tmp/gpTAG.XXXXXX, 0755 so the users reach what is put there), the group
# $GRP=GROUP and USER... in it (no home, no login); skips without useradd.
# users_teardown undoes it.
users_setup() {
	local u
	command -v useradd >/dev/null || skip "no useradd"
	D=$(mktemp -d "/tmp/gp$1.XXXXXX")
	chmod 0755 "$D"
	GRP=$2
	shift 2
	groupadd "$GRP"
	for u in "$@"; do
		useradd -M -N -g "$GRP" -s /usr/sbin/nologin "$u"
	done
}

# users_teardown USER...: kill what the test users still run (a background
# `as` job left holding bats' output open would keep the whole bats run
# from ever ending), then remove them, the group $GRP and the directory $D.
users_teardown() {
	local u
	for u in "$@"; do [ -n "$u" ] && pkill -KILL -u "$u" 2>/dev/null; done
	wait 2>/dev/null
	for u in "$@"; do
		[ -n "$u" ] || continue
		# userdel refuses a user with a process left: a killed one
		# may take a moment to go (bounded, progress-polled)
		for _ in $(seq 100); do
			pgrep -u "$u" >/dev/null 2>&1 || break
			sleep 0.1
		done
		userdel "$u" 2>/dev/null
	done
	groupdel "$GRP" 2>/dev/null
	rm -rf "$D"
	true
}

# daemon_teardown [PID...]: the shared end of a daemon test's teardown():
# the daemon (DPID) and the other processes named are killed with KILL (a
# daemon stuck in the kernel ignores TERM); unset or empty ones are
# skipped. Always succeeds, so a teardown never hides the test's result.
daemon_teardown() {
	local p
	for p in "${DPID:-}" "$@"; do
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	done
	true
}
