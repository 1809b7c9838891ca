#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test initramfs (scripts/vm.sh). Mounts what the tools need,
# loads the real amdgpu module, runs the guest tests and powers off.
# Results go to the second serial port, the console log to the first.
/bin/busybox --install -s /bin
export PATH=/gp/bin:/usr/bin:/bin:/sbin
# The docs' commands say sudo (docs/development.md, "The doc-test"); the
# guest runs everything as root and has no sudo: root's sudo just runs it.
printf '#!/bin/sh\nexec "$@"\n' > /bin/sudo
chmod 0755 /bin/sudo
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
exec >/dev/console 2>&1

for arg in $(cat /proc/cmdline); do
	case $arg in
	gp.kernel=*) export GP_KERNEL=${arg#gp.kernel=} ;;
	gp.mode=*) GP_MODE=${arg#gp.mode=} ;;
	gp.tests=*) GP_TESTS=${arg#gp.tests=} ;;
	gp.silence=*) GP_SILENCE=${arg#gp.silence=} ;;
	gp.hip=*) GP_HIP=${arg#gp.hip=} ;;
	esac
done
export GP_RESULTS=/dev/ttyS1

t0=$(cut -d' ' -f1 /proc/uptime)
while read -r m; do
	insmod "$m" || echo "insmod $m failed"
done < /gp/modules.order
t1=$(cut -d' ' -f1 /proc/uptime)
[ "$GP_MODE" = test ] && tag="GPINFO " || tag="== "
echo "$tag$(uname -r): amdgpu closure loaded in $(awk "BEGIN{print $t1-$t0}") s (guest uptime $t1 s)" > $GP_RESULTS

# The HIP disk (scripts/hipdisk.sh), when attached: trixie's libamdhip64
# root, read-only at /hip, its libraries linked beside the ROCr root's so
# a HIP program finds them at trixie's own paths, unchanged.
if [ "$GP_HIP" = 1 ]; then
	while read -r m; do
		# quiet: crc32c-intel needs SSE4.2 (TCG's CPU has none) and
		# amdgpu's closure may hold a module already; mount says if
		# what ext4 needs is missing
		insmod "$m" 2>/dev/null
	done < /gp/modules.disk
	mkdir -p /hip
	if mount -t ext4 -o ro /dev/vda /hip; then
		for f in /hip/usr/lib/x86_64-linux-gnu/*; do
			l=/usr/lib/x86_64-linux-gnu/${f##*/}
			[ -e "$l" ] || ln -s "$f" "$l"
		done
		echo "${tag}HIP disk mounted: $(ls /hip/usr/lib/x86_64-linux-gnu | wc -l) files in its library folder" > $GP_RESULTS
	else
		echo "${tag}HIP disk attached but not mounted (virtio_blk/ext4 modules?)" > $GP_RESULTS
	fi
fi

selected() { # file: matches one of the comma-separated globs?
	[ -z "$GP_TESTS" ] && return 0
	old=$IFS; IFS=,
	for g in $GP_TESTS; do
		IFS=$old
		case $(basename "$1") in $g) return 0 ;; esac
	done
	IFS=$old
	return 1
}

# A test's limit follows its progress, not the clock: it is ended when it
# has written nothing to either serial port for GP_SILENCE s (scripts/vm.sh
# sets it below the host's own silence limit). The UARTs' byte counters
# are the heartbeat, so tests need not change how they print. The guest's
# clock runs at wall-clock speed however slowly TCG executes it, which is
# why a fixed total here failed healthy tests on a loaded host.
TX="grep -o 'tx:[0-9]*' /proc/tty/driver/serial"
if [ -z "$(sh -c "$TX" 2>/dev/null)" ]; then
	echo "GPINFO no serial byte counters: per-test silence limit off" > $GP_RESULTS
	GP_SILENCE=0
fi
run_test() { # file
	if [ "${GP_SILENCE:-0}" -gt 0 ]; then
		# by path: busybox has a "watchdog" applet of its own
		# sampled every 5 s: each sample forks, and TCG makes forks dear
		sh /gp/bin/gp-watchdog.sh -s "$GP_SILENCE" -i 5 -p "$TX" -- sh "$1"
	else
		sh "$1"
	fi
}

if [ "$GP_MODE" != test ]; then
	sh /gp/run.sh > /dev/ttyS1 2>&1
else
	for t in /gp/tests/vm/[0-9]*.sh; do
		selected "$t" || continue
		echo "=== $t"
		run_test "$t"
		rc=$?
		if [ $rc -eq 124 ]; then
			echo "GPTEST fail $(basename "$t" .sh): no output for $GP_SILENCE s, ended (see the console)" > $GP_RESULTS
		elif [ $rc -ne 0 ]; then
			echo "GPTEST fail $(basename "$t" .sh): script exited $rc" > $GP_RESULTS
		fi
	done
fi
# The results port's (ttyS1) transmit counter: bytes the UART has taken.
results_tx() { sed -n 's/^1:.* tx:\([0-9]*\).*/\1/p' /proc/tty/driver/serial 2>/dev/null; }
tx0=
if [ "$GP_MODE" = test ]; then
	tx0=$(results_tx)
	echo "GPTEST-END" > $GP_RESULTS
fi
sync
# A tty's close drains its output only on the last close: a test's
# leftover child holding the results port open would let poweroff -f drop
# the end marker still in the UART's buffer (seen: 30 of 30 tests
# reported, no GPTEST-END; again on 6.12 under two host CPU hogs at
# d0279a2, after a fixed 2 s wait). So wait until the UART has taken the
# marker's bytes, by its own counter (a guest under load may need far
# more than 2 s to run the driver's transmit interrupts; 300 s at most);
# a kernel without the counters (7.x) keeps the 2 s.
if [ -n "$tx0" ]; then
	i=0
	while [ "$(results_tx)" -lt $((tx0 + 11)) ] && [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
sleep 2
poweroff -f
