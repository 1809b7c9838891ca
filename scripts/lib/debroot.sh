# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A private root of Debian packages, never installed on the host: what
# scripts/rocr.sh (the guests' ROCm runtime, the HIP library) and
# scripts/hipcc.sh (the kit's compiler) share. Sourced; the caller sets
# `die` and passes its apt options (a private package list) as one word.
#
# The steps: closure (the names apt resolves), download (into a fresh
# folder), extract (every .deb into a scratch root), commit (swap the
# scratch root in, info last: its presence means the root is complete).

# The dependency closure apt computes (Depends and Pre-Depends only).
debroot_closure() { # apt-opts pkg...
	local opts=$1
	shift
	# shellcheck disable=SC2086
	apt-cache $opts depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances "$@" |
		grep -v -e '^ ' -e '^<' | sort -u
}

# Download PKG... into DIR, replacing what DIR held only on success.
debroot_download() { # apt-opts dir pkg...
	local opts=$1 dir=$2
	shift 2
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	# shellcheck disable=SC2086
	(cd "$dir.tmp" && apt-get $opts -o APT::Sandbox::User=root -qq download "$@") ||
		return 1
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# Unpack each package's .deb from DEBS into ROOT; prints " pkg=version"...
debroot_extract() { # debs root pkg...
	local debs=$1 root=$2 p deb
	shift 2
	for p in "$@"; do
		deb=$(ls "$debs/${p}_"*.deb)
		dpkg-deb -x "$deb" "$root"
		printf ' %s=%s' "$p" "$(dpkg-deb -f "$deb" Version)"
	done
}

# Move the finished scratch root to ROOT and write INFO (PACKAGES="...")
# last, so an interrupted fetch leaves no info and is redone.
debroot_commit() { # scratch root info versions
	echo "PACKAGES=\"${4# }\"" > "$3.tmp"
	rm -f "$3"
	rm -rf "$2" && mv "$1" "$2"
	mv "$3.tmp" "$3"
}
