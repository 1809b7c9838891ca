# shellcheck shell=bash
# demo_path DIR: print a PATH under which only what a machine that ran
# scripts/demo.sh has can run. DIR/bin gets a link to every command of
# the usual PATH except those of the packages that scripts/setup.sh
# installs for the tests but not for the demo (help2man, man-db, dpkg-dev,
# prometheus, ...): the set difference of `setup.sh test --list` and
# `setup.sh demo --list`, their commands found through `dpkg -L`. A
# command of a test-only package is hidden even where something of the
# demo's set also pulls that package in: the check errs on the strict side.
demo_path() {
	local dir=$1 top p f name
	top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	mkdir -p "$dir/bin"
	declare -A hide=()
	for p in $(comm -23 <("$top/scripts/setup.sh" test --list | sort -u) \
			    <("$top/scripts/setup.sh" demo --list | sort -u)); do
		while read -r f; do
			case $f in */bin/*|*/sbin/*) hide[${f##*/}]=1 ;; esac
		done < <(dpkg -L "$p" 2>/dev/null)
	done
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		for f in "$d"/*; do
			name=${f##*/}
			[ -x "$f" ] && [ ! -d "$f" ] || continue
			[ -z "${hide[$name]:-}" ] || continue
			[ -e "$dir/bin/$name" ] || ln -s "$f" "$dir/bin/$name"
		done
	done
	echo "$dir/bin"
}
