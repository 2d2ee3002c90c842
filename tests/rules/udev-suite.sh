#!/bin/sh
# SPDX-License-Identifier: MIT
# udev's own rules test suite (test/udev-test.pl and its sysfs tree
# test/sys-script.py, from Debian 12's systemd 252 source package) run
# through initdev's rules engine with tests/test-udev, the stand-in for
# systemd's test-udev.
#
#   udev-suite.sh fetch CACHE
#       Put udev-test.pl, sys-script.py and VERSION in CACHE (kept there:
#       a second fetch does nothing). They come from `apt-get source
#       systemd/bookworm` with a private APT_CONFIG (its own sources list,
#       lists and archives under CACHE/apt; nothing of the host's apt is
#       used or changed). The suite is LGPL: it is fetched, never committed.
#       Exit 0; 3 if it cannot be fetched (no network), with the reason.
#   udev-suite.sh run CACHE WORKDIR TEST_UDEV [N...]
#       Build the suite's sysfs tree in WORKDIR/test/sys and run the suite
#       there (test numbers N, default all) in a private mount namespace
#       (unshare -m: its tmpfs and the stand-in's bind mounts never reach
#       the host's /dev or /run). Output in WORKDIR/udev-test.log; exit as
#       udev-test.pl exits (0 all good, 1 errors, 77 skipped).
# Needs root (mknod, mount), perl, python3, dpkg-dev (dpkg-source), unshare.
set -eu

FILES="udev-test.pl sys-script.py"

fetch() {
	cache=$1
	mkdir -p "$cache"
	have=1
	for f in $FILES; do [ -s "$cache/$f" ] || have=0; done
	[ "$have" = 1 ] && return 0
	apt="$cache/apt"
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/src"
	: > "$apt/status"
	echo 'deb-src http://deb.debian.org/debian bookworm main' > "$apt/sources.list"
	cat > "$apt/apt.conf" <<EOF
Dir::State "$apt";
Dir::State::lists "$apt/lists";
Dir::State::status "$apt/status";
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::Cache "$apt";
Dir::Cache::archives "$apt/archives";
EOF
	if ! APT_CONFIG="$apt/apt.conf" apt-get -q update > "$apt/update.log" 2>&1; then
		echo "cannot fetch udev's suite: apt-get update failed (no network?): $(tail -n 1 "$apt/update.log")"
		return 3
	fi
	if ! (cd "$apt/src" && APT_CONFIG="$apt/apt.conf" apt-get -q source systemd/bookworm \
		> ../source.log 2>&1); then
		echo "cannot fetch udev's suite: apt-get source systemd/bookworm failed: $(tail -n 1 "$apt/source.log")"
		return 3
	fi
	tree=$(find "$apt/src" -mindepth 1 -maxdepth 1 -type d -name 'systemd-*' | head -n 1)
	for f in $FILES; do cp "$tree/test/$f" "$cache/$f.new" && mv "$cache/$f.new" "$cache/$f"; done
	basename "$tree" > "$cache/VERSION"
	# the unpacked source (hundreds of MB) and its tarballs are not needed again
	rm -rf "$apt/src" "$apt/archives"
}

run() {
	cache=$1 work=$2 bin=$3
	shift 3
	mkdir -p "$work/test"
	cp "$cache/udev-test.pl" "$work/"
	[ -d "$work/test/sys" ] || python3 "$cache/sys-script.py" "$work/test"
	ln -sfn "$bin" "$work/test-udev"
	cd "$work"
	set +e
	unshare -m --propagation private perl udev-test.pl "$@" > udev-test.log 2>&1
	rc=$?
	set -e
	tail -n 2 udev-test.log
	return $rc
}

case "${1:-}" in
fetch) shift; fetch "$@" ;;
run) shift; run "$@" ;;
*) echo "usage: udev-suite.sh fetch CACHE | run CACHE WORKDIR TEST_UDEV [N...]" >&2; exit 2 ;;
esac
