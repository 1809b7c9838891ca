#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Build configurations, `make install`, the Debian package, the manual
# pages and the systemd unit (issue 13). Everything builds into scratch
# OUTPUT/DESTDIR folders; nothing is installed on the host.

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

load demo_path

setup_file() {
	export OUT=$BATS_FILE_TMPDIR/out
	# One dynamic build shared by the tests below (they only read it).
	make -s -C "$TOP" OUTPUT="$OUT" BINDIR="$OUT/bin" \
		"$OUT/bin/gpreempt-trace" "$OUT/bin/gpreempt-ctl" >/dev/null
}

setup() {
	cd "$TOP"
}

# need CMD PACKAGE: skip when a tool scripts/setup.sh installs is missing.
need() {
	command -v "$1" >/dev/null || skip "no $1 (apt-get install $2; scripts/setup.sh does)"
}

@test "make STATIC=1 after a dynamic build relinks statically, and back" {
	o=$BATS_FILE_TMPDIR/o
	run -0 make -s OUTPUT="$o" BINDIR="$o/bin" "$o/bin/gpreempt-ctl"
	run -0 file "$o/bin/gpreempt-ctl"
	[[ "$output" == *"dynamically linked"* ]]
	run -0 make -s OUTPUT="$o" BINDIR="$o/bin" STATIC=1 "$o/bin/gpreempt-ctl"
	run -0 file "$o/bin/gpreempt-ctl"
	[[ "$output" == *"statically linked"* ]]
	run readelf -d "$o/bin/gpreempt-ctl"
	[[ "$output" != *NEEDED* ]]
	run -0 make -s OUTPUT="$o" BINDIR="$o/bin" "$o/bin/gpreempt-ctl"
	run -0 file "$o/bin/gpreempt-ctl"
	[[ "$output" == *"dynamically linked"* ]]
}

@test "make DEBUG=1 recompiles every object with -Og" {
	o=$BATS_FILE_TMPDIR/o
	run -0 make -s OUTPUT="$o" BINDIR="$o/bin" "$o/bin/gpreempt-ctl"
	run -0 make -s OUTPUT="$o" BINDIR="$o/bin" DEBUG=1 "$o/bin/gpreempt-ctl"
	grep -q 'DEBUG=1' "$o/build-config"
	# Every object's producer string records the flags it was built with.
	for obj in "$o"/ctl.o "$o"/util.o; do
		run -0 readelf --debug-dump=info "$obj"
		[[ "$output" == *"DW_AT_producer"*"-Og"* ]]
	done
	# An unchanged configuration rebuilds nothing.
	run -0 make OUTPUT="$o" BINDIR="$o/bin" DEBUG=1 "$o/bin/gpreempt-ctl"
	[[ "$output" != *"CC "* && "$output" != *"BINARY "* ]]
}

@test "ARCH comes from uname -m; an unknown one fails with a clear error" {
	case $(uname -m) in
	x86_64) want=x86 ;; aarch64) want=arm64 ;; *) skip "untested machine $(uname -m)" ;;
	esac
	grep -q " ARCH=$want " "$OUT/build-config"
	run -2 make -s OUTPUT="$BATS_TEST_TMPDIR/a" ARCH=nosuch \
		"$BATS_TEST_TMPDIR/a/gpreempt.bpf.o"
	[[ "$output" == *"no vmlinux/nosuch/vmlinux.h for ARCH=nosuch"* ]]
	[[ "$output" == *"scripts/gen-vmlinux.sh"* ]]
}

@test "make install DESTDIR= PREFIX=/usr with only the demo's packages (no help2man): exactly the expected files" {
	# Before the committed pages, this failed with help2man: command not
	# found (error 127) on a machine that ran only scripts/demo.sh.
	d=$BATS_TEST_TMPDIR/root
	p=$(demo_path "$BATS_TEST_TMPDIR/demo")
	run ! env PATH="$p" bash -c 'command -v help2man'
	run ! env PATH="$p" bash -c 'command -v promtool'
	env PATH="$p" bash -c 'command -v make && command -v install'
	run -0 env PATH="$p" make -s OUTPUT="$OUT" BINDIR="$OUT/bin" install DESTDIR="$d" PREFIX=/usr
	run -0 bash -c "cd '$d' && find . -not -type d | sort"
	expected="./etc/gpreempt/gpreempt.conf
./usr/lib/systemd/system/gpreempt.service
./usr/sbin/gpreempt-ctl
./usr/sbin/gpreempt-trace
./usr/share/gpreempt/drop-ins/detect-queues.conf
./usr/share/gpreempt/drop-ins/realtime.conf
./usr/share/man/man8/gpreempt-ctl.8
./usr/share/man/man8/gpreempt-trace.8"
	diff <(echo "$expected") <(echo "$output")
	[ -x "$d/usr/sbin/gpreempt-ctl" ]
	cmp packaging/man/gpreempt-ctl.8 "$d/usr/share/man/man8/gpreempt-ctl.8"
	grep -q '^ExecStart=/usr/sbin/gpreempt-ctl daemon --config /etc/gpreempt/gpreempt.conf$' \
		"$d/usr/lib/systemd/system/gpreempt.service"
	run -0 env PATH="$p" make -s OUTPUT="$OUT" BINDIR="$OUT/bin" uninstall DESTDIR="$d" PREFIX=/usr
	run -0 find "$d/usr" -not -type d
	[ -z "$output" ]
}

