#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a command and end it when it stops making progress, rather than when
# a wall-clock total runs out: a total sized on an idle host fails a slow
# but healthy run on a loaded one (CI machines are shared), while a
# silence limit only ever ends a command that is stuck. POSIX sh: the VM
# guests run it under busybox too (docs/development.md, "Timeouts").
#
#   watchdog.sh -s SECS [-m SECS] [-i SECS] [-f FILE]... [-p PROBE] -- CMD [ARG]...
#
# Progress: any FILE grew (a log, a serial port QEMU writes to a file), or
# the output of the shell command PROBE changed (the guest uses its serial
# ports' byte counters). Neither for -s SECS: CMD gets SIGTERM, then
# SIGKILL 10 s later; the watchdog says so on stderr and exits 124, as
# timeout(1) does. -m SECS adds an absolute ceiling (default 0: none), a
# backstop for a command that prints forever, never a performance bound.
# -i SECS: how often progress is sampled (default 1). Otherwise the exit
# status is CMD's.

silence=
max=0
interval=1
files=
probe=
usage() {
	echo "usage: watchdog.sh -s SECS [-m SECS] [-i SECS] [-f FILE]... [-p PROBE] -- CMD..." >&2
	exit 2
}
while getopts "s:m:i:f:p:" o; do
	case $o in
	s) silence=$OPTARG ;;
	m) max=$OPTARG ;;
	i) interval=$OPTARG ;;
	f) files="$files
$OPTARG" ;;
	p) probe=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ $# -eq 0 ] || [ -z "$silence" ]; then usage; fi
case $silence$max in *[!0-9]*) usage ;; esac

# One line that changes whenever the command made progress.
sample() {
	if [ -n "$files" ]; then
		echo "$files" | while IFS= read -r f; do
			[ -n "$f" ] || continue
			if [ -e "$f" ]; then wc -c < "$f"; else echo -; fi
		done | tr '\n' ' '
	fi
	[ -z "$probe" ] || sh -c "$probe" 2>/dev/null | tr '\n' ' '
}

# The watcher writes why into $flag before it ends the command.
flag=$(mktemp "${TMPDIR:-/tmp}/watchdog.XXXXXX") || exit 2
# An asynchronous command gets /dev/null as stdin unless told otherwise
# (dash ignores 0<&0 for that): hand it ours through fd 9.
exec 9<&0
"$@" 0<&9 9<&- &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' INT TERM

(
	trap - INT TERM
	last=$(sample)
	t_last=$(date +%s)
	t0=$t_last
	while kill -0 $pid 2>/dev/null; do
		sleep "$interval"
		now=$(date +%s)
		cur=$(sample)
		if [ "$cur" != "$last" ]; then
			last=$cur
			t_last=$now
		fi
		why=
		if [ $((now - t_last)) -ge "$silence" ]; then
			why="no progress for $silence s"
		elif [ "$max" -gt 0 ] && [ $((now - t0)) -ge "$max" ]; then
			why="still running after its $max s ceiling"
		fi
		[ -n "$why" ] || continue
		kill -0 $pid 2>/dev/null || exit 0
		echo "$why" > "$flag"
		echo "watchdog: $why: ending $1 (pid $pid)" >&2
		kill -TERM $pid 2>/dev/null
		i=0
		while kill -0 $pid 2>/dev/null && [ $i -lt 10 ]; do
			sleep 1
			i=$((i + 1))
		done
		kill -KILL $pid 2>/dev/null
		exit 124
	done
	exit 0
) > /dev/null &
wpid=$!

wait $pid
rc=$?
# Ended by the watcher: it exits once the command is gone. Ended on its
# own: the watcher's next sample would see that; no need to wait for it.
if [ -s "$flag" ]; then
	wait $wpid
	rc=124
else
	kill -TERM $wpid 2>/dev/null
	wait $wpid 2>/dev/null
fi
rm -f "$flag"
exit $rc
