# SPDX-License-Identifier: MIT
# Shared by the Debian 13 tests (trixie_test): the trixie tree that
# scripts/trixie-tree makes (cached in TRIXIE_CACHE, default
# /var/cache/initdev/trixie) with initdev built and installed inside it,
# and running its programs in a private mount namespace. POSIX sh.

# trixie_head [TIMEOUT [PROGS]]: root, mmdebstrap (and PROGS), the timeout
# (default 900 s: a cold tree takes minutes); each property set once
# (kyua refuses duplicates)
trixie_head() {
	atf_set require.user root
	atf_set require.progs "mmdebstrap unshare chroot${2:+ $2}"
	atf_set timeout "${1:-900}"
}

# trixie_setup: make or reuse the tree with this build's sources; sets
# TRIXIE_TREE. The sources: INITDEV_SRCDIR from the staged install's
# stage.env (make check), else the checkout this file is in.
trixie_setup() {
	env_file=${INITDEV_STAGE_ENV:-}
	atf_config_has stage_env && env_file=$(atf_config_get stage_env)
	# shellcheck disable=SC1090 # written by make stage
	[ -n "$env_file" ] && [ -f "$env_file" ] && . "$env_file"
	srcdir=${INITDEV_SRCDIR:-$(cd "$(atf_get_srcdir)/../.." && pwd)}
	[ -x "$srcdir/scripts/trixie-tree" ] || atf_fail "no scripts/trixie-tree in $srcdir"
	"$srcdir/scripts/trixie-tree" "$srcdir" > tree.out 2> tree.err ||
		{ tail -n 30 tree.err; atf_fail "scripts/trixie-tree failed (above)"; }
	cat tree.err
	TRIXIE_TREE=$(tail -n 1 tree.out)
	[ -x "$TRIXIE_TREE/usr/local/sbin/initdev" ] ||
		atf_fail "no initdev installed in the tree $TRIXIE_TREE"
}

# trixie_chroot CMD...: run CMD in the tree, in a private mount namespace
# with the host's /sys and /proc, tmpfs /run and /tmp, and /dev from the
# host (devtmpfs) unless a command mounts its own; nothing stays mounted.
trixie_chroot() {
	unshare -m sh -eu -c '
		t=$1; shift
		mount --make-rprivate /
		mount --bind "$t" "$t"
		mount -t proc proc "$t/proc"
		mount --rbind /sys "$t/sys"
		mount --rbind /dev "$t/dev"
		mount -t tmpfs trixie "$t/run"
		mount -t tmpfs trixie "$t/tmp"
		[ -z "${TRIXIE_RUN_FILES:-}" ] || cp -R "$TRIXIE_RUN_FILES" "$t/run/files"
		exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 chroot "$t" "$@"
	' trixie "$TRIXIE_TREE" "$@"
}