@test "make man without help2man says why, and that install does not need it" {
	p=$(demo_path "$BATS_TEST_TMPDIR/demo")
	run -127 env PATH="$p" packaging/gen-man.sh "$OUT/bin/gpreempt-trace" \
		packaging/man/gpreempt-trace.h2m "$BATS_TEST_TMPDIR/x.8"
	[[ "$output" == *"help2man is needed"*"apt-get install help2man"* ]]
	[[ "$output" == *"make install uses the committed packaging/man/*.8"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/x.8" ]
}

@test "the committed man pages are the binaries' --help, rendered (re-rendering changes nothing)" {
	need help2man help2man
	for t in gpreempt-trace gpreempt-ctl; do
		run -0 packaging/gen-man.sh "$OUT/bin/$t" packaging/man/$t.h2m \
			"$BATS_TEST_TMPDIR/$t.8"
		diff -u packaging/man/$t.8 "$BATS_TEST_TMPDIR/$t.8" ||
			{ echo "packaging/man/$t.8 is stale: run make man and commit it"; false; }
	done
	# and the check can fail: a changed option is a difference
	sed 's/duration/durationX/' packaging/man/gpreempt-trace.8 > "$BATS_TEST_TMPDIR/stale.8"
	run ! diff -q "$BATS_TEST_TMPDIR/stale.8" "$BATS_TEST_TMPDIR/gpreempt-trace.8"
}

@test "man -l renders both committed pages; they carry every option of --help" {
	need man man-db
	for t in gpreempt-trace gpreempt-ctl; do
		run -0 env MANWIDTH=200 man -l "packaging/man/$t.8"
		page=$output
		[[ "$page" == *NAME*"$t - "* && "$page" == *"EXIT STATUS"* ]]
		# Every long option of the tool's help (and of each command's).
		helps=$("$OUT/bin/$t" --help)
		if [ "$t" = gpreempt-ctl ]; then
			for c in list suspend resume status check daemon; do
				[[ "$page" == *"gpreempt-ctl $c [OPTION"* ]]
				helps+=$("$OUT/bin/$t" "$c" --help)
			done
		fi
		for opt in $(grep -oE -- '--[a-z][a-z-]+' <<< "$helps" | sort -u); do
			[[ "$page" == *"$opt"* ]] || { echo "man $t lacks $opt"; false; }
		done
	done
}

@test "README or docs/ name every option of both tools' --help (short or long form)" {
	docs=$BATS_TEST_TMPDIR/docs.md
	cat README.md docs/*.md > "$docs"
	opts=$("$OUT/bin/gpreempt-trace" --help)
	for c in list suspend resume status check daemon; do
		opts+=$'\n'$("$OUT/bin/gpreempt-ctl" "$c" --help)
	done
	missing=()
	# Option lines: "  -d, --duration=DURATION   ..." or "      --check  ...".
	while read -r short long; do
		case $long in --help|--usage|--version) continue ;; esac
		grep -qe "$long[] =\`,)]" "$docs" && continue
		[ "$short" != none ] && grep -qe "\`$short[ \`]" "$docs" && continue
		missing+=("$long")
	done < <(sed -nE 's/^ +(-[A-Za-z], )?(--[a-z][a-z-]+).*/\1 \2/p' <<< "$opts" |
		 sed 's/,//' | awk 'NF == 1 { print "none", $1; next } { print }' | sort -u)
	[ ${#missing[@]} -eq 0 ] || { echo "README and docs/ lack: ${missing[*]}"; false; }
}

@test "the unit, the example config and the man page's FILES name every Arbitration option" {
	arb=$("$OUT/bin/gpreempt-ctl" daemon --help |
	      sed -n '/^ Arbitration/,/^$/p' | sed -nE 's/^ +--([a-z][a-z-]+).*/\1/p')
	[ "$(wc -w <<< "$arb")" -ge 7 ]
	files=$(sed -n '/^\[FILES\]/,/^\[/p' packaging/man/gpreempt-ctl.h2m)
	missing=()
	for o in $arb; do
		grep -qE "^#$o( |$)" packaging/gpreempt.conf || missing+=("gpreempt.conf:$o")
		grep -q "$o" packaging/gpreempt.service.in || missing+=("unit:$o")
		grep -qF "\\fB$o\\fR" <<< "$files" || missing+=("man FILES:$o")
	done
	[ ${#missing[@]} -eq 0 ] || { echo "missing: ${missing[*]}"; false; }
	# and --help says SIGHUP re-reads them
	run -0 "$OUT/bin/gpreempt-ctl" daemon --help
	[[ "$(tr '\n' ' ' <<< "$output")" == *"SIGHUP re-reads --config and the flags (max-hold, verbose and the Arbitration options below)"* ]]
}

@test "systemd-analyze verify: the installed unit is clean" {
	need systemd-analyze systemd
	d=$BATS_TEST_TMPDIR/root
	# PREFIX inside the scratch root so ExecStart= names a real binary.
	run -0 make -s OUTPUT="$OUT" BINDIR="$OUT/bin" install PREFIX="$d/usr" \
		SYSCONFDIR="$d/etc"
	run -0 env MANPATH="$d/usr/share/man" systemd-analyze verify \
		"$d/usr/lib/systemd/system/gpreempt.service"
	[ -z "$output" ]
}

@test "systemd-analyze security: the score is docs/service.md's" {
	need systemd-analyze systemd
	d=$BATS_TEST_TMPDIR/root
	run -0 make -s OUTPUT="$OUT" BINDIR="$OUT/bin" install PREFIX="$d/usr" \
		SYSCONFDIR="$d/etc"
	run -0 systemd-analyze security --offline=yes \
		"$d/usr/lib/systemd/system/gpreempt.service"
	score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<< "$output")
	[ -n "$score" ]
	grep -q "systemd-analyze security.* $score " docs/service.md ||
		{ echo "docs/service.md does not record the exposure level $score"; false; }
}

@test "make deb builds a package that lintian passes without errors" {
	need dpkg-buildpackage dpkg-dev
	need dh debhelper
	need lintian lintian
	run -0 make -s OUTPUT="$OUT" deb
	deb=$(ls "$OUT"/deb/gpreempt_*_*.deb)
	run -0 dpkg-deb -c "$deb"
	for f in usr/sbin/gpreempt-trace usr/sbin/gpreempt-ctl \
		 lib/systemd/system/gpreempt.service etc/gpreempt/gpreempt.conf \
		 usr/share/man/man8/gpreempt-ctl.8.gz usr/share/man/man8/gpreempt-trace.8.gz; do
		[[ "$output" == *" ./$f"* ]] || { echo "no $f in $deb"; false; }
	done
	# no error and no warning (informational tags only)
	run -0 lintian --fail-on error,warning "$deb"
	! grep -qE '^(E|W):' <<< "$output"
	# the package's version is the tools' own
	v=$(dpkg-deb -f "$deb" Version)
	run -0 "$OUT/bin/gpreempt-trace" --version
	[ "$output" = "gpreempt-trace $v" ]
}

@test "the .deb installs into a throwaway root, purges clean, resolves on this Debian" {
	need dpkg-buildpackage dpkg-dev
	deb=$(ls "$OUT"/deb/gpreempt_*_*.deb 2>/dev/null) ||
		{ make -s OUTPUT="$OUT" deb >/dev/null; deb=$(ls "$OUT"/deb/gpreempt_*_*.deb); }
	r=$BATS_TEST_TMPDIR/r
	mkdir -p "$r"/var/lib/dpkg/{info,updates,triggers}
	touch "$r/var/lib/dpkg/status"
	# Maintainer scripts run outside a chroot with DPKG_ROOT set (debhelper's
	# snippets honour it); the dependencies are checked against the host below.
	run -0 dpkg --root="$r" --force-script-chrootless --force-depends -i "$deb"
	[ -x "$r/usr/sbin/gpreempt-ctl" ]
	[ -f "$r/lib/systemd/system/gpreempt.service" ]
	run -0 dpkg --root="$r" --force-script-chrootless --purge gpreempt
	run -0 find "$r" -not -type d -not -path "$r/var/lib/dpkg/*"
	[ -z "$output" ] || { echo "left behind: $output"; false; }
	# Every dependency resolves from this machine's apt sources.
	run -0 apt-get -s -o Debug::NoLocking=1 install "$deb"
	[[ "$output" == *"Inst gpreempt "* ]]
}
